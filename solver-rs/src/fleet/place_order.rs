//! Places numbered so that near places have near numbers. The search reads
//! the matrices at (a stop, one of its nearest stops) far more than anywhere
//! else; in the caller's numbering (random on most big days) those cells lie
//! on a different cache line and often a different page each. Numbered along
//! a walk of the jobs' neighbour lists, a stop's nearest places mostly share a
//! few lines of its row. The matrices are permuted in place once (no second
//! copy: at 10,000 places one is 400 MB), and every location index of the
//! problem is renamed with them; jobs keep their indices, so every decision of
//! the search, which reads matrix values and job indices only, is the same.

/// How many of each job's nearest jobs the walk follows.
const WALK_NEIGHBOURS: usize = 8;

/// The new number of each place (`new_of_old`): the places of vehicles first
/// (in vehicle order), then each job's place in the order a breadth-first
/// walk over the jobs' first `WALK_NEIGHBOURS` neighbours meets it (a new
/// walk from the lowest unmet job when one runs out), then any place no one
/// uses, in index order. `side`: the number of places; `job_loc[j]`: job j's
/// place; `neighbours[j]`: its nearest jobs, nearest first.
pub fn walk_order(
    side: usize,
    vehicle_locs: &[usize],
    job_loc: &[usize],
    neighbours: &[Vec<u32>],
) -> Vec<u32> {
    const UNSET: u32 = u32::MAX;
    let mut new_of_old = vec![UNSET; side];
    let mut next = 0u32;
    let mut number = |place: usize, new_of_old: &mut Vec<u32>| {
        if new_of_old[place] == UNSET {
            new_of_old[place] = next;
            next += 1;
        }
    };
    for &place in vehicle_locs {
        number(place, &mut new_of_old);
    }
    let n = job_loc.len();
    let mut met = vec![false; n];
    let mut queue: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    for root in 0..n {
        if met[root] {
            continue;
        }
        met[root] = true;
        queue.push_back(root);
        while let Some(j) = queue.pop_front() {
            number(job_loc[j], &mut new_of_old);
            for &k in neighbours[j].iter().take(WALK_NEIGHBOURS) {
                let k = k as usize;
                if !met[k] {
                    met[k] = true;
                    queue.push_back(k);
                }
            }
        }
    }
    for place in 0..side {
        number(place, &mut new_of_old);
    }
    new_of_old
}

/// Permutes a row-major side × side matrix in place: the cell (a, b) moves
/// to (new_of_old[a], new_of_old[b]). One row of scratch.
pub fn permute_square(cells: &mut [i32], side: usize, new_of_old: &[u32]) {
    debug_assert_eq!(cells.len(), side * side);
    let mut old_of_new = vec![0u32; side];
    for (old, &new) in new_of_old.iter().enumerate() {
        old_of_new[new as usize] = old as u32;
    }
    let mut row = vec![0i32; side];
    for r in 0..side {
        let cells_r = &mut cells[r * side..(r + 1) * side];
        for (new, &old) in old_of_new.iter().enumerate() {
            row[new] = cells_r[old as usize];
        }
        cells_r.copy_from_slice(&row);
    }
    // rows along the permutation's cycles: row `old` goes to row new_of_old[old]
    let mut moved = vec![false; side];
    for start in 0..side {
        if moved[start] {
            continue;
        }
        row.copy_from_slice(&cells[start * side..(start + 1) * side]);
        let mut at = start;
        loop {
            moved[at] = true;
            let from = old_of_new[at] as usize;
            if from == start {
                cells[at * side..(at + 1) * side].copy_from_slice(&row);
                break;
            }
            cells.copy_within(from * side..(from + 1) * side, at * side);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permuting_moves_each_cell_with_its_two_places() {
        let side = 5;
        let cells: Vec<i32> = (0..25).collect();
        let new_of_old = [3u32, 0, 4, 1, 2];
        let mut permuted = cells.clone();
        permute_square(&mut permuted, side, &new_of_old);
        for a in 0..side {
            for b in 0..side {
                let moved = permuted[new_of_old[a] as usize * side + new_of_old[b] as usize];
                assert_eq!(moved, cells[a * side + b]);
            }
        }
    }

    #[test]
    fn the_walk_numbers_vehicles_then_jobs_by_neighbourhood_then_the_rest() {
        // places 0..6; a depot at 5; jobs at 4, 1, 3, 2; place 0 unused
        let job_loc = [4, 1, 3, 2];
        let neighbours = vec![vec![2, 1, 3], vec![3, 0, 2], vec![0, 3, 1], vec![1, 2, 0]];
        let order = walk_order(6, &[5, 5], &job_loc, &neighbours);
        // 5 first; job 0 (place 4), its neighbours 2 (place 3), 1 (1), 3 (2); then 0
        assert_eq!(order, vec![5, 3, 4, 2, 1, 0]);
    }
}
