//! A rearranged route as a list of segments of the current route.
//!
//! Every move and kick is written as the concatenation of position ranges of
//! the current route, each read forward or reversed. The first segment always
//! starts at position 0 (the start, read forward) and the last one ends at
//! position n+1 (the end, read forward).

/// Positions `from..=to` of the current route, read backwards when `reversed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub from: usize,
    pub to: usize,
    pub reversed: bool,
}

impl Segment {
    /// Number of positions (never 0).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.to - self.from + 1
    }

    /// Position read first.
    pub fn first(&self) -> usize {
        if self.reversed {
            self.to
        } else {
            self.from
        }
    }

    /// Position read last.
    pub fn last(&self) -> usize {
        if self.reversed {
            self.from
        } else {
            self.to
        }
    }

    pub fn contains(&self, position: usize) -> bool {
        self.from <= position && position <= self.to
    }
}

#[inline(always)]
pub fn forward(from: usize, to: usize) -> Segment {
    Segment {
        from,
        to,
        reversed: false,
    }
}

#[inline(always)]
pub fn reversed(from: usize, to: usize) -> Segment {
    Segment {
        from,
        to,
        reversed: true,
    }
}

/// The route that `segments` make of `route`.
pub fn materialize_into(route: &[usize], segments: &[Segment], out: &mut Vec<usize>) {
    out.clear();
    for s in segments {
        if s.reversed {
            out.extend(route[s.from..=s.to].iter().rev());
        } else {
            out.extend_from_slice(&route[s.from..=s.to]);
        }
    }
}

/// A move with at most `CAPACITY` segments, kept inline (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct SegmentList {
    items: [Segment; SegmentList::CAPACITY],
    len: usize,
}

impl SegmentList {
    pub const CAPACITY: usize = 5;

    pub fn from_slice(segments: &[Segment]) -> SegmentList {
        debug_assert!(segments.len() <= Self::CAPACITY);
        let mut items = [forward(0, 0); Self::CAPACITY];
        items[..segments.len()].copy_from_slice(segments);
        SegmentList {
            items,
            len: segments.len(),
        }
    }

    pub fn as_slice(&self) -> &[Segment] {
        &self.items[..self.len]
    }
}
