//! Validated problem: internal node numbering and the lexicographic cost.
//!
//! Internal nodes: 0 = start, 1..=n = stops, n+1 = end. When the input has no
//! end point the end is virtual: travel from any node to it is 0, so the
//! route duration is the departure from the last stop (after its service).
//! Edge weight `w(i, j) = service(i) + travel(i, j)`: the arrival time at a
//! node is the sum of the weights of the edges before it.

use crate::abi::status;

/// Lexicographic cost: lateness first, then duration (both seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cost {
    pub lateness: i64,
    pub duration: i64,
}

impl Cost {
    pub const MAX: Cost = Cost {
        lateness: i64::MAX,
        duration: i64::MAX,
    };
}

/// Deadline value meaning "no deadline" inside the search.
pub const NO_DEADLINE: i64 = i64::MAX / 4;

/// Largest matrix side accepted (start + stops + end).
pub const MAX_SIZE: usize = 4096;

/// Invalid input. The discriminant is the status code returned over the ABI (crate::abi::status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputError {
    /// size < 1 (+1 with an end), or size > MAX_SIZE.
    BadSize = status::BAD_SIZE as isize,
    /// An array length does not match the size.
    BadLength = status::BAD_LENGTH as isize,
    /// A travel duration is negative.
    NegativeDuration = status::NEGATIVE_DURATION as isize,
    /// A service duration is negative.
    NegativeService = status::NEGATIVE_SERVICE as isize,
    /// A deadline is below -1 (-1 means none). Over the ABI (since version 4)
    /// deadlines arrive as `abi::NO_DEADLINE` or any value; `ffi` maps them here.
    BadDeadline = status::BAD_DEADLINE as isize,
    /// has_end flag not 0/1.
    BadFlag = status::BAD_FLAG as isize,
    /// Time limit is NaN, infinite or negative.
    BadTimeLimit = status::BAD_TIME_LIMIT as isize,
}

/// Raw input over the external node numbering [start, stops..., end?].
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub size: usize,
    pub durations: &'a [i32],
    pub service: &'a [i32],
    pub deadline: &'a [i32],
    pub has_end: bool,
}

#[derive(Clone, Debug)]
pub struct Problem {
    /// Number of stops.
    pub n: usize,
    /// Internal node count n + 2.
    pub nn: usize,
    /// Travel times, internal numbering, nn*nn.
    d: Vec<i64>,
    /// Edge weights service(i) + travel(i, j), nn*nn.
    w: Vec<i64>,
    /// Deadline per internal node (NO_DEADLINE when none; start/end none).
    pub dl: Vec<i64>,
    pub has_deadlines: bool,
    /// The route ends at a real end point (else the end is virtual).
    pub has_end: bool,
    /// Travel between stops is the same both ways (edges at the start and the
    /// end are only ever used in one direction).
    pub symmetric: bool,
    /// The route is a round trip: it ends at a real end point that every stop
    /// reaches exactly as it reaches the start (the depot), so the route is a
    /// cycle through the depot (kicks may then straddle it).
    pub ends_at_start: bool,
}

impl Problem {
    pub fn new(inp: &Input) -> Result<Problem, InputError> {
        let extra = if inp.has_end { 2 } else { 1 };
        if inp.size < extra || inp.size > MAX_SIZE {
            return Err(InputError::BadSize);
        }
        let n = inp.size - extra;
        if inp.durations.len() != inp.size * inp.size
            || inp.service.len() != n
            || inp.deadline.len() != n
        {
            return Err(InputError::BadLength);
        }
        if inp.durations.iter().any(|&x| x < 0) {
            return Err(InputError::NegativeDuration);
        }
        if inp.service.iter().any(|&x| x < 0) {
            return Err(InputError::NegativeService);
        }
        if inp.deadline.iter().any(|&x| x < -1) {
            return Err(InputError::BadDeadline);
        }
        let nn = n + 2;
        let m = inp.size;
        // internal -> external index (end: m-1 if present, else virtual)
        let ext = |i: usize| -> Option<usize> {
            if i <= n {
                Some(i)
            } else if inp.has_end {
                Some(m - 1)
            } else {
                None
            }
        };
        let mut d = vec![0i64; nn * nn];
        let mut w = vec![0i64; nn * nn];
        for i in 0..nn {
            let svc = if i >= 1 && i <= n {
                inp.service[i - 1] as i64
            } else {
                0
            };
            for j in 0..nn {
                let t = match (ext(i), ext(j)) {
                    _ if i == j => 0,
                    _ if i == n + 1 => 0, // never used as a source in a route
                    (Some(a), Some(b)) => inp.durations[a * m + b] as i64,
                    _ => 0, // to the virtual end
                };
                d[i * nn + j] = t;
                w[i * nn + j] = if i == n + 1 { 0 } else { svc + t };
            }
        }
        let mut dl = vec![NO_DEADLINE; nn];
        let mut has_deadlines = false;
        for s in 0..n {
            if inp.deadline[s] >= 0 {
                dl[s + 1] = inp.deadline[s] as i64;
                has_deadlines = true;
            }
        }
        let symmetric = (1..=n).all(|i| (1..i).all(|j| d[i * nn + j] == d[j * nn + i]));
        let ends_at_start = inp.has_end && (1..=n).all(|i| d[i * nn + n + 1] == d[i * nn]);
        Ok(Problem {
            n,
            nn,
            symmetric,
            ends_at_start,
            d,
            w,
            dl,
            has_deadlines,
            has_end: inp.has_end,
        })
    }

    #[inline(always)]
    pub fn w(&self, i: usize, j: usize) -> i64 {
        self.w[i * self.nn + j]
    }

    #[inline(always)]
    pub fn d(&self, i: usize, j: usize) -> i64 {
        self.d[i * self.nn + j]
    }

    /// Length of the edge a–b in both directions summed (travel only), the
    /// undirected edge weight the Lin–Kernighan gain criterion uses: twice the
    /// edge on symmetric matrices. Edges at the start count from the start,
    /// edges at the end towards the end (the only directions a route uses).
    #[inline(always)]
    pub fn round_trip(&self, a: usize, b: usize) -> i64 {
        let end = self.n + 1;
        if a == 0 {
            2 * self.d(0, b)
        } else if b == 0 {
            2 * self.d(0, a)
        } else if a == end {
            2 * self.d(b, end)
        } else if b == end {
            2 * self.d(a, end)
        } else {
            self.d(a, b) + self.d(b, a)
        }
    }

    pub fn end(&self) -> usize {
        self.n + 1
    }

    /// Full cost of an internal route [0, stops..., n+1] (recomputed from scratch).
    pub fn route_cost(&self, route: &[usize]) -> Cost {
        let mut t = 0i64;
        let mut late = 0i64;
        for k in 1..route.len() {
            t += self.w(route[k - 1], route[k]);
            let dl = self.dl[route[k]];
            if t > dl {
                late += t - dl;
            }
        }
        Cost {
            lateness: late,
            duration: t,
        }
    }

    /// Cost of a visiting order of stops given as internal ids (1..=n).
    pub fn order_cost(&self, stops: &[usize]) -> Cost {
        let mut r = Vec::with_capacity(stops.len() + 2);
        r.push(0);
        r.extend_from_slice(stops);
        r.push(self.end());
        self.route_cost(&r)
    }
}
