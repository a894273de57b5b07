//! The descent loop, one for both engines: the single-route search
//! (`search::local_search`, over one route's stops) and the fleet search
//! (`fleet::local_search`, over a plan's jobs). It pops the item queued
//! first from the don't-look queue (`crate::dont_look`), lets the engine try
//! its moves around that item (`Descent::improve_around`, which applies an
//! improving move and wakes the items at the ends of every edge it changed),
//! queues the item again when a move was applied, and stops when the queue is
//! empty (a local optimum) or the time limit passes (the queue is then
//! cleared, so that the next descent starts from its own items).
//!
//! What stays each engine's own is what differs by nature: the moves (one
//! route's 2-opt, Or-opt, swap and Lin–Kernighan step; the fleet's operators
//! between and within routes), the candidates an item is paired with, and how
//! often the clock is read (`Descent::CLOCK_EVERY`).

use crate::deadline::Deadline;
use crate::dont_look::DontLookQueue;

/// What trying the moves around one item came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Around {
    /// A move was applied: the item is queued again (its surroundings changed).
    Improved,
    /// No move around the item improves: it leaves the queue.
    Exhausted,
    /// The time limit passed while trying: the descent stops.
    OutOfTime,
}

/// An engine's moves over a state `S` (a route, a plan).
pub trait Descent<S: ?Sized> {
    /// Queue pops between two reads of the clock (`Deadline::expired`); 0:
    /// the engine reads it itself while it tries an item's moves
    /// (`Deadline::tick`) and answers `Around::OutOfTime`.
    const CLOCK_EVERY: u32;

    /// The engine's don't-look queue.
    fn queue(&mut self) -> &mut DontLookQueue;

    /// Try the moves around `item`, apply an improving one (waking the items
    /// it changes) and say what came of it.
    fn improve_around(&mut self, state: &mut S, item: usize, limit: &Deadline) -> Around;
}

/// Descend until no queued item improves (true) or the time limit passes (false).
pub fn descend<S: ?Sized, D: Descent<S>>(engine: &mut D, state: &mut S, limit: &Deadline) -> bool {
    let mut pops = 0u32;
    while let Some(item) = engine.queue().pop() {
        match engine.improve_around(state, item, limit) {
            Around::Improved => engine.queue().wake(item),
            Around::Exhausted => {}
            Around::OutOfTime => {
                engine.queue().clear();
                return false;
            }
        }
        pops = pops.wrapping_add(1);
        if D::CLOCK_EVERY > 0 && pops % D::CLOCK_EVERY == 0 && limit.expired() {
            engine.queue().clear();
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deadline::Clock;
    use std::cell::Cell;

    /// A toy engine over a list of numbers: an item improves by halving its
    /// number (while it is even) and wakes its right neighbour.
    struct Halving {
        queue: DontLookQueue,
        tried: Vec<usize>,
    }

    impl Descent<Vec<u32>> for Halving {
        const CLOCK_EVERY: u32 = 2;
        fn queue(&mut self) -> &mut DontLookQueue {
            &mut self.queue
        }
        fn improve_around(&mut self, xs: &mut Vec<u32>, item: usize, _: &Deadline) -> Around {
            self.tried.push(item);
            if xs[item] % 2 == 0 && xs[item] > 0 {
                xs[item] /= 2;
                if item + 1 < xs.len() {
                    self.queue.wake(item + 1);
                }
                Around::Improved
            } else {
                Around::Exhausted
            }
        }
    }

    fn halving(items: usize) -> Halving {
        let mut queue = DontLookQueue::new(items);
        for i in 0..items {
            queue.wake(i);
        }
        Halving {
            queue,
            tried: Vec::new(),
        }
    }

    #[test]
    fn an_improved_item_is_tried_again_until_nothing_around_it_improves() {
        let mut xs = vec![4, 3, 2];
        let mut engine = halving(3);
        assert!(descend(&mut engine, &mut xs, &Deadline::none()));
        assert_eq!(xs, vec![1, 3, 1]);
        // 0 (4 -> 2; it wakes 1, queued already), 1, 2 (2 -> 1), 0 again (2 -> 1; it wakes 1 behind 2),
        // 2 again, 1 again, 0 again
        assert_eq!(engine.tried, vec![0, 1, 2, 0, 2, 1, 0]);
        assert!(engine.queue.is_empty());
    }

    struct Jumping(Cell<f64>);
    impl Clock for Jumping {
        fn now_ms(&self) -> f64 {
            let t = self.0.get();
            self.0.set(t + 10.0);
            t
        }
    }

    #[test]
    fn a_passed_time_limit_stops_the_descent_and_clears_its_queue() {
        let clock = Jumping(Cell::new(0.0));
        // every read of the clock is 10 ms later: the 25 ms limit has passed at the third read
        let limit = Deadline::new(&clock, 0.0, 25.0);
        let mut xs = vec![1 << 20; 8];
        let mut engine = halving(8);
        assert!(!descend(&mut engine, &mut xs, &limit));
        assert!(engine.queue.is_empty());
        assert!(xs.iter().any(|&x| x > 1), "stopped before its optimum");
    }

    struct OutOfTimeAtOnce(DontLookQueue);
    impl Descent<()> for OutOfTimeAtOnce {
        const CLOCK_EVERY: u32 = 0;
        fn queue(&mut self) -> &mut DontLookQueue {
            &mut self.0
        }
        fn improve_around(&mut self, _: &mut (), _: usize, _: &Deadline) -> Around {
            Around::OutOfTime
        }
    }

    #[test]
    fn an_engine_that_runs_out_of_time_itself_stops_the_descent() {
        let mut queue = DontLookQueue::new(3);
        queue.wake(2);
        queue.wake(0);
        let mut engine = OutOfTimeAtOnce(queue);
        assert!(!descend(&mut engine, &mut (), &Deadline::none()));
        assert!(engine.0.is_empty());
    }
}
