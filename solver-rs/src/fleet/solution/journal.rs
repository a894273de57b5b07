//! Undo for a ruin-and-recreate iteration made in place: between
//! `journal_begin` and `journal_commit` / `journal_undo`, the first change
//! of a route (`set_route`, `insert`, `remove_jobs`) saves a copy of it
//! (jobs and caches, into buffers kept from one iteration to the next), so
//! that a rejected iteration costs O(routes it touched) instead of a clone of
//! the whole solution per iteration.

use super::{Route, Solution, NONE};
use crate::fleet::model::FleetProblem;

/// The saved routes of the running iteration.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    active: bool,
    /// saved_at[r]: route r is saved (in `saved[touched.iter().position(r)]`).
    saved_at: Vec<bool>,
    /// The routes saved, in order; `saved[i]` holds route `touched[i]` as it was.
    touched: Vec<usize>,
    /// Copies (only the first `touched.len()` are in use; the rest keep their buffers).
    saved: Vec<Route>,
    unassigned: usize,
    missing: i64,
}

/// Scratch space: a cloned solution starts with an idle, empty journal.
impl Clone for Journal {
    fn clone(&self) -> Journal {
        Journal::default()
    }
}

impl Solution {
    /// Start recording: every route changed from here on is saved first.
    pub fn journal_begin(&mut self) {
        debug_assert!(!self.journal.active && self.journal.touched.is_empty());
        let j = &mut self.journal;
        j.active = true;
        j.saved_at.resize(self.routes.len(), false);
        j.unassigned = self.unassigned;
        j.missing = self.missing;
    }

    /// Keep the changes since `journal_begin`.
    pub fn journal_commit(&mut self) {
        let j = &mut self.journal;
        for &r in &j.touched {
            j.saved_at[r] = false;
        }
        j.touched.clear();
        j.active = false;
    }

    /// Put the solution back exactly as it was at `journal_begin`: the saved
    /// routes, their jobs' positions, the unassigned count (a job that was
    /// unassigned then and is in a changed route now is unassigned again;
    /// every route a job left or joined was changed, hence saved).
    #[cfg_attr(not(debug_assertions), allow(unused_variables))]
    pub fn journal_undo(&mut self, p: &FleetProblem) {
        let mut j = std::mem::take(&mut self.journal);
        for &r in &j.touched {
            for &job in &self.routes[r].jobs {
                self.route_of[job as usize] = NONE;
                self.pos_of[job as usize] = NONE;
            }
        }
        for (i, &r) in j.touched.iter().enumerate() {
            std::mem::swap(&mut self.routes[r], &mut j.saved[i]);
            for (k, &job) in self.routes[r].jobs.iter().enumerate() {
                self.route_of[job as usize] = r as u32;
                self.pos_of[job as usize] = k as u32;
            }
            j.saved_at[r] = false;
        }
        j.touched.clear();
        j.active = false;
        self.unassigned = j.unassigned;
        self.missing = j.missing;
        self.journal = j;
        debug_assert_eq!(self.check(p), Ok(()));
    }

    /// Called before route r changes: save it if the journal runs and it is not saved yet.
    #[inline]
    pub(super) fn journal_save(&mut self, r: usize) {
        if !self.journal.active || self.journal.saved_at[r] {
            return;
        }
        let j = &mut self.journal;
        j.saved_at[r] = true;
        let i = j.touched.len();
        j.touched.push(r);
        if j.saved.len() <= i {
            j.saved.push(self.routes[r].clone());
        } else {
            copy_route(&self.routes[r], &mut j.saved[i]);
        }
    }
}

/// `*to = from.clone()` in `to`'s buffers (no allocation once they are large
/// enough). Every field is named, so a new field of `Route` must be added here.
fn copy_route(from: &Route, to: &mut Route) {
    let Route {
        vehicle,
        jobs,
        locs,
        fwd,
        bwd,
        bwd_end,
        lfwd,
        lbwd,
        dfwd,
        dbwd,
        wait_fwd,
        wait_bwd,
        drev,
        load,
        allowed_bwd,
        starts,
        late_pre,
        slack_bwd,
        arc_in,
        brk_next,
        latest,
        drive_pre,
        ldist_pre,
        drive_total,
        ldist_total,
        service_total,
        time_feasible,
        eval,
    } = from;
    to.vehicle = *vehicle;
    to.jobs.clone_from(jobs);
    to.locs.clone_from(locs);
    to.fwd.clone_from(fwd);
    to.bwd.clone_from(bwd);
    to.bwd_end.clone_from(bwd_end);
    to.lfwd.clone_from(lfwd);
    to.lbwd.clone_from(lbwd);
    to.dfwd.clone_from(dfwd);
    to.dbwd.clone_from(dbwd);
    to.wait_fwd.clone_from(wait_fwd);
    to.wait_bwd.clone_from(wait_bwd);
    to.drev.clone_from(drev);
    to.load.clone_from(load);
    to.allowed_bwd.clone_from(allowed_bwd);
    to.starts.clone_from(starts);
    to.late_pre.clone_from(late_pre);
    to.slack_bwd.clone_from(slack_bwd);
    to.arc_in.clone_from(arc_in);
    to.brk_next.clone_from(brk_next);
    to.latest.clone_from(latest);
    to.drive_pre.clone_from(drive_pre);
    to.ldist_pre.clone_from(ldist_pre);
    to.drive_total = *drive_total;
    to.ldist_total = *ldist_total;
    to.service_total = *service_total;
    to.time_feasible = *time_feasible;
    to.eval = *eval;
}
