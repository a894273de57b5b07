//! The full regret construction's table: every pending job's best insertion
//! into every route, priced lazily.
//!
//! Re-pricing the changed route for every pending job after each insertion
//! made the construction O(n² · route length) (0.3 s natively and about 1 s
//! in WASM at 1000 stops × 20 vans, most of it lateness walks on days whose
//! routes are late). An insertion of j into route r changes r's places for
//! other jobs in two ways: the arcs next to j are new (a job near j may now
//! fit there more cheaply), and the rest of r is later and fuller (places
//! there cost more or no longer fit, under a distance objective). So after an
//! insertion only the jobs near j are priced again on r at once; every other
//! cell of r is marked stale, and a stale cell is priced again when the
//! regret order reads it as a job's best or second best. The two cells a
//! job's regret is made of are thus always priced on the routes as they are
//! (and the job popped is inserted where its cell says); a stale cell that is
//! neither is taken as the estimate it was. Under a distance-only objective
//! that estimate is a lower bound for the places away from j; with waiting
//! in the objective it may not be, which the regret order tolerates.

use super::insertion_column::{fits, Column};
use super::model::{FleetProblem, Role};
use super::pairs::Place;
use super::solution::Solution;

/// Near jobs of an inserted job whose cells on its route are priced again at once.
pub const REFRESH_NEIGHBOURS: usize = 40;

pub struct RegretTable {
    nv: usize,
    cells: Vec<Option<Place>>,
    /// The route's version each cell was priced at.
    priced_at: Vec<u32>,
    version: Vec<u32>,
    column: Column,
    /// Per job: a unit still to insert.
    waiting: Vec<bool>,
    /// Per job: the insertion count at which it was last put in a refresh list.
    listed: Vec<u32>,
    /// Per job: the routes of its best and second best cells when the
    /// regret order last read them (usize::MAX: none).
    top: Vec<[usize; 2]>,
    insertions: u32,
    near: Vec<u32>,
}

impl RegretTable {
    /// Every pending job priced on every route.
    pub fn new(p: &FleetProblem, sol: &mut Solution, pending: &[u32]) -> RegretTable {
        let nv = sol.routes.len();
        let mut t = RegretTable {
            nv,
            cells: vec![None; p.n() * nv],
            priced_at: vec![0; p.n() * nv],
            version: vec![0; nv],
            column: Column::default(),
            waiting: vec![false; p.n()],
            listed: vec![0; p.n()],
            top: vec![[usize::MAX; 2]; p.n()],
            insertions: 0,
            near: Vec::new(),
        };
        for &j in pending {
            t.waiting[j as usize] = true;
        }
        for r in 0..nv {
            t.fill(p, sol, r, pending);
        }
        t
    }

    /// Job j's cached best insertion into route r (stale or not).
    pub fn cell(&self, j: usize, r: usize) -> Option<Place> {
        self.cells[j * self.nv + r]
    }

    pub fn stale(&self, j: usize, r: usize) -> bool {
        self.priced_at[j * self.nv + r] != self.version[r]
    }

    /// The routes the regret order read as job j's best and second best.
    pub fn read_top(&mut self, j: usize, best: usize, second: Option<usize>) {
        self.top[j] = [best, second.unwrap_or(usize::MAX)];
    }

    /// Price job j on route r again, on the route as it is.
    pub fn reprice(&mut self, p: &FleetProblem, sol: &mut Solution, j: usize, r: usize) {
        let i = j * self.nv + r;
        self.cells[i] = sol.best_unit_insertion(p, r, j, || false);
        self.priced_at[i] = self.version[r];
    }

    /// After unit j went into route r (which was empty before when `opened`):
    /// r's cells are stale; those of the pending jobs near j and of those
    /// whose best or second best was r (all of them when r was just opened:
    /// its first job changes every place) are priced again now, along the
    /// matrix rows.
    pub fn inserted(
        &mut self,
        p: &FleetProblem,
        sol: &mut Solution,
        r: usize,
        j: usize,
        opened: bool,
        pending: &[u32],
    ) {
        self.waiting[j] = false;
        self.version[r] = self.version[r].wrapping_add(1);
        if opened {
            return self.fill(p, sol, r, pending);
        }
        self.insertions += 1;
        let stamp = self.insertions;
        let mut near = std::mem::take(&mut self.near);
        near.clear();
        let partner = p.partner(j);
        for &a in std::iter::once(&j).chain(partner.as_ref()) {
            for &o in p.neighbours[a].iter().take(REFRESH_NEIGHBOURS) {
                let u = match (p.role[o as usize], p.partner(o as usize)) {
                    (Role::Delivery, Some(pk)) => pk,
                    _ => o as usize,
                };
                if self.waiting[u] && self.listed[u] != stamp {
                    self.listed[u] = stamp;
                    near.push(u as u32);
                }
            }
        }
        for &o in pending {
            if self.top[o as usize].contains(&r) && self.listed[o as usize] != stamp {
                self.listed[o as usize] = stamp;
                near.push(o);
            }
        }
        self.fill(p, sol, r, &near);
        self.near = near;
    }

    /// Route r's best insertion of each of `jobs`.
    fn fill(&mut self, p: &FleetProblem, sol: &mut Solution, r: usize, jobs: &[u32]) {
        let (nv, version) = (self.nv, self.version[r]);
        let (cells, priced_at) = (&mut self.cells, &mut self.priced_at);
        if fits(p, sol, r) {
            self.column.compute(p, sol, r, jobs, |o, place| {
                cells[o * nv + r] = place;
                priced_at[o * nv + r] = version;
            });
        } else {
            for &o in jobs {
                let i = o as usize * nv + r;
                cells[i] = sol.best_unit_insertion(p, r, o as usize, || false);
                priced_at[i] = version;
            }
        }
    }
}
