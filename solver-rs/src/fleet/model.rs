//! The multi-route problem: vehicles × jobs over one travel matrix, validated
//! and turned into the internal form the search reads.
//!
//! Times are integer seconds (or any integer unit: the Solomon bench scales
//! Euclidean distances). Every vehicle leaves its start at its shift start (a
//! fixed departure, so the schedule of a route is unique: service starts as
//! early as the windows allow); it must be back at its end by its shift end.
//! A job has a hard window on the start of its service [`ready`, `due`]
//! (waiting allowed) and an optional soft `deadline` (lateness = start of
//! service - deadline when positive).

use super::arith::saturating_product;
use super::matrix::{cells_of_i64, Cells, Matrices};
use super::place_order;
use std::cell::Cell;

/// Largest fleet.
pub const MAX_VEHICLES: usize = 1024;
/// u64 words of a set of vehicles of any fleet size (`VehicleBits`).
pub const VEHICLE_WORDS: usize = (MAX_VEHICLES + 63) / 64;
/// A set of vehicle (or route) indices on the stack: bit v % 64 of word v / 64.
pub type VehicleBits = [u64; VEHICLE_WORDS];

/// Bit i of a bitset of u64 words.
#[inline(always)]
pub fn has_bit(words: &[u64], i: usize) -> bool {
    words[i / 64] >> (i % 64) & 1 != 0
}

/// Set bit i; false when it was set already.
#[inline(always)]
pub fn set_bit(words: &mut [u64], i: usize) -> bool {
    let (w, b) = (i / 64, 1u64 << (i % 64));
    let fresh = words[i / 64] & b == 0;
    words[w] |= b;
    fresh
}
/// Most demand dimensions.
pub const MAX_DIMS: usize = 8;
/// Largest job priority.
pub const MAX_PRIORITY: i64 = 1_000_000;
/// Most time windows of one job.
pub const MAX_WINDOWS: usize = 16;
/// Largest matrix side: 10,000 stops and a start and an end for each of 1000
/// vehicles fit (the asynchronous API's 10,000 stops × 500 vehicles).
pub const MAX_LOCATIONS: usize = 16384;
/// Nearest jobs kept per job (`FleetProblem::neighbours`): every other job up
/// to this many + 1 jobs (a Solomon day keeps its full lists), this many
/// beyond. The descent pairs a job with its 10 nearest
/// (`FleetSettings::granular`), the ruin walks the list until it has touched
/// a few routes; a full list at 10,000 jobs would be 400 MB.
pub const NEIGHBOURS_KEPT: usize = 100;
/// Travel time of an unreachable arc (input -1) inside the search; a route
/// whose duration reaches it is infeasible.
pub const UNREACHABLE: i64 = 1_000_000_000_000_000;
/// "No limit" for windows and shifts.
pub const NO_LIMIT: i64 = 1_000_000_000_000_000_000;
/// A latest start that no arrival meets (`FleetProblem::latest_start`).
pub const NEVER: i64 = -NO_LIMIT;

/// A job's window list intersected with [ready, due]: each window must
/// have start <= end and start >= 0, the list be in time order and disjoint
/// (a window starts after the previous one ends), at most MAX_WINDOWS.
fn clip_windows(list: &[(i64, i64)], ready: i64, due: i64) -> Result<Vec<(i64, i64)>, FleetError> {
    if list.len() > MAX_WINDOWS {
        return Err(FleetError::BadWindow);
    }
    let mut prev_end: Option<i64> = None;
    let mut kept = Vec::with_capacity(list.len());
    for &(s, e) in list {
        if s < 0 || s > e || e > NO_LIMIT || prev_end.map_or(false, |p| s <= p) {
            return Err(FleetError::BadWindow);
        }
        prev_end = Some(e);
        let (s2, e2) = (s.max(ready), e.min(due));
        if s2 <= e2 {
            kept.push((s2, e2));
        }
    }
    Ok(kept)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VehicleInput {
    /// Matrix index of the start.
    pub start: usize,
    /// Matrix index of the end; None = the route ends after its last service.
    pub end: Option<usize>,
    /// Departure time.
    pub shift_start: i64,
    /// Latest return (None: no limit).
    pub shift_end: Option<i64>,
    /// One value per demand dimension (missing dimensions count as 0).
    pub capacity: Vec<i64>,
    pub max_stops: Option<usize>,
    /// Longest route, departure to return, waiting included (None: no limit).
    pub max_duration: Option<i64>,
    /// Most time spent driving (the travel times of its legs).
    pub max_driving: Option<i64>,
    /// Longest route over `FleetInput::limit_distance` (or the objective's distances).
    pub max_distance: Option<i64>,
    /// Breaks the vehicle takes when it is used (`fleet::breaks`), at most MAX_BREAKS.
    pub breaks: Vec<BreakInput>,
    /// Its own costs, added to the objective's `main` when it is used (none: `VehicleCosts::NONE`).
    pub costs: VehicleCosts,
}

/// A vehicle's own costs in the objective's main unit, charged when its route
/// is used: `fixed` once, `per_duration` per unit of the route's duration
/// (departure to return, waiting included), `per_distance` per unit of its
/// objective distance (`FleetInput::distance`). All >= 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VehicleCosts {
    pub fixed: i64,
    pub per_duration: i64,
    pub per_distance: i64,
}

impl VehicleCosts {
    pub const NONE: VehicleCosts = VehicleCosts {
        fixed: 0,
        per_duration: 0,
        per_distance: 0,
    };
}

/// A secondary objective that evens work across the used routes: each used
/// route adds `stops` × s² + ⌊`duration` × d² / `duration_scale`⌋ to `main`
/// (s its jobs, d its duration). Convex in s and d, so moving work from a
/// long route to a short one pays; per route, so every move is still priced
/// from the routes it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    pub stops: i64,
    pub duration: i64,
    /// >= 1.
    pub duration_scale: i64,
}

impl Balance {
    pub const NONE: Balance = Balance {
        stops: 0,
        duration: 0,
        duration_scale: 1,
    };
}

/// A break: `duration` seconds starting within [start, end].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakInput {
    pub start: i64,
    pub end: i64,
    pub duration: i64,
}

/// Most breaks of one vehicle.
pub const MAX_BREAKS: usize = 16;

/// A break of a vehicle in the internal form: its window, duration, and its
/// index in the vehicle's input list (the vehicle keeps them by window start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Break {
    pub start: i64,
    pub end: i64,
    pub duration: i64,
    pub index: usize,
}

impl Default for VehicleInput {
    fn default() -> VehicleInput {
        VehicleInput {
            start: 0,
            end: None,
            shift_start: 0,
            shift_end: None,
            capacity: Vec::new(),
            max_stops: None,
            max_duration: None,
            max_driving: None,
            max_distance: None,
            breaks: Vec::new(),
            costs: VehicleCosts::NONE,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobInput {
    pub location: usize,
    pub service: i64,
    /// Earliest start of service (waiting allowed).
    pub ready: i64,
    /// Latest start of service (hard).
    pub due: Option<i64>,
    /// Soft deadline on the start of service; may be negative (already past at 0).
    pub deadline: Option<i64>,
    pub demand: Vec<i64>,
    /// Vehicle indices allowed to serve the job (None: all).
    pub allowed: Option<Vec<usize>>,
    /// Time windows on the start of service, [start, end] each, in time
    /// order and disjoint (None: [ready, due] alone). Intersected with
    /// [ready, due]; an empty list (or one that the intersection empties)
    /// means the job can never be served.
    pub windows: Option<Vec<(i64, i64)>>,
    /// 0 to MAX_PRIORITY: when not every job fits, the plan keeps the
    /// largest sum of assigned priorities first, then the most jobs.
    pub priority: i64,
    /// One value per demand dimension loaded at this job and carried to the
    /// route's end (a backhaul, as VROOM's `pickup`); empty: none. Not on a
    /// shipment's job.
    pub pickup: Vec<i64>,
}

impl Default for JobInput {
    fn default() -> JobInput {
        JobInput {
            location: 0,
            service: 0,
            ready: 0,
            due: None,
            deadline: None,
            demand: Vec::new(),
            allowed: None,
            windows: None,
            priority: 0,
            pickup: Vec::new(),
        }
    }
}

/// The objective, compared lexicographically: assigned jobs (most first), total
/// lateness, then `main` = vehicle_cost × vehicles used + duration_weight ×
/// total duration + distance_weight × total distance, plus each used
/// vehicle's own `VehicleCosts` and the `balance` term of each used route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Objective {
    pub vehicle_cost: i64,
    pub duration_weight: i64,
    pub distance_weight: i64,
    pub balance: Balance,
}

impl Objective {
    /// The service's (as SERVICE_OBJECTIVE in src/solver/fleet-types.ts):
    /// vehicles used, then total duration, then driving time. A vehicle costs
    /// 2^40, more than any day's weighted duration; a second of duration
    /// weighs 1024 of driving, so driving only breaks near-ties (without it a
    /// route waiting for a ready time may zigzag at no cost).
    pub const SERVICE: Objective = Objective {
        vehicle_cost: 1 << 40,
        duration_weight: 1024,
        distance_weight: 1,
        balance: Balance::NONE,
    };
    /// Total distance only.
    pub const DISTANCE: Objective = Objective {
        vehicle_cost: 0,
        duration_weight: 0,
        distance_weight: 1,
        balance: Balance::NONE,
    };
}

/// The Rust API's form of a problem (tests, benches, the CLI). The matrices
/// become i32 cells in `FleetProblem::new` (values above i32::MAX: BadMatrix);
/// the WebAssembly entry builds its cells in place instead
/// (`FleetProblem::with_matrices`, `flat::problem_in_place`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetInput {
    /// Matrix side.
    pub locations: usize,
    /// Travel times, locations², row-major; -1 = unreachable.
    pub travel: Vec<i64>,
    /// Distances for the objective (None: the travel times).
    pub distance: Option<Vec<i64>>,
    pub vehicles: Vec<VehicleInput>,
    pub jobs: Vec<JobInput>,
    pub objective: Objective,
    /// The distances the vehicles' `max_distance` bounds, locations² (None:
    /// the objective's); -1 = unreachable.
    pub limit_distance: Option<Vec<i64>>,
    /// Pickup-and-delivery pairs (pickup job, delivery job): same vehicle,
    /// pickup first; the pickup job's `demand` is loaded there and the
    /// delivery job's (the same vector) unloaded there. Each job in at most one pair.
    pub shipments: Vec<(usize, usize)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FleetError {
    NoVehicles,
    TooManyVehicles,
    NoJobs,
    /// Matrix side 0, above MAX_LOCATIONS, a matrix of the wrong length, or
    /// a value above i32::MAX.
    BadMatrix,
    /// A travel time or distance below -1.
    NegativeValue,
    /// A location index outside the matrix.
    BadLocation,
    /// Negative service, demand or capacity.
    NegativeQuantity,
    /// ready > due, or shift end before shift start.
    BadWindow,
    /// An allowed-vehicle index outside the fleet.
    BadVehicleIndex,
    /// Objective weights or vehicle costs negative, or a balance scale below 1.
    BadObjective,
    /// More than MAX_DIMS demand dimensions.
    TooManyDimensions,
    /// A shipment pair naming a job outside the list, the same job twice, a
    /// job of another pair, ends with different demands, or a backhaul
    /// `pickup` on one of its jobs.
    BadShipment,
}

/// A job's part in a shipment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Plain,
    Pickup,
    Delivery,
}

#[derive(Clone, Debug)]
pub struct Job {
    pub loc: usize,
    pub service: i64,
    /// Earliest start of service: the first window's start.
    pub ready: i64,
    /// Latest start of service: the last window's end (-1 below `ready`
    /// when the job has no window left: it can never be served).
    pub due: i64,
    /// Its windows in `FleetProblem::windows[win_at..win_at + win_len]`
    /// when it has two or more (otherwise [ready, due] is its window).
    pub win_at: u32,
    pub win_len: u32,
    pub priority: i64,
    /// The soft deadline the search prices (NO_LIMIT when none); a deadline
    /// before 0 counts from 0: a route leaves at 0 at the earliest, so that
    /// stop's lateness changes by a constant and the best plan is the same.
    pub deadline: i64,
    /// The deadline as given (may be negative), for the reported times.
    pub given_deadline: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct Vehicle {
    pub start: usize,
    /// The virtual location (zero travel) when the route is open.
    pub end: usize,
    pub shift_start: i64,
    /// The latest return: the shift's end or, when earlier, the shift start plus the longest duration.
    pub shift_end: i64,
    /// The shift's end as given (the reasons tell a shift from a route limit).
    pub given_shift_end: i64,
    pub max_stops: usize,
    pub max_duration: i64,
    pub max_driving: i64,
    pub max_distance: i64,
    /// By window start, then window end (empty: the fast path, no break logic).
    pub breaks: Vec<Break>,
    pub costs: VehicleCosts,
}

/// Validated problem in the internal form.
#[derive(Clone, Debug)]
pub struct FleetProblem {
    /// Matrix side including the virtual location (the last one).
    pub nloc: usize,
    /// The given matrices (side nloc - 1; the virtual location reads 0).
    travel: Cells,
    /// The objective's distances (None: `travel`).
    dist: Option<Cells>,
    /// The distances of `max_distance` (None: the objective's).
    limit_dist: Option<Cells>,
    /// Some vehicle has a max_driving / max_distance: routes keep their sums.
    pub driving_limited: bool,
    pub distance_limited: bool,
    pub jobs: Vec<Job>,
    pub vehicles: Vec<Vehicle>,
    /// Demand dimensions.
    pub dims: usize,
    /// demand[j * dims + d]
    pub demand: Vec<i64>,
    /// capacity[v * dims + d]
    pub capacity: Vec<i64>,
    pub has_deadlines: bool,
    /// The windows of the jobs that have two or more (`Job::win_at`).
    pub windows: Vec<(i64, i64)>,
    /// Some job has two or more windows: the search prices schedules
    /// exactly (`fleet::windows`), the segments only bound them.
    pub multi_windows: bool,
    /// Some job has a priority above 0.
    pub has_priorities: bool,
    /// The jobs' windows are not all the same: the recreate also orders the
    /// removed jobs by their window (`ruin::sort_for_insertion`).
    pub windows_differ: bool,
    /// Some vehicle has breaks: its routes are priced by `fleet::breaks`.
    pub has_breaks: bool,
    /// u64 words per job in `allowed` (ceil(vehicles / 64)).
    pub allowed_words: usize,
    /// allowed[j * allowed_words ..][..allowed_words]: job j's vehicles as a
    /// bitset (`allows`); empty when every job may go to every vehicle, so
    /// that an unrestricted problem tests nothing.
    pub allowed: Vec<u64>,
    pub objective: Objective,
    /// Some vehicle has costs or the objective a balance term: `route_main`
    /// adds them (otherwise its arithmetic is the plain weighted sum).
    pub priced: bool,
    /// Some vehicle has a per-duration cost or the balance weighs durations.
    pub timed_costs: bool,
    /// Per job: its NEIGHBOURS_KEPT nearest other jobs (all of them when there
    /// are no more) by increasing travel(i, j) + travel(j, i), ties by index.
    pub neighbours: Vec<Vec<u32>>,
    /// The largest difference between the two ways of an arc between two jobs
    /// (travel), read with the neighbour lists (`fleet::correlated` needs it).
    pub asymmetry: i64,
    /// Per job: its part in a shipment and the other end (NO_PAIR when plain).
    pub role: Vec<Role>,
    pub pair: Vec<u32>,
    pub has_pairs: bool,
    /// The load varies along a route (shipments or backhaul pickups): routes
    /// keep load segments (`load::LoadSeg`) and capacity holds at every point;
    /// otherwise the load only falls and the departure's total is the peak.
    pub profile: bool,
    /// Per job and dimension: what it unloads from the departure's load
    /// (`unload`), and what it loads (`load`; negative: a shipment's delivery).
    pub unload: Vec<i64>,
    pub load: Vec<i64>,
    /// The price of a unit of time warp (a window broken by that much), in
    /// hundredths of the objective's main unit, while the annealing searches
    /// through late schedules (`fleet::soft_windows`); 0, the windows hard,
    /// everywhere else. A search state kept here because every route's cost
    /// (`RouteEval::cost`) reads it.
    warp_price: Cell<i64>,
}

/// Per job: its `keep` nearest other jobs by travel(i, j) + travel(j, i)
/// (saturating: unreachable arcs last); and the largest |travel(i, j) −
/// travel(j, i)| over the pairs of jobs, from the same reads.
fn nearest_jobs(p: &FleetProblem, keep: usize) -> (Vec<Vec<u32>>, i64) {
    let most = Cell::new(0i64);
    let lists = nearest_jobs_by(p, keep, |_, _, there, back| {
        most.set(most.get().max((there - back).abs()));
        there.saturating_add(back)
    });
    (lists, most.get())
}

/// Per job: its `keep` nearest other jobs by `key(i, j, travel(i, j),
/// travel(j, i))`, ties by index; all of them when there are no more than
/// keep + 1 jobs (`crate::nearest::select`: O(n²) key reads by blocks of
/// rows, O(n · keep) memory).
pub fn nearest_jobs_by<K>(p: &FleetProblem, keep: usize, key: K) -> Vec<Vec<u32>>
where
    K: Fn(usize, usize, i64, i64) -> i64,
{
    let n = p.jobs.len();
    let mut out: Vec<Vec<u32>> = Vec::with_capacity(n);
    crate::nearest::select(
        n,
        keep,
        |i, j| p.t(p.jobs[i].loc, p.jobs[j].loc),
        key,
        |i, j| i != j,
        |_, list| out.push(list.iter().map(|&(_, j)| j).collect()),
    );
    out
}

/// `FleetProblem::pair` of a plain job.
pub const NO_PAIR: u32 = u32::MAX;

impl FleetProblem {
    pub fn new(inp: &FleetInput) -> Result<FleetProblem, FleetError> {
        let m = inp.locations;
        let sized = |v: &Vec<i64>| v.len() == m * m;
        if m == 0
            || m > MAX_LOCATIONS
            || !sized(&inp.travel)
            || !inp.distance.iter().chain(&inp.limit_distance).all(sized)
        {
            return Err(FleetError::BadMatrix);
        }
        let cells = |v: &Vec<i64>| cells_of_i64(m, v).ok_or(FleetError::BadMatrix);
        let matrices = Matrices {
            travel: cells(&inp.travel)?,
            distance: inp.distance.as_ref().map(cells).transpose()?,
            limit_distance: inp.limit_distance.as_ref().map(cells).transpose()?,
        };
        FleetProblem::with_matrices(inp, matrices)
    }

    /// The problem of `inp` over these matrices (`inp`'s own are not read):
    /// the cells are kept as they are, none copied unless a diagonal is not 0.
    pub fn with_matrices(inp: &FleetInput, mats: Matrices) -> Result<FleetProblem, FleetError> {
        if inp.vehicles.is_empty() {
            return Err(FleetError::NoVehicles);
        }
        if inp.vehicles.len() > MAX_VEHICLES {
            return Err(FleetError::TooManyVehicles);
        }
        if inp.jobs.is_empty() {
            return Err(FleetError::NoJobs);
        }
        let m = inp.locations;
        if m == 0
            || m > MAX_LOCATIONS
            || [
                Some(&mats.travel),
                mats.distance.as_ref(),
                mats.limit_distance.as_ref(),
            ]
            .iter()
            .flatten()
            .any(|c| c.side() != m)
        {
            return Err(FleetError::BadMatrix);
        }
        let o = inp.objective;
        let b = o.balance;
        if o.vehicle_cost < 0
            || o.duration_weight < 0
            || o.distance_weight < 0
            || b.stops < 0
            || b.duration < 0
            || b.duration_scale < 1
        {
            return Err(FleetError::BadObjective);
        }
        let costs_ok =
            |c: &VehicleCosts| c.fixed >= 0 && c.per_duration >= 0 && c.per_distance >= 0;
        if !inp.vehicles.iter().all(|v| costs_ok(&v.costs)) {
            return Err(FleetError::BadObjective);
        }
        let given = [
            Some(&mats.travel),
            mats.distance.as_ref(),
            mats.limit_distance.as_ref(),
        ];
        if given
            .iter()
            .flatten()
            .any(|c| c.as_slice().iter().any(|&x| x < -1))
        {
            return Err(FleetError::NegativeValue);
        }
        let dims = inp
            .vehicles
            .iter()
            .map(|v| v.capacity.len())
            .chain(inp.jobs.iter().map(|j| j.demand.len()))
            .chain(inp.jobs.iter().map(|j| j.pickup.len()))
            .max()
            .unwrap_or(0);
        if dims > MAX_DIMS {
            return Err(FleetError::TooManyDimensions);
        }
        let nloc = m + 1;
        let virt = m;
        let travel = mats.travel.with_zero_diagonal();
        let dist = mats.distance.map(Cells::with_zero_diagonal);
        let limit_dist = mats.limit_distance.map(Cells::with_zero_diagonal);
        let nv = inp.vehicles.len();
        let allowed_words = (nv + 63) / 64;
        let restricted = inp.jobs.iter().any(|j| j.allowed.is_some());
        let mut allowed = if restricted {
            vec![0u64; inp.jobs.len() * allowed_words]
        } else {
            Vec::new()
        };
        let mut vehicles = Vec::with_capacity(nv);
        let mut capacity = vec![0i64; nv * dims];
        for (v, vi) in inp.vehicles.iter().enumerate() {
            if vi.start >= m || vi.end.map_or(false, |e| e >= m) {
                return Err(FleetError::BadLocation);
            }
            let shift_end = vi.shift_end.unwrap_or(NO_LIMIT);
            if shift_end < vi.shift_start || vi.shift_start < 0 || vi.shift_start >= NO_LIMIT {
                return Err(FleetError::BadWindow);
            }
            let limits = [vi.max_duration, vi.max_driving, vi.max_distance];
            if vi.capacity.iter().any(|&c| c < 0) || limits.iter().flatten().any(|&x| x < 0) {
                return Err(FleetError::NegativeQuantity);
            }
            for d in 0..dims {
                capacity[v * dims + d] = vi.capacity.get(d).copied().unwrap_or(0);
            }
            if vi.breaks.len() > MAX_BREAKS {
                return Err(FleetError::BadWindow);
            }
            let mut breaks = Vec::with_capacity(vi.breaks.len());
            for (index, b) in vi.breaks.iter().enumerate() {
                if b.start < 0 || b.start > b.end || b.end > NO_LIMIT {
                    return Err(FleetError::BadWindow);
                }
                if b.duration < 0 || b.duration > NO_LIMIT {
                    return Err(FleetError::NegativeQuantity);
                }
                breaks.push(Break {
                    start: b.start,
                    end: b.end,
                    duration: b.duration,
                    index,
                });
            }
            breaks.sort_by_key(|b| (b.start, b.end, b.index));
            vehicles.push(Vehicle {
                breaks,
                costs: vi.costs,
                start: vi.start,
                end: vi.end.unwrap_or(virt),
                shift_start: vi.shift_start,
                shift_end: vi.max_duration.map_or(shift_end, |d| {
                    shift_end.min(vi.shift_start.saturating_add(d))
                }),
                given_shift_end: shift_end,
                max_stops: vi.max_stops.unwrap_or(usize::MAX),
                max_duration: vi.max_duration.unwrap_or(NO_LIMIT),
                max_driving: vi.max_driving.unwrap_or(NO_LIMIT),
                max_distance: vi.max_distance.unwrap_or(NO_LIMIT),
            });
        }
        let mut jobs = Vec::with_capacity(inp.jobs.len());
        let mut demand = vec![0i64; inp.jobs.len() * dims];
        let mut has_deadlines = false;
        let mut windows: Vec<(i64, i64)> = Vec::new();
        for (j, ji) in inp.jobs.iter().enumerate() {
            if ji.location >= m {
                return Err(FleetError::BadLocation);
            }
            if ji.service < 0 || ji.demand.iter().chain(&ji.pickup).any(|&q| q < 0) {
                return Err(FleetError::NegativeQuantity);
            }
            let due = ji.due.unwrap_or(NO_LIMIT);
            if ji.ready < 0 || ji.ready > due || due > NO_LIMIT {
                return Err(FleetError::BadWindow);
            }
            if ji.priority < 0 || ji.priority > MAX_PRIORITY {
                return Err(FleetError::NegativeQuantity);
            }
            for d in 0..dims {
                demand[j * dims + d] = ji.demand.get(d).copied().unwrap_or(0);
            }
            if restricted {
                let row = &mut allowed[j * allowed_words..(j + 1) * allowed_words];
                match &ji.allowed {
                    None => (0..nv).for_each(|v| {
                        set_bit(row, v);
                    }),
                    Some(list) => {
                        for &v in list {
                            if v >= nv {
                                return Err(FleetError::BadVehicleIndex);
                            }
                            set_bit(row, v);
                        }
                    }
                }
            }
            if ji.deadline.is_some() {
                has_deadlines = true;
            }
            let (mut ready, mut due, mut win_at, mut win_len) = (ji.ready, due, 0u32, 0u32);
            if let Some(list) = &ji.windows {
                let kept = clip_windows(list, ji.ready, due)?;
                match kept.len() {
                    0 => {
                        // never: no start of service fits
                        ready = 0;
                        due = -1;
                    }
                    1 => {
                        ready = kept[0].0;
                        due = kept[0].1;
                    }
                    k => {
                        ready = kept[0].0;
                        due = kept[k - 1].1;
                        win_at = windows.len() as u32;
                        win_len = k as u32;
                        windows.extend_from_slice(&kept);
                    }
                }
            }
            jobs.push(Job {
                loc: ji.location,
                service: ji.service,
                ready,
                due,
                win_at,
                win_len,
                priority: ji.priority,
                deadline: ji.deadline.map_or(NO_LIMIT, |d| d.max(0)),
                given_deadline: ji.deadline,
            });
        }
        let nj = inp.jobs.len();
        let mut role = vec![Role::Plain; nj];
        let mut pair = vec![NO_PAIR; nj];
        for &(a, b) in &inp.shipments {
            if a >= nj || b >= nj || a == b || pair[a] != NO_PAIR || pair[b] != NO_PAIR {
                return Err(FleetError::BadShipment);
            }
            let (ja, jb) = (&inp.jobs[a], &inp.jobs[b]);
            if demand[a * dims..(a + 1) * dims] != demand[b * dims..(b + 1) * dims]
                || ja.pickup.iter().chain(&jb.pickup).any(|&q| q != 0)
            {
                return Err(FleetError::BadShipment);
            }
            role[a] = Role::Pickup;
            role[b] = Role::Delivery;
            pair[a] = b as u32;
            pair[b] = a as u32;
        }
        let mut unload = vec![0i64; nj * dims];
        let mut load = vec![0i64; nj * dims];
        for (j, ji) in inp.jobs.iter().enumerate() {
            for d in 0..dims {
                let q = demand[j * dims + d];
                match role[j] {
                    Role::Plain => {
                        unload[j * dims + d] = q;
                        load[j * dims + d] = ji.pickup.get(d).copied().unwrap_or(0);
                    }
                    Role::Pickup => load[j * dims + d] = q,
                    Role::Delivery => load[j * dims + d] = -q,
                }
            }
        }
        let has_pairs = !inp.shipments.is_empty();
        let windows_differ = jobs
            .windows(2)
            .any(|w| (w[0].ready, w[0].due) != (w[1].ready, w[1].due));
        let profile = has_pairs || inp.jobs.iter().any(|j| j.pickup.iter().any(|&q| q > 0));
        let mut p = FleetProblem {
            role,
            pair,
            has_pairs,
            profile,
            unload,
            load,
            nloc,
            travel,
            dist,
            limit_dist,
            driving_limited: inp.vehicles.iter().any(|v| v.max_driving.is_some()),
            distance_limited: inp.vehicles.iter().any(|v| v.max_distance.is_some()),
            jobs,
            vehicles,
            dims,
            demand,
            capacity,
            has_deadlines,
            has_priorities: inp.jobs.iter().any(|j| j.priority != 0),
            windows_differ,
            has_breaks: inp.vehicles.iter().any(|v| !v.breaks.is_empty()),
            multi_windows: !windows.is_empty(),
            windows,
            allowed_words,
            allowed,
            objective: o,
            priced: b != Balance::NONE
                || inp.vehicles.iter().any(|v| v.costs != VehicleCosts::NONE),
            timed_costs: b.duration > 0 || inp.vehicles.iter().any(|v| v.costs.per_duration > 0),
            neighbours: Vec::new(),
            asymmetry: 0,
            warp_price: Cell::new(0),
        };
        (p.neighbours, p.asymmetry) = nearest_jobs(&p, NEIGHBOURS_KEPT);
        p.renumber_places();
        Ok(p)
    }

    /// Places numbered along the jobs' neighbour lists (`place_order`): the
    /// matrices permuted in place and every location index renamed with them.
    fn renumber_places(&mut self) {
        let side = self.nloc - 1;
        let virt = side;
        let vehicle_locs: Vec<usize> = self
            .vehicles
            .iter()
            .flat_map(|v| [v.start, v.end])
            .filter(|&l| l != virt)
            .collect();
        let job_loc: Vec<usize> = self.jobs.iter().map(|j| j.loc).collect();
        let new_of_old = place_order::walk_order(side, &vehicle_locs, &job_loc, &self.neighbours);
        for cells in [
            Some(&mut self.travel),
            self.dist.as_mut(),
            self.limit_dist.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            cells.renumber(&new_of_old);
        }
        let renamed = |l: usize| {
            if l == virt {
                virt
            } else {
                new_of_old[l] as usize
            }
        };
        for j in &mut self.jobs {
            j.loc = renamed(j.loc);
        }
        for v in &mut self.vehicles {
            v.start = renamed(v.start);
            v.end = renamed(v.end);
        }
    }

    /// The price of a unit of time warp in hundredths of the main unit (0: the windows are hard).
    #[inline(always)]
    pub fn warp_price(&self) -> i64 {
        self.warp_price.get()
    }

    /// Windows may be broken at a price (`fleet::soft_windows`): a route's
    /// time warp is priced instead of ruling it out.
    #[inline(always)]
    pub fn windows_soft(&self) -> bool {
        self.warp_price.get() > 0
    }

    /// Set by the annealing (`fleet::soft_windows`) and by tests (0: hard windows again).
    pub fn set_warp_price(&self, hundredths: i64) {
        self.warp_price.set(hundredths.max(0));
    }

    /// The main-unit cost of `warp` units of time warp at the current price.
    #[inline(always)]
    pub fn warp_cost(&self, warp: i64) -> i64 {
        // (most routes have none, and hard windows price none: no product, no division)
        if warp == 0 {
            return 0;
        }
        saturating_product(warp, self.warp_price.get()) / 100
    }

    /// Vehicle v has breaks (its routes leave the O(1) segment pricing).
    #[inline(always)]
    pub fn breaks_of(&self, v: usize) -> bool {
        self.has_breaks && !self.vehicles[v].breaks.is_empty()
    }

    pub fn n(&self) -> usize {
        self.jobs.len()
    }

    /// Some job may not go to every vehicle (`allowed` is filled).
    #[inline(always)]
    pub fn restricted(&self) -> bool {
        !self.allowed.is_empty()
    }

    /// Job j's allowed vehicles as a bitset (None: all; only when unrestricted).
    #[inline(always)]
    pub fn allowed_row(&self, j: usize) -> Option<&[u64]> {
        if self.allowed.is_empty() {
            None
        } else {
            let w = self.allowed_words;
            Some(&self.allowed[j * w..(j + 1) * w])
        }
    }

    /// Vehicle v may serve job j.
    #[inline(always)]
    pub fn allows(&self, j: usize, v: usize) -> bool {
        self.allowed.is_empty() || has_bit(&self.allowed[j * self.allowed_words..], v)
    }

    /// Start of service of job j for a vehicle arriving at `arrival`: the
    /// earliest time, no earlier than the arrival, inside one of its windows
    /// (waiting for the next window when it arrives between two); past its
    /// last window, the arrival itself (then start > due: infeasible).
    #[inline(always)]
    pub fn start_at(&self, j: usize, arrival: i64) -> i64 {
        let job = &self.jobs[j];
        if job.win_len == 0 {
            return arrival.max(job.ready);
        }
        let at = job.win_at as usize;
        for &(s, e) in &self.windows[at..at + job.win_len as usize] {
            if arrival <= e {
                return arrival.max(s);
            }
        }
        arrival
    }

    /// The latest start of service of job j no later than `bound` that lies
    /// inside one of its windows; `NEVER` when none does.
    #[inline(always)]
    pub fn latest_start(&self, j: usize, bound: i64) -> i64 {
        let job = &self.jobs[j];
        if job.win_len == 0 {
            return if bound >= job.ready && job.ready <= job.due {
                bound.min(job.due)
            } else {
                NEVER
            };
        }
        let at = job.win_at as usize;
        for &(s, e) in self.windows[at..at + job.win_len as usize].iter().rev() {
            if s <= bound {
                return bound.min(e);
            }
        }
        NEVER
    }

    /// Job j's windows: [ready, due] alone, or its list (empty when it can never be served).
    pub fn job_windows(&self, j: usize) -> Vec<(i64, i64)> {
        let job = &self.jobs[j];
        if job.win_len > 0 {
            let at = job.win_at as usize;
            self.windows[at..at + job.win_len as usize].to_vec()
        } else if job.ready <= job.due {
            vec![(job.ready, job.due)]
        } else {
            Vec::new()
        }
    }

    /// What leaving job j out costs (`FleetCost::unassigned`): priority ×
    /// (jobs + 1) + 1, so that the sum compares first the priorities left
    /// out, then the number of jobs (with every priority 0: the count).
    #[inline(always)]
    pub fn miss_weight(&self, j: usize) -> i64 {
        self.jobs[j].priority * (self.jobs.len() as i64 + 1) + 1
    }

    /// The travel cells as given (side nloc - 1).
    pub fn travel_cells(&self) -> &[i32] {
        self.travel.as_slice()
    }

    /// Travel time between locations (internal numbering).
    #[inline(always)]
    pub fn t(&self, a: usize, b: usize) -> i64 {
        self.travel.at(a, b)
    }

    /// Distance between locations.
    #[inline(always)]
    pub fn d(&self, a: usize, b: usize) -> i64 {
        match &self.dist {
            None => self.t(a, b),
            Some(c) => c.at(a, b),
        }
    }

    /// Distance between locations as the vehicles' max_distance counts it.
    #[inline(always)]
    pub fn ld(&self, a: usize, b: usize) -> i64 {
        match &self.limit_dist {
            None => self.d(a, b),
            Some(c) => c.at(a, b),
        }
    }

    /// The other end of job j's shipment, if any.
    #[inline(always)]
    pub fn partner(&self, j: usize) -> Option<usize> {
        let o = self.pair[j];
        if o == NO_PAIR {
            None
        } else {
            Some(o as usize)
        }
    }

    /// The jobs inserted and removed together with job j: [j], or its shipment [pickup, delivery].
    pub fn unit(&self, j: usize) -> Vec<u32> {
        match (self.role[j], self.partner(j)) {
            (Role::Pickup, Some(d)) => vec![j as u32, d as u32],
            (Role::Delivery, Some(pk)) => vec![pk as u32, j as u32],
            _ => vec![j as u32],
        }
    }

    #[inline(always)]
    pub fn job_demand(&self, j: usize) -> &[i64] {
        &self.demand[j * self.dims..(j + 1) * self.dims]
    }

    #[inline(always)]
    pub fn vehicle_capacity(&self, v: usize) -> &[i64] {
        &self.capacity[v * self.dims..(v + 1) * self.dims]
    }

    /// Cost contribution of vehicle v's route with these totals (`count` jobs; 0: unused).
    #[inline(always)]
    pub fn route_main(&self, v: usize, count: usize, duration: i64, distance: i64) -> i64 {
        if count == 0 {
            return 0;
        }
        let o = &self.objective;
        // saturating: a weighted unreachable arc (1e18) must stay the worst cost, never wrap
        let main = o
            .vehicle_cost
            .saturating_add(saturating_product(o.duration_weight, duration))
            .saturating_add(saturating_product(o.distance_weight, distance));
        if !self.priced {
            return main;
        }
        main.saturating_add(self.priced_main(v, count, duration, distance))
    }

    /// Vehicle v's own costs and the balance term of a used route, saturated
    /// to i64. Every term is >= 0 (costs, weights, durations, distances), so
    /// i64 saturating sums are the exact sum capped at i64::MAX; only the
    /// square of a duration needs i128. (All in i128, with its division even
    /// for no balance, this was a quarter of the search on a costed day.)
    #[inline(never)]
    fn priced_main(&self, v: usize, count: usize, duration: i64, distance: i64) -> i64 {
        let c = &self.vehicles[v].costs;
        let b = &self.objective.balance;
        let mut sum = c
            .fixed
            .saturating_add(saturating_product(c.per_duration, duration))
            .saturating_add(saturating_product(c.per_distance, distance));
        if b.stops != 0 {
            let s = count as i64;
            sum = sum.saturating_add(saturating_product(b.stops, saturating_product(s, s)));
        }
        if b.duration != 0 {
            let d = duration as i128;
            let square = (b.duration as i128).saturating_mul(d * d) / b.duration_scale as i128;
            sum = sum.saturating_add(square.min(i64::MAX as i128) as i64);
        }
        debug_assert_eq!(sum, self.priced_main_wide(v, count, duration, distance));
        sum
    }

    /// `priced_main` all in i128 (debug builds check the two agree).
    fn priced_main_wide(&self, v: usize, count: usize, duration: i64, distance: i64) -> i64 {
        let c = &self.vehicles[v].costs;
        let b = &self.objective.balance;
        let (s, d) = (count as i128, duration as i128);
        let sum = (c.fixed as i128)
            .saturating_add((c.per_duration as i128).saturating_mul(d))
            .saturating_add((c.per_distance as i128).saturating_mul(distance as i128))
            .saturating_add((b.stops as i128).saturating_mul(s * s))
            .saturating_add(
                (b.duration as i128).saturating_mul(d.saturating_mul(d)) / b.duration_scale as i128,
            );
        sum.min(i64::MAX as i128) as i64
    }

    /// `main` depends on the routes' distances and job counts only (no
    /// weight on duration anywhere): a move's distance change prices it.
    #[inline(always)]
    /// The objective's distances are the travel times (no distance matrix of their own).
    pub fn distance_is_travel(&self) -> bool {
        self.dist.is_none()
    }

    pub fn duration_free(&self) -> bool {
        self.objective.duration_weight == 0 && !self.timed_costs
    }

    /// Some vehicle has a fixed cost (as the objective's vehicle_cost, it makes using fewer vehicles pay).
    pub fn vehicles_cost(&self) -> bool {
        self.objective.vehicle_cost > 0 || self.vehicles.iter().any(|v| v.costs.fixed > 0)
    }
}
