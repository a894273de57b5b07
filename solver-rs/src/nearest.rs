//! The k-nearest selection behind both engines' neighbour lists: per row of
//! a square matrix, the `keep` smallest keys, ties by index. The single-route
//! search's nearest rule (`search::neighbours`, key: the shorter of the two
//! directed edges, with the start and the end) and the fleet's job lists
//! (`fleet::model`, key: the round trip between two jobs) differ only in
//! their key and in which pairs are candidates.
//!
//! O(n²) arc reads, O(BLOCK · n) memory beside the lists. The rows go by
//! blocks of BLOCK: a block's out-arcs are rows of the matrix, and its
//! in-arcs are read row by row too (arc(j, i) for every i of the block while
//! row j is in cache), not a column per row (one cache miss a read at 10,000
//! places).

/// Rows whose keys are computed together.
pub const BLOCK: usize = 64;

/// For each row i of 0..n in order, `emit(i, list)` with the `keep` pairs
/// (key, j) of smallest key among the columns j with `candidate(i, j)`,
/// sorted by key, ties by index j (all of them when there are no more).
/// The key of (i, j) is `key(i, j, arc(i, j), arc(j, i))`.
pub fn select<A, K, C, E>(n: usize, keep: usize, arc: A, key: K, candidate: C, mut emit: E)
where
    A: Fn(usize, usize) -> i64,
    K: Fn(usize, usize, i64, i64) -> i64,
    C: Fn(usize, usize) -> bool,
    E: FnMut(usize, &[(i64, u32)]),
{
    let mut keys = vec![0i64; BLOCK.min(n) * n];
    let mut keyed: Vec<(i64, u32)> = Vec::with_capacity(n);
    for lo in (0..n).step_by(BLOCK) {
        let hi = (lo + BLOCK).min(n);
        for (b, i) in (lo..hi).enumerate() {
            for (j, k) in keys[b * n..(b + 1) * n].iter_mut().enumerate() {
                *k = arc(i, j);
            }
        }
        for j in 0..n {
            for (b, i) in (lo..hi).enumerate() {
                let k = &mut keys[b * n + j];
                *k = key(i, j, *k, arc(j, i));
            }
        }
        for (b, i) in (lo..hi).enumerate() {
            keyed.clear();
            let row = &keys[b * n..(b + 1) * n];
            keyed.extend(
                (0..n)
                    .filter(|&j| candidate(i, j))
                    .map(|j| (row[j], j as u32)),
            );
            smallest(&mut keyed, keep);
            emit(i, &keyed);
        }
    }
}

/// Keeps the `keep` smallest pairs (key, j) of `keyed`, sorted by key, ties
/// by index j (all of them when there are no more).
pub fn smallest(keyed: &mut Vec<(i64, u32)>, keep: usize) {
    if keyed.len() > keep {
        keyed.select_nth_unstable(keep);
        keyed.truncate(keep);
    }
    keyed.sort_unstable();
}
