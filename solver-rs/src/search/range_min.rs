//! Sparse table for O(1) range-minimum queries over a fixed array.

#[derive(Clone, Debug, Default)]
pub struct RangeMin {
    /// levels[k][i] = min of keys[i .. i + 2^k]
    levels: Vec<Vec<i64>>,
}

impl RangeMin {
    pub fn build(&mut self, keys: &[i64]) {
        let len = keys.len();
        let mut level_count = 1;
        while (1usize << level_count) <= len {
            level_count += 1;
        }
        self.levels.resize(level_count, Vec::new());
        self.levels[0].clear();
        self.levels[0].extend_from_slice(keys);
        for k in 1..level_count {
            let half = 1usize << (k - 1);
            let (lower, upper) = self.levels.split_at_mut(k);
            let previous = &lower[k - 1];
            let current = &mut upper[0];
            current.clear();
            if len >= (1 << k) {
                for i in 0..=(len - (1 << k)) {
                    current.push(previous[i].min(previous[i + half]));
                }
            }
        }
    }

    /// Minimum of keys[from..=to].
    #[inline(always)]
    pub fn query(&self, from: usize, to: usize) -> i64 {
        let span = to - from + 1;
        let k = (usize::BITS - 1 - span.leading_zeros()) as usize;
        let level = &self.levels[k];
        level[from].min(level[to + 1 - (1 << k)])
    }
}
