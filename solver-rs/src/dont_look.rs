//! Don't-look bits, shared by both engines' descents (`search::local_search`
//! over one route's stops, `fleet::local_search` over a plan's jobs): the
//! items whose surroundings changed since they were last looked at, first in
//! first out, each queued at most once. A descent pops an item, tries its
//! moves, and wakes the items at the ends of every edge a move changes; it
//! ends when the queue is empty.

use std::collections::VecDeque;

pub struct DontLookQueue {
    queue: VecDeque<u32>,
    queued: Vec<bool>,
}

impl DontLookQueue {
    /// A queue over the items 0..items, none queued.
    pub fn new(items: usize) -> DontLookQueue {
        DontLookQueue {
            queue: VecDeque::with_capacity(items),
            queued: vec![false; items],
        }
    }

    /// Queue `item` at the back unless it is already queued.
    #[inline]
    pub fn wake(&mut self, item: usize) {
        if !self.queued[item] {
            self.queued[item] = true;
            self.queue.push_back(item as u32);
        }
    }

    /// The item queued first, now no longer queued.
    #[inline]
    pub fn pop(&mut self) -> Option<usize> {
        let item = self.queue.pop_front()? as usize;
        self.queued[item] = false;
        Some(item)
    }

    /// Forget every queued item (a descent stopped by its time limit).
    pub fn clear(&mut self) {
        for &item in &self.queue {
            self.queued[item as usize] = false;
        }
        self.queue.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_out_in_the_order_they_were_first_woken_and_once_each() {
        let mut q = DontLookQueue::new(6);
        for item in [4, 1, 4, 3, 1] {
            q.wake(item);
        }
        assert_eq!(q.pop(), Some(4));
        // popped, so it may be queued again, behind the others
        q.wake(4);
        q.wake(3);
        let rest: Vec<usize> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(rest, vec![1, 3, 4]);
        assert!(q.is_empty());
    }

    #[test]
    fn a_cleared_queue_takes_every_item_again() {
        let mut q = DontLookQueue::new(4);
        q.wake(2);
        q.wake(0);
        q.clear();
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        q.wake(0);
        q.wake(2);
        assert_eq!(q.pop(), Some(0));
        assert_eq!(q.pop(), Some(2));
    }
}
