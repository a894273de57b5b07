//! Exact solver for small problems (n <= EXACT_MAX_STOPS): dynamic programming
//! over (visited set, last stop) keeping Pareto-optimal (lateness, time)
//! labels. A label dominates another when both its lateness so far and its
//! arrival time are no larger: lateness of later stops is non-decreasing in
//! the arrival time and duration is arrival + remaining, so dominated labels
//! can never complete into a strictly better route. The result is optimal for
//! the lexicographic objective.

use crate::problem::{Cost, Problem};

pub const EXACT_MAX_STOPS: usize = 10;

#[derive(Clone, Copy, Debug)]
struct Label {
    late: i64,
    time: i64,
    prev_last: u8,
    prev_idx: u32,
}

/// Returns an optimal order (internal stop ids) and its cost.
pub fn solve_exact(p: &Problem) -> (Vec<usize>, Cost) {
    let n = p.n;
    assert!(n <= 16, "exact solver is for small problems");
    if n == 0 {
        let c = p.order_cost(&[]);
        return (Vec::new(), c);
    }
    let full = (1usize << n) - 1;
    // labels[mask * n + last]
    let mut labels: Vec<Vec<Label>> = vec![Vec::new(); (full + 1) * n];
    for s in 0..n {
        let t = p.w(0, s + 1);
        let late = (t - p.dl[s + 1]).max(0);
        labels[(1 << s) * n + s].push(Label {
            late,
            time: t,
            prev_last: u8::MAX,
            prev_idx: 0,
        });
    }
    for mask in 1..=full {
        for last in 0..n {
            if mask & (1 << last) == 0 {
                continue;
            }
            // Drop labels dominated by a later arrival (nothing references
            // this state's indices yet: successors are created below).
            compact(&mut labels[mask * n + last]);
            let cur_len = labels[mask * n + last].len();
            if cur_len == 0 {
                continue;
            }
            for nxt in 0..n {
                if mask & (1 << nxt) != 0 {
                    continue;
                }
                let nmask = mask | (1 << nxt);
                let wt = p.w(last + 1, nxt + 1);
                let dl = p.dl[nxt + 1];
                for li in 0..cur_len {
                    let l = labels[mask * n + last][li];
                    let time = l.time + wt;
                    let late = l.late + (time - dl).max(0);
                    insert_pareto(
                        &mut labels[nmask * n + nxt],
                        Label {
                            late,
                            time,
                            prev_last: last as u8,
                            prev_idx: li as u32,
                        },
                    );
                }
            }
        }
    }
    let end = p.end();
    let mut best = Cost::MAX;
    let mut best_at = (0usize, 0usize);
    for last in 0..n {
        for (i, l) in labels[full * n + last].iter().enumerate() {
            let c = Cost {
                lateness: l.late,
                duration: l.time + p.w(last + 1, end),
            };
            if c < best {
                best = c;
                best_at = (last, i);
            }
        }
    }
    // reconstruct
    let mut order = Vec::with_capacity(n);
    let mut mask = full;
    let (mut last, mut idx) = best_at;
    loop {
        order.push(last + 1);
        let l = labels[mask * n + last][idx];
        if l.prev_last == u8::MAX {
            break;
        }
        mask &= !(1 << last);
        last = l.prev_last as usize;
        idx = l.prev_idx as usize;
    }
    order.reverse();
    debug_assert_eq!(p.order_cost(&order), best);
    (order, best)
}

/// Keeps the set Pareto-minimal; labels are never reordered once stored
/// (their indices are referenced by successors), dominated ones are only
/// skipped when new: an existing label dominated later stays (harmless).
fn insert_pareto(set: &mut Vec<Label>, l: Label) {
    for e in set.iter() {
        if e.late <= l.late && e.time <= l.time {
            return;
        }
    }
    set.push(l);
}

fn compact(set: &mut Vec<Label>) {
    if set.len() < 2 {
        return;
    }
    let all = set.clone();
    set.retain(|l| {
        !all.iter()
            .any(|e| (e.late <= l.late && e.time <= l.time) && (e.late < l.late || e.time < l.time))
    });
}
