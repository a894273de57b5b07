//! Minimal TSPLIB EUC_2D reader for the benchmarks and tests.

#[derive(Clone, Debug)]
pub struct Instance {
    pub name: String,
    pub coords: Vec<(f64, f64)>,
}

pub fn parse(text: &str) -> Result<Instance, String> {
    let mut name = String::new();
    let mut coords = Vec::new();
    let mut in_coords = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if in_coords {
            if line == "EOF"
                || !line
                    .chars()
                    .next()
                    .map_or(false, |c| c.is_ascii_digit() || c == '-')
            {
                in_coords = false;
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 3 {
                return Err(format!("bad coordinate line: {}", line));
            }
            let x: f64 = f[1].parse().map_err(|_| format!("bad x: {}", line))?;
            let y: f64 = f[2].parse().map_err(|_| format!("bad y: {}", line))?;
            coords.push((x, y));
        } else if line.starts_with("NAME") {
            name = line.split_once(':').map_or("", |x| x.1).trim().to_string();
        } else if line.starts_with("EDGE_WEIGHT_TYPE") {
            let t = line.split_once(':').map_or("", |x| x.1).trim();
            if t != "EUC_2D" {
                return Err(format!("unsupported EDGE_WEIGHT_TYPE {}", t));
            }
        } else if line.starts_with("NODE_COORD_SECTION") {
            in_coords = true;
        }
    }
    Ok(Instance { name, coords })
}

/// TSPLIB nint(sqrt(dx^2 + dy^2)).
pub fn euc2d(a: (f64, f64), b: (f64, f64)) -> i32 {
    let dx = a.0 - b.0;
    let dy = a.1 - b.1;
    ((dx * dx + dy * dy).sqrt() + 0.5) as i32
}

/// Matrix for a closed tour from node 0: m = N + 1, start = node 0,
/// stops = nodes 1..N-1, end = a copy of node 0.
pub fn closed_tour_matrix(inst: &Instance) -> (usize, Vec<i32>) {
    let nn = inst.coords.len();
    let m = nn + 1;
    let ext = |i: usize| if i == nn { 0 } else { i };
    let mut mat = vec![0i32; m * m];
    for i in 0..m {
        for j in 0..m {
            mat[i * m + j] = euc2d(inst.coords[ext(i)], inst.coords[ext(j)]);
        }
    }
    (m, mat)
}

/// Closed tour length for a 0-based node order starting at node 0.
pub fn tour_length(inst: &Instance, tour: &[usize]) -> i64 {
    let mut len = 0i64;
    for k in 0..tour.len() {
        len += euc2d(
            inst.coords[tour[k]],
            inst.coords[tour[(k + 1) % tour.len()]],
        ) as i64;
    }
    len
}
