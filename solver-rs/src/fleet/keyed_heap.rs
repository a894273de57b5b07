//! A max-heap of items 0..n, one key each, whose key is changed or removed in
//! place. The regret construction's queue: a heap of stamped entries, one
//! pushed per pricing and the stale ones skipped on pop, grew to every
//! pricing made (10 % of the construction's time at 1000 stops went to its
//! pops); here it holds one entry per waiting job.

const ABSENT: u32 = u32::MAX;

pub struct KeyedHeap<K> {
    /// Items in heap order.
    heap: Vec<u32>,
    /// Per item: its index in `heap` (ABSENT: not queued).
    at: Vec<u32>,
    keys: Vec<K>,
}

impl<K: Ord + Copy> KeyedHeap<K> {
    /// An empty heap of items 0..n (`fill`: the unused keys' value).
    pub fn new(n: usize, fill: K) -> KeyedHeap<K> {
        KeyedHeap {
            heap: Vec::new(),
            at: vec![ABSENT; n],
            keys: vec![fill; n],
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        self.at[i] != ABSENT
    }

    /// Queue item i with this key, or change its key.
    pub fn set(&mut self, i: usize, key: K) {
        self.keys[i] = key;
        let h = if self.contains(i) {
            self.at[i] as usize
        } else {
            self.heap.push(i as u32);
            self.heap.len() - 1
        };
        self.at[i] = h as u32;
        let h = self.up(h);
        self.down(h);
    }

    /// Take item i out of the queue (nothing when it is not queued).
    pub fn remove(&mut self, i: usize) {
        if !self.contains(i) {
            return;
        }
        let h = self.at[i] as usize;
        self.at[i] = ABSENT;
        let last = self.heap.pop().expect("queued");
        if h < self.heap.len() {
            self.heap[h] = last;
            self.at[last as usize] = h as u32;
            let h = self.up(h);
            self.down(h);
        }
    }

    /// The item of the largest key, and its key, taken out.
    pub fn pop(&mut self) -> Option<(usize, K)> {
        let top = *self.heap.first()? as usize;
        self.remove(top);
        Some((top, self.keys[top]))
    }

    fn above(&self, a: usize, b: usize) -> bool {
        self.keys[self.heap[a] as usize] > self.keys[self.heap[b] as usize]
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.at[self.heap[a] as usize] = a as u32;
        self.at[self.heap[b] as usize] = b as u32;
    }

    fn up(&mut self, mut h: usize) -> usize {
        while h > 0 && self.above(h, (h - 1) / 2) {
            self.swap(h, (h - 1) / 2);
            h = (h - 1) / 2;
        }
        h
    }

    fn down(&mut self, mut h: usize) {
        loop {
            let (l, r) = (2 * h + 1, 2 * h + 2);
            let mut top = h;
            if l < self.heap.len() && self.above(l, top) {
                top = l;
            }
            if r < self.heap.len() && self.above(r, top) {
                top = r;
            }
            if top == h {
                return;
            }
            self.swap(h, top);
            h = top;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeyedHeap;
    use crate::rng::Rng;

    #[test]
    fn pops_the_largest_current_key_after_changes_and_removals() {
        let mut rng = Rng::new(7);
        for round in 0..50 {
            let n = 1 + round % 40;
            let mut heap = KeyedHeap::new(n, 0u64);
            let mut model: Vec<Option<u64>> = vec![None; n];
            for _ in 0..200 {
                let i = rng.range(0, n - 1);
                match rng.range(0, 3) {
                    0 => {
                        heap.remove(i);
                        model[i] = None;
                    }
                    1 => {
                        let want = model
                            .iter()
                            .enumerate()
                            .filter_map(|(j, k)| k.map(|k| (k, j)))
                            .max();
                        let got = heap.pop().map(|(j, k)| (k, j));
                        match (want, got) {
                            (Some((wk, _)), Some((gk, gj))) => {
                                assert_eq!(wk, gk);
                                assert_eq!(model[gj], Some(gk));
                                model[gj] = None;
                            }
                            (w, g) => assert_eq!(w.map(|x| x.0), g.map(|x| x.0)),
                        }
                    }
                    _ => {
                        let k = rng.range(0, 29) as u64;
                        heap.set(i, k);
                        model[i] = Some(k);
                    }
                }
                for (j, k) in model.iter().enumerate() {
                    assert_eq!(heap.contains(j), k.is_some());
                }
            }
        }
    }
}
