//! The times of a visit, reported to the host: arrival, wait, start of
//! service, departure and lateness of every stop, in integer seconds after
//! the departure. The one place the service's time arithmetic lives: the host
//! (src/schedule) only turns these offsets into instants and formats them.
//! Single routes are timed here (`route_times`); fleet routes by
//! `fleet::solution::times_of` through the same `StopTimes::visit`.

use crate::problem::Input;

/// The times of one stop, seconds after the departure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StopTimes {
    pub arrival: i64,
    /// Start of service − arrival (waiting for the stop's earliest start).
    pub wait: i64,
    pub start: i64,
    /// End of service: the next leg starts then.
    pub departure: i64,
    /// Start of service past the deadline, 0 when on time or without one.
    pub lateness: i64,
}

impl StopTimes {
    /// Arrive at `arrival`, start no earlier than `ready`, serve for
    /// `service`; late by what the start of service exceeds `deadline`.
    pub fn visit(arrival: i64, ready: i64, service: i64, deadline: Option<i64>) -> StopTimes {
        let start = arrival.max(ready);
        StopTimes {
            arrival,
            wait: start - arrival,
            start,
            departure: start + service,
            lateness: deadline.map_or(0, |d| (start - d).max(0)),
        }
    }

    /// The ABI's `STOP_FIELDS` entries (crate::abi).
    pub fn write(&self, out: &mut [f64]) {
        let v = [
            self.arrival,
            self.wait,
            self.start,
            self.departure,
            self.lateness,
        ];
        for (slot, x) in out.iter_mut().zip(v.iter()) {
            *slot = *x as f64;
        }
    }
}

/// The times of a single route.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RouteTimes {
    /// In visiting order.
    pub stops: Vec<StopTimes>,
    /// Arrival at the end point, or the end of the last service when open (= the duration).
    pub end: i64,
    /// Sum of the stops' lateness.
    pub lateness: i64,
}

/// Times of the stops of a single route visited in `order` (0-based stop
/// indices), over `inp`'s external numbering [start, stops…, end?]; the
/// route leaves the start at 0 and never waits. `deadlines` are the stops'
/// true deadlines (they may be negative: already past at departure), not the
/// search's clamped ones.
pub fn route_times(inp: &Input, deadlines: &[Option<i64>], order: &[u32]) -> RouteTimes {
    let m = inp.size;
    let travel = |a: usize, b: usize| inp.durations[a * m + b] as i64;
    let mut times = RouteTimes {
        stops: Vec::with_capacity(order.len()),
        ..RouteTimes::default()
    };
    let (mut at, mut t) = (0usize, 0i64);
    for &s in order {
        let s = s as usize;
        let node = s + 1;
        let stop = StopTimes::visit(t + travel(at, node), 0, inp.service[s] as i64, deadlines[s]);
        times.lateness += stop.lateness;
        t = stop.departure;
        at = node;
        times.stops.push(stop);
    }
    times.end = if inp.has_end {
        t + travel(at, m - 1)
    } else {
        t
    };
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrival_wait_start_departure_lateness() {
        assert_eq!(
            StopTimes::visit(100, 160, 30, Some(150)),
            StopTimes {
                arrival: 100,
                wait: 60,
                start: 160,
                departure: 190,
                lateness: 10
            }
        );
        assert_eq!(StopTimes::visit(100, 0, 0, Some(100)).lateness, 0);
        assert_eq!(StopTimes::visit(100, 0, 0, Some(-50)).lateness, 150);
        assert_eq!(StopTimes::visit(100, 0, 0, None).lateness, 0);
    }

    #[test]
    fn a_route_with_an_end_and_a_past_deadline() {
        // start, stops 0 and 1, end
        let durations = [0, 10, 20, 5, 10, 0, 7, 3, 20, 7, 0, 4, 5, 3, 4, 0];
        let inp = Input {
            size: 4,
            durations: &durations,
            service: &[60, 30],
            deadline: &[-1, -1],
            has_end: true,
        };
        let t = route_times(&inp, &[Some(-10), Some(100)], &[1, 0]);
        assert_eq!(t.stops[0], StopTimes::visit(20, 0, 30, Some(100)));
        assert_eq!(t.stops[1], StopTimes::visit(57, 0, 60, Some(-10)));
        assert_eq!(t.lateness, 67);
        assert_eq!(t.end, 117 + 3);
        let open = Input {
            has_end: false,
            size: 3,
            durations: &[0, 10, 20, 10, 0, 7, 20, 7, 0],
            ..inp
        };
        assert_eq!(
            route_times(&open, &[None, None], &[0, 1]).end,
            10 + 60 + 7 + 30
        );
    }
}
