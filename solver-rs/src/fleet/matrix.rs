//! The matrices of a fleet problem: one square i32 matrix per kind (travel
//! times, the objective's distances, the distances `max_distance` counts), -1
//! for an unreachable arc, read through `Cells::at` as i64 with the
//! `UNREACHABLE` sentinel. The WebAssembly entry hands the host's own block
//! over (`Cells::host`: read in place, never freed here, the host frees it),
//! since at 10,000 places one matrix is 400 MB and a copy (or the i64 form,
//! twice that) does not fit. The problem's virtual place (the end of an open
//! route, index `side`) is 0 from and to everything, without a row of its own.

use super::model::UNREACHABLE;
use std::mem::ManuallyDrop;

/// A square matrix of i32 cells, row-major: ours, or the host's.
pub struct Cells {
    side: usize,
    cells: ManuallyDrop<Vec<i32>>,
    /// Dropped with these cells (false: the host's block, which it frees).
    owned: bool,
}

impl Cells {
    /// Cells of length side², ours.
    pub fn owned(side: usize, cells: Vec<i32>) -> Cells {
        assert_eq!(cells.len(), side * side, "matrix length");
        Cells {
            side,
            cells: ManuallyDrop::new(cells),
            owned: true,
        }
    }

    /// The host's block of side² cells (`ffi::solve_fleet`), read in place
    /// and never freed here: the host deallocates it after the call.
    pub fn host(side: usize, cells: Vec<i32>) -> Cells {
        assert_eq!(cells.len(), side * side, "matrix length");
        Cells {
            side,
            cells: ManuallyDrop::new(cells),
            owned: false,
        }
    }

    pub fn side(&self) -> usize {
        self.side
    }

    /// All cells, row-major.
    pub fn as_slice(&self) -> &[i32] {
        &self.cells
    }

    /// The cell (a, b) as the search reads it: -1 → UNREACHABLE; 0 when a or
    /// b is the virtual place (index side).
    #[inline(always)]
    pub fn at(&self, a: usize, b: usize) -> i64 {
        if a >= self.side || b >= self.side {
            return 0;
        }
        let x = self.cells[a * self.side + b];
        if x < 0 {
            UNREACHABLE
        } else {
            x as i64
        }
    }

    /// Renumbers the places in place: the cell (a, b) moves to
    /// (new_of_old[a], new_of_old[b]) (`place_order`).
    pub fn renumber(&mut self, new_of_old: &[u32]) {
        super::place_order::permute_square(&mut self.cells, self.side, new_of_old);
    }

    /// These cells with a zero diagonal: the same buffer when it has one
    /// already, else an owned copy (the search reads a place to itself as 0).
    pub fn with_zero_diagonal(self) -> Cells {
        let m = self.side;
        if (0..m).all(|i| self.cells[i * m + i] == 0) {
            return self;
        }
        let mut copy = self.cells.to_vec();
        for i in 0..m {
            copy[i * m + i] = 0;
        }
        Cells::owned(m, copy)
    }
}

impl Drop for Cells {
    fn drop(&mut self) {
        if self.owned {
            drop(std::mem::take(&mut *self.cells));
        }
    }
}

/// A copy, ours.
impl Clone for Cells {
    fn clone(&self) -> Cells {
        Cells::owned(self.side, self.cells.to_vec())
    }
}

impl std::fmt::Debug for Cells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Cells({}×{}, {})",
            self.side,
            self.side,
            if self.owned { "owned" } else { "the host's" }
        )
    }
}

/// The three matrices of a problem, before validation.
#[derive(Clone, Debug)]
pub struct Matrices {
    pub travel: Cells,
    /// None: the travel times.
    pub distance: Option<Cells>,
    /// None: the objective's distances.
    pub limit_distance: Option<Cells>,
}

/// An i64 matrix of the Rust API as i32 cells; None when a value does not fit.
pub fn cells_of_i64(side: usize, values: &[i64]) -> Option<Cells> {
    let cells: Option<Vec<i32>> = values
        .iter()
        .map(|&x| {
            if x > i32::MAX as i64 {
                None
            } else {
                Some(x.max(-2) as i32)
            }
        })
        .collect();
    cells.map(|c| Cells::owned(side, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_unreachable_and_virtual_place() {
        let c = Cells::owned(2, vec![0, -1, 7, 0]);
        assert_eq!(c.at(0, 1), UNREACHABLE);
        assert_eq!(c.at(1, 0), 7);
        assert_eq!(c.at(2, 0), 0);
        assert_eq!(c.at(1, 2), 0);
    }

    #[test]
    fn zero_diagonal_copies_only_when_needed() {
        let buf = vec![0, 3, 4, 0];
        let at = buf.as_ptr();
        let c = Cells::owned(2, buf).with_zero_diagonal();
        assert_eq!(c.as_slice().as_ptr(), at);
        let d = Cells::owned(2, vec![5, 3, 4, 6]).with_zero_diagonal();
        assert_eq!(d.as_slice(), &[0, 3, 4, 0]);
    }

    #[test]
    fn i64_values_beyond_i32_are_refused() {
        assert!(cells_of_i64(1, &[i32::MAX as i64 + 1]).is_none());
        assert_eq!(cells_of_i64(1, &[-5]).unwrap().as_slice(), &[-2]);
    }
}
