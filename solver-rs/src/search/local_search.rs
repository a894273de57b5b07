//! Descent to a local optimum with don't-look bits, in the loop both engines
//! share (`crate::descent`): a queue of stops whose surroundings changed; a
//! stop leaves the queue when no operator improves around it, and the ends of
//! every edge a move changes are queued again.
//!
//! Around each stop the deadline-aware set runs first: 2-opt, Or-opt and swap
//! towards each candidate neighbour, the segment swap, and (while the route is
//! late) the late-stop repair. When none improves, the route is on time and
//! the problem has no deadlines, the Lin–Kernighan step runs. (Cheap moves
//! first measured better than Lin–Kernighan first: docs/solver.md.)

use super::neighbours::Neighbours;
use super::operators::lin_kernighan::LinKernighan;
use super::operators::{late_relocate, or_opt, segment_swap, swap, two_opt, Move, Operator};
use super::route::RouteState;
use super::segment::Segment;
use super::Options;
use crate::deadline::Deadline;
use crate::descent::{descend, Around, Descent};
use crate::dont_look::DontLookQueue;
use crate::problem::{Cost, Problem};
use crate::progress::Progress;

pub struct LocalSearch {
    neighbours: Neighbours,
    /// Stops only: the start (0) and the end (n + 1) are never queued.
    queue: DontLookQueue,
    /// Stops are the nodes 1..=n.
    n: usize,
    lin_kernighan: Option<LinKernighan>,
    classic_first: bool,
    segment_swap: bool,
    move_buffer: Vec<Segment>,
    /// The operator counters (the driver fills in the rest).
    pub progress: Progress,
}

impl Descent<RouteState<'_>> for LocalSearch {
    /// Check the time limit (`Deadline::expired`, a clock read) every this many
    /// queue pops. A pop (every operator around one stop, Lin–Kernighan among
    /// them) costs far more than the fleet's strided unit (`Deadline::tick`).
    const CLOCK_EVERY: u32 = 16;

    fn queue(&mut self) -> &mut DontLookQueue {
        &mut self.queue
    }

    /// The operators around stop `a`; the first improving move is applied.
    fn improve_around(&mut self, state: &mut RouteState<'_>, a: usize, _: &Deadline) -> Around {
        let improved = if state.cost().lateness == 0 && self.lin_kernighan.is_some() {
            self.improve_on_time(state, a)
        } else {
            self.improve_classic(state, a)
        };
        if improved {
            Around::Improved
        } else {
            Around::Exhausted
        }
    }
}

impl LocalSearch {
    pub fn new(p: &Problem, options: &Options) -> LocalSearch {
        LocalSearch {
            neighbours: Neighbours::build(
                p,
                options.neighbours,
                if p.has_deadlines {
                    options.deadline_candidates
                } else {
                    options.candidates
                },
            ),
            queue: DontLookQueue::new(p.n + 2),
            n: p.n,
            lin_kernighan: if p.has_deadlines && !options.lin_kernighan_with_deadlines {
                None
            } else {
                options.lin_kernighan.clone().map(LinKernighan::new)
            },
            classic_first: options.classic_before_lin_kernighan,
            segment_swap: options.segment_swap,
            move_buffer: Vec::new(),
            progress: Progress::default(),
        }
    }

    /// The first descent searches wider (see `LinKernighanSettings`).
    pub fn set_initial_descent(&mut self, initial: bool) {
        if let Some(lk) = self.lin_kernighan.as_mut() {
            lk.set_initial(initial);
        }
    }

    pub fn neighbours(&self) -> &Neighbours {
        &self.neighbours
    }

    /// Queue a node (only stops are queued).
    pub fn wake(&mut self, node: usize) {
        if node >= 1 && node <= self.n {
            self.queue.wake(node);
        }
    }

    pub fn wake_all(&mut self) {
        for node in 1..=self.n {
            self.wake(node);
        }
    }

    /// Queue the nodes at both ends of every segment of a move about to be
    /// applied: they are the ends of every changed edge.
    pub fn wake_segment_ends(&mut self, state: &RouteState, segments: &[Segment]) {
        for s in segments {
            self.wake(state.node_at(s.from));
            self.wake(state.node_at(s.to));
        }
    }

    /// Improve until no queued stop improves, or the time limit (`crate::descent`).
    pub fn run(&mut self, state: &mut RouteState, limit: &Deadline) {
        descend(self, state, limit);
    }

    fn apply(&mut self, state: &mut RouteState, op: Operator, segments: &[Segment], cost: Cost) {
        self.wake_segment_ends(state, segments);
        state.apply(segments, cost);
        self.progress.counter(op).applied += 1;
    }

    fn apply_move(&mut self, state: &mut RouteState, op: Operator, m: Move) {
        self.apply(state, op, m.segments.as_slice(), m.cost);
    }

    /// The route is on time: (the deadline-aware set, then) Lin–Kernighan.
    fn improve_on_time(&mut self, state: &mut RouteState, a: usize) -> bool {
        if self.classic_first && self.improve_classic(state, a) {
            return true;
        }
        if let Some(lk) = self.lin_kernighan.as_mut() {
            let counter = self.progress.counter(Operator::LinKernighan);
            if let Some((segments, cost)) = lk.evaluate(state, &self.neighbours, counter, a) {
                self.move_buffer.clear();
                self.move_buffer.extend_from_slice(segments);
                let segments = std::mem::take(&mut self.move_buffer);
                self.apply(state, Operator::LinKernighan, &segments, cost);
                self.move_buffer = segments;
                return true;
            }
        }
        // (after the deadline-aware set, the segment swap has already failed here)
        if self.segment_swap && !self.classic_first {
            let counter = self.progress.counter(Operator::SegmentSwap);
            if let Some(m) = segment_swap::evaluate(state, &self.neighbours, counter, a) {
                self.apply_move(state, Operator::SegmentSwap, m);
                return true;
            }
        }
        false
    }

    /// The deadline-aware operator set (also used without Lin–Kernighan).
    fn improve_classic(&mut self, state: &mut RouteState, a: usize) -> bool {
        let late_mode = state.cost().lateness > 0;
        let found = self.towards_neighbours(state, a, late_mode, |state, progress, pa, pc| {
            if let Some(m) = two_opt::evaluate(state, progress.counter(Operator::TwoOpt), pa, pc) {
                return Some((Operator::TwoOpt, m));
            }
            if let Some(m) = or_opt::evaluate(state, progress.counter(Operator::OrOpt), pa, pc) {
                return Some((Operator::OrOpt, m));
            }
            swap::evaluate(state, progress.counter(Operator::Swap), pa, pc)
                .map(|m| (Operator::Swap, m))
        });
        if let Some((op, m)) = found {
            self.apply_move(state, op, m);
            return true;
        }
        if self.segment_swap {
            let counter = self.progress.counter(Operator::SegmentSwap);
            if let Some(m) = segment_swap::evaluate(state, &self.neighbours, counter, a) {
                self.apply_move(state, Operator::SegmentSwap, m);
                return true;
            }
        }
        if late_mode {
            let counter = self.progress.counter(Operator::LateRelocate);
            if let Some(m) = late_relocate::evaluate(state, counter, a) {
                self.apply_move(state, Operator::LateRelocate, m);
                return true;
            }
        }
        false
    }

    /// Calls `try_pair(pa, pc)` for the candidate neighbours c of `a`, nearest
    /// first, while the gain bound holds: a new edge at `a` must be shorter
    /// than the longer of the two edges at `a` (waived for a late stop while
    /// the route is late: there, lateness not length is what improves).
    fn towards_neighbours<F>(
        &mut self,
        state: &RouteState,
        a: usize,
        late_mode: bool,
        mut try_pair: F,
    ) -> Option<(Operator, Move)>
    where
        F: FnMut(&RouteState, &mut Progress, usize, usize) -> Option<(Operator, Move)>,
    {
        let p = state.problem();
        let pa = state.position_of(a);
        let unbounded = late_mode && state.is_late(a);
        let longest_at_a = p
            .d(state.node_at(pa - 1), a)
            .max(p.d(a, state.node_at(pa + 1)));
        for candidate in self.neighbours.of(a) {
            if candidate.key >= longest_at_a && !unbounded {
                if self.neighbours.sorted_by_key() {
                    break;
                }
                continue;
            }
            let pc = state.position_of(candidate.node);
            if let Some(found) = try_pair(state, &mut self.progress, pa, pc) {
                return Some(found);
            }
        }
        None
    }
}
