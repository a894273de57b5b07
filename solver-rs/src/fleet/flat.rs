//! The flat form of a fleet problem and of its answer: the arrays that cross
//! the WebAssembly boundary (`ffi::solve_fleet`, ABI 3) and the native CLI
//! (`bin/fleet.rs`). Safe code, shared by both so that they decode and
//! encode identically.
//!
//! Integer quantities travel as f64 (exact up to 2^53, no BigInt in the
//! host); they must be integers. -1 means "none" where a field is optional.
//!
//! Input:
//!   travel     i32[m*m] row-major travel times, -1 = unreachable
//!   distance   i32[m*m] or absent (= travel), for the objective
//!   vehicles   f64[VEHICLE_FIELDS * nv]: start, end (-1 open), shift start,
//!              shift end (-1 none), max stops (-1 none)
//!   jobs       f64[JOB_FIELDS * nj]: location, service, ready, due (-1 none),
//!              deadline (abi::NO_DEADLINE none; any other integer, negative
//!              = already past at 0)
//!   capacity   f64[nv * dims], demand f64[nj * dims] (absent when dims = 0)
//!   allowed    u32[nj * abi::allowed_words(nv)] or absent (all): per job
//!              a bitset of its allowed vehicles, vehicle v = bit v % 32 of
//!              the row's word v / 32 (ABI 4; ABI 3 had two words per job,
//!              a 64-bit mask)
//!   objective  vehicle cost, duration weight, distance weight
//!   extra      f64 sections [tag, length, values] or absent (abi::extra):
//!              WINDOWS: per job a count c (-1 none, 0 never), then c
//!              (start, end) pairs; VEHICLE_LIMITS: per vehicle max duration,
//!              max driving, max distance (-1 none); LIMIT_DISTANCE: the m²
//!              distances max distance counts (-1 unreachable); PRIORITY:
//!              per job its priority (0 to fleet::model::MAX_PRIORITY);
//!              SHIPMENTS: (pickup job, delivery job) per pickup-and-delivery
//!              pair; PICKUP: nj × dims backhaul amounts (JobInput::pickup);
//!              BREAKS: per vehicle a count c, then c (window start, window
//!              end, duration) triples (fleet::breaks); VEHICLE_COSTS: per
//!              vehicle fixed, per duration, per distance (VehicleCosts);
//!              BALANCE: per stop², per duration², duration scale (Balance)
//!
//! Output, f64[out_len(nv, nj)]:
//!   [0] unassigned jobs  [1] total lateness  [2] main cost  [3] iterations
//!   [4] iteration of the returned solution  [5] vehicles used
//!   [6] total duration   [7] total distance
//!   then per vehicle v (ROUTE_FIELDS each): jobs, duration, distance, lateness
//!   then the routes' job indices, vehicle after vehicle
//!   then the routes' service start times, in the same order
//!   then (job, reason code) per unassigned job (reasons::Reason as a number)
//!   (ABI 3 ends here; ABI 4 goes on:)
//!   then per vehicle v (FLEET_VEHICLE_TIMES each): departure (its shift
//!   start), return (arrival at its end, or the end of its last service when
//!   open; the departure when unused)
//!   then STOP_FIELDS per routed job, in the order of the job indices above:
//!   arrival, wait, start of service, departure, lateness (schedule::StopTimes)
//!   then BREAK_FIELDS per break (vehicle after vehicle, in the order given):
//!   its start (-1 when the vehicle is unused), the route's jobs before it,
//!   the arrival at what follows it (the next job, or the end point)
//! Lateness (the head's total, each route's, each stop's) is against the
//! deadlines as given; the search counts a deadline before 0 from 0
//! (model::Job::deadline), which changes no decision.

use super::driver::FleetSolution;
use super::matrix::{Cells, Matrices};
use super::model::{Balance, BreakInput, VehicleCosts, MAX_BREAKS, MAX_WINDOWS};
use super::model::{FleetError, FleetInput, FleetProblem, JobInput, Objective, VehicleInput};
use super::solution::times_of;
use crate::abi::{
    allowed_words, extra, fleet_out_len, fleet_out_len_abi3, ALLOWED_WORD_BITS, BREAK_FIELDS,
    FLEET_VEHICLE_TIMES, NO_DEADLINE, STOP_FIELDS,
};

use crate::abi::{FLEET_OUT_HEAD as OUT_HEAD, FLEET_ROUTE_FIELDS as ROUTE_FIELDS};
pub use crate::abi::{JOB_FIELDS, VEHICLE_FIELDS};

/// Status codes of `solve_fleet` (crate::abi::status).
pub use crate::abi::status::{
    BAD_EXTRA as STATUS_BAD_EXTRA, BAD_LOCATION as STATUS_BAD_LOCATION,
    BAD_MATRIX as STATUS_BAD_MATRIX, BAD_NUMBER as STATUS_BAD_NUMBER,
    BAD_OBJECTIVE as STATUS_BAD_OBJECTIVE, BAD_VEHICLE_INDEX as STATUS_BAD_VEHICLE_INDEX,
    BAD_WINDOW as STATUS_BAD_WINDOW, NEGATIVE_QUANTITY as STATUS_NEGATIVE_QUANTITY,
    NEGATIVE_VALUE as STATUS_NEGATIVE_VALUE, NO_JOBS as STATUS_NO_JOBS,
    NO_VEHICLES as STATUS_NO_VEHICLES, TOO_MANY_DIMENSIONS as STATUS_TOO_MANY_DIMENSIONS,
    TOO_MANY_VEHICLES as STATUS_TOO_MANY_VEHICLES,
};

pub fn status_of(e: FleetError) -> i32 {
    match e {
        FleetError::NoVehicles => STATUS_NO_VEHICLES,
        FleetError::TooManyVehicles => STATUS_TOO_MANY_VEHICLES,
        FleetError::NoJobs => STATUS_NO_JOBS,
        FleetError::BadMatrix => STATUS_BAD_MATRIX,
        FleetError::NegativeValue => STATUS_NEGATIVE_VALUE,
        FleetError::BadLocation => STATUS_BAD_LOCATION,
        FleetError::NegativeQuantity => STATUS_NEGATIVE_QUANTITY,
        FleetError::BadWindow => STATUS_BAD_WINDOW,
        FleetError::BadVehicleIndex => STATUS_BAD_VEHICLE_INDEX,
        FleetError::BadObjective => STATUS_BAD_OBJECTIVE,
        FleetError::TooManyDimensions => STATUS_TOO_MANY_DIMENSIONS,
        FleetError::BadShipment => STATUS_BAD_EXTRA,
    }
}

pub struct FlatInput<'a> {
    pub locations: usize,
    pub travel: &'a [i32],
    pub distance: Option<&'a [i32]>,
    pub vehicles: &'a [f64],
    pub jobs: &'a [f64],
    pub dims: usize,
    pub capacity: &'a [f64],
    pub demand: &'a [f64],
    pub allowed: Option<&'a [u32]>,
    pub objective: [f64; 3],
    /// The extra sections (abi::extra); None or empty: none.
    pub extra: Option<&'a [f64]>,
}

/// The extra sections by tag (BAD_EXTRA for an unknown or repeated tag or a cut section).
fn sections(extra: &[f64]) -> Result<Vec<(u32, &[f64])>, i32> {
    let mut out: Vec<(u32, &[f64])> = Vec::new();
    let mut at = 0;
    while at < extra.len() {
        let tag = int(extra[at]).map_err(|_| STATUS_BAD_EXTRA)?;
        let len = extra.get(at + 1).map_or(Err(STATUS_BAD_EXTRA), |&x| {
            int(x).map_err(|_| STATUS_BAD_EXTRA)
        })?;
        let known = [
            extra::WINDOWS,
            extra::VEHICLE_LIMITS,
            extra::LIMIT_DISTANCE,
            extra::PRIORITY,
            extra::SHIPMENTS,
            extra::PICKUP,
            extra::BREAKS,
            extra::VEHICLE_COSTS,
            extra::BALANCE,
        ];
        if !known.iter().any(|&k| k as i64 == tag)
            || len < 0
            || out.iter().any(|s| s.0 as i64 == tag)
        {
            return Err(STATUS_BAD_EXTRA);
        }
        let end = at + 2 + len as usize;
        if end > extra.len() {
            return Err(STATUS_BAD_EXTRA);
        }
        out.push((tag as u32, &extra[at + 2..end]));
        at = end;
    }
    Ok(out)
}

/// The WINDOWS section: per job its list (None: none given).
fn windows(section: &[f64], nj: usize) -> Result<Vec<Option<Vec<(i64, i64)>>>, i32> {
    let mut out = Vec::with_capacity(nj);
    let mut at = 0;
    for _ in 0..nj {
        let c = section.get(at).map_or(Err(STATUS_BAD_EXTRA), |&x| int(x))?;
        at += 1;
        if c == -1 {
            out.push(None);
            continue;
        }
        if c < 0 || c as usize > MAX_WINDOWS || at + 2 * c as usize > section.len() {
            return Err(STATUS_BAD_EXTRA);
        }
        let list = (0..c as usize)
            .map(|w| Ok((int(section[at + 2 * w])?, int(section[at + 2 * w + 1])?)))
            .collect::<Result<Vec<_>, i32>>()?;
        at += 2 * c as usize;
        out.push(Some(list));
    }
    if at != section.len() {
        return Err(STATUS_BAD_EXTRA);
    }
    Ok(out)
}

/// Output length for nv vehicles, nj jobs and `breaks` breaks in all.
pub fn out_len(nv: usize, nj: usize, breaks: usize) -> usize {
    fleet_out_len(nv, nj) + BREAK_FIELDS * breaks
}

/// The breaks of all vehicles of a decoded input.
pub fn break_count(inp: &FleetInput) -> usize {
    inp.vehicles.iter().map(|v| v.breaks.len()).sum()
}

const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

fn int(x: f64) -> Result<i64, i32> {
    if x.is_finite() && x.fract() == 0.0 && x.abs() <= MAX_EXACT {
        Ok(x as i64)
    } else {
        Err(STATUS_BAD_NUMBER)
    }
}

/// -1 = None; other negatives are passed on for the model to reject.
fn optional(x: f64) -> Result<Option<i64>, i32> {
    let v = int(x)?;
    Ok(if v == -1 { None } else { Some(v) })
}

/// A location or count; negative → `neg`.
fn index(x: f64, neg: i32) -> Result<usize, i32> {
    let v = int(x)?;
    if v < 0 {
        Err(neg)
    } else {
        Ok(v as usize)
    }
}

/// Job j's row of the allowed-vehicle bitsets as vehicle indices; a bit
/// past the fleet's last vehicle is BAD_VEHICLE_INDEX.
fn allowed_list(a: &[u32], nv: usize, j: usize) -> Result<Vec<usize>, i32> {
    let words = allowed_words(nv);
    let mut list = Vec::new();
    for (w, &word) in a[j * words..(j + 1) * words].iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let v = w * ALLOWED_WORD_BITS + bits.trailing_zeros() as usize;
            if v >= nv {
                return Err(STATUS_BAD_VEHICLE_INDEX);
            }
            list.push(v);
            bits &= bits - 1;
        }
    }
    Ok(list)
}

/// The Rust API's form of a flat input (the CLI, tests): its matrices as i64.
pub fn decode(f: &FlatInput) -> Result<FleetInput, i32> {
    let m = f.locations;
    if f.travel.len() != m * m || f.distance.map_or(false, |d| d.len() != m * m) {
        return Err(STATUS_BAD_MATRIX);
    }
    let (mut inp, limit) = decode_without_matrices(f)?;
    inp.travel = f.travel.iter().map(|&x| x as i64).collect();
    inp.distance = f.distance.map(|d| d.iter().map(|&x| x as i64).collect());
    inp.limit_distance = limit.map(|l| l.into_iter().map(i64::from).collect());
    Ok(inp)
}

/// The problem of a flat input over the matrices `travel` and `distance`
/// (`f.travel` and `f.distance` are not read: `ffi::solve_fleet` passes the
/// host's blocks as `Cells::host`, read in place). The decoded input comes
/// back too, its matrices left empty.
pub fn problem(
    f: &FlatInput,
    travel: Cells,
    distance: Option<Cells>,
) -> Result<(FleetInput, FleetProblem), i32> {
    let m = f.locations;
    if travel.side() != m || distance.as_ref().map_or(false, |d| d.side() != m) {
        return Err(STATUS_BAD_MATRIX);
    }
    let (inp, limit) = decode_without_matrices(f)?;
    let matrices = Matrices {
        travel,
        distance,
        limit_distance: limit.map(|l| Cells::owned(m, l)),
    };
    let p = FleetProblem::with_matrices(&inp, matrices).map_err(status_of)?;
    Ok((inp, p))
}

/// Everything but the matrices (travel and distance left empty), and the
/// LIMIT_DISTANCE section as i32 cells (a value above i32::MAX: BAD_MATRIX).
fn decode_without_matrices(f: &FlatInput) -> Result<(FleetInput, Option<Vec<i32>>), i32> {
    let m = f.locations;
    let nv = f.vehicles.len() / VEHICLE_FIELDS;
    let nj = f.jobs.len() / JOB_FIELDS;
    if f.capacity.len() != nv * f.dims
        || f.demand.len() != nj * f.dims
        || f.allowed
            .map_or(false, |a| a.len() != nj * allowed_words(nv))
    {
        return Err(STATUS_BAD_MATRIX);
    }
    let mut vehicles = Vec::with_capacity(nv);
    for v in 0..nv {
        let r = &f.vehicles[v * VEHICLE_FIELDS..(v + 1) * VEHICLE_FIELDS];
        let end = optional(r[1])?;
        let max_stops = optional(r[4])?;
        vehicles.push(VehicleInput {
            start: index(r[0], STATUS_BAD_LOCATION)?,
            end: match end {
                None => None,
                Some(e) if e < 0 => return Err(STATUS_BAD_LOCATION),
                Some(e) => Some(e as usize),
            },
            shift_start: int(r[2])?,
            shift_end: optional(r[3])?,
            capacity: f.capacity[v * f.dims..(v + 1) * f.dims]
                .iter()
                .map(|&c| int(c))
                .collect::<Result<_, _>>()?,
            max_stops: match max_stops {
                None => None,
                Some(k) if k < 0 => return Err(STATUS_NEGATIVE_QUANTITY),
                Some(k) => Some(k as usize),
            },
            max_duration: None,
            max_driving: None,
            max_distance: None,
            breaks: Vec::new(),
            costs: VehicleCosts::NONE,
        });
    }
    let mut job_windows: Vec<Option<Vec<(i64, i64)>>> = vec![None; nj];
    let mut limit_distance: Option<Vec<i32>> = None;
    let mut priority = vec![0i64; nj];
    let mut shipments: Vec<(usize, usize)> = Vec::new();
    let mut pickup: Vec<Vec<i64>> = vec![Vec::new(); nj];
    let mut balance = Balance::NONE;
    for (tag, section) in sections(f.extra.unwrap_or(&[]))? {
        if tag == extra::VEHICLE_COSTS {
            if section.len() != nv * extra::VEHICLE_COST_FIELDS {
                return Err(STATUS_BAD_EXTRA);
            }
            for (v, row) in section.chunks(extra::VEHICLE_COST_FIELDS).enumerate() {
                vehicles[v].costs = VehicleCosts {
                    fixed: int(row[0])?,
                    per_duration: int(row[1])?,
                    per_distance: int(row[2])?,
                };
            }
        } else if tag == extra::BALANCE {
            if section.len() != extra::BALANCE_FIELDS {
                return Err(STATUS_BAD_EXTRA);
            }
            balance = Balance {
                stops: int(section[0])?,
                duration: int(section[1])?,
                duration_scale: int(section[2])?,
            };
        } else if tag == extra::WINDOWS {
            job_windows = windows(section, nj)?;
        } else if tag == extra::VEHICLE_LIMITS {
            if section.len() != nv * extra::VEHICLE_LIMIT_FIELDS {
                return Err(STATUS_BAD_EXTRA);
            }
            for (v, row) in section.chunks(extra::VEHICLE_LIMIT_FIELDS).enumerate() {
                vehicles[v].max_duration = optional(row[0])?;
                vehicles[v].max_driving = optional(row[1])?;
                vehicles[v].max_distance = optional(row[2])?;
            }
        } else if tag == extra::PRIORITY {
            if section.len() != nj {
                return Err(STATUS_BAD_EXTRA);
            }
            priority = section.iter().map(|&x| int(x)).collect::<Result<_, _>>()?;
        } else if tag == extra::SHIPMENTS {
            if section.len() % 2 != 0 {
                return Err(STATUS_BAD_EXTRA);
            }
            for pair in section.chunks(2) {
                let end = |x: f64| match int(x) {
                    Ok(j) if j >= 0 && (j as usize) < nj => Ok(j as usize),
                    _ => Err(STATUS_BAD_EXTRA),
                };
                shipments.push((end(pair[0])?, end(pair[1])?));
            }
        } else if tag == extra::BREAKS {
            let mut at = 0;
            for veh in vehicles.iter_mut() {
                let c = section.get(at).map_or(Err(STATUS_BAD_EXTRA), |&x| int(x))?;
                at += 1;
                if c < 0 || c as usize > MAX_BREAKS || at + 3 * c as usize > section.len() {
                    return Err(STATUS_BAD_EXTRA);
                }
                for b in section[at..at + 3 * c as usize].chunks(3) {
                    veh.breaks.push(BreakInput {
                        start: int(b[0])?,
                        end: int(b[1])?,
                        duration: int(b[2])?,
                    });
                }
                at += 3 * c as usize;
            }
            if at != section.len() {
                return Err(STATUS_BAD_EXTRA);
            }
        } else if tag == extra::PICKUP {
            if section.len() != nj * f.dims {
                return Err(STATUS_BAD_EXTRA);
            }
            for (j, row) in section.chunks(f.dims.max(1)).enumerate().take(nj) {
                pickup[j] = row.iter().map(|&q| int(q)).collect::<Result<_, _>>()?;
            }
        } else if tag == extra::LIMIT_DISTANCE {
            if section.len() != m * m {
                return Err(STATUS_BAD_EXTRA);
            }
            let cell = |x: f64| match int(x)? {
                v if v > i32::MAX as i64 => Err(STATUS_BAD_MATRIX),
                v => Ok(v.max(-2) as i32), // below -1: NEGATIVE_VALUE from the model
            };
            limit_distance = Some(section.iter().map(|&x| cell(x)).collect::<Result<_, _>>()?);
        }
    }
    let mut jobs = Vec::with_capacity(nj);
    for j in 0..nj {
        let r = &f.jobs[j * JOB_FIELDS..(j + 1) * JOB_FIELDS];
        let allowed = f.allowed.map(|a| allowed_list(a, nv, j)).transpose()?;
        jobs.push(JobInput {
            location: index(r[0], STATUS_BAD_LOCATION)?,
            service: int(r[1])?,
            ready: int(r[2])?,
            due: optional(r[3])?,
            deadline: if r[4] == NO_DEADLINE as f64 {
                None
            } else {
                Some(int(r[4])?)
            },
            demand: f.demand[j * f.dims..(j + 1) * f.dims]
                .iter()
                .map(|&q| int(q))
                .collect::<Result<_, _>>()?,
            allowed,
            windows: job_windows[j].take(),
            priority: priority[j],
            pickup: std::mem::take(&mut pickup[j]),
        });
    }
    let [vehicle_cost, duration_weight, distance_weight] = f.objective;
    let inp = FleetInput {
        locations: m,
        travel: Vec::new(),
        distance: None,
        vehicles,
        jobs,
        objective: Objective {
            vehicle_cost: int(vehicle_cost)?,
            duration_weight: int(duration_weight)?,
            distance_weight: int(distance_weight)?,
            balance,
        },
        limit_distance: None,
        shipments,
    };
    Ok((inp, limit_distance))
}

/// Write a solution of problem `p` into `out` (length `out_len`).
pub fn encode(p: &FleetProblem, sol: &FleetSolution, out: &mut [f64]) {
    let nv = p.vehicles.len();
    let mut head = [0f64; OUT_HEAD];
    head[0] = sol.cost.unassigned as f64;
    // head[1], the total lateness: the routes' (against the deadlines as given), summed below
    head[2] = sol.cost.main as f64;
    head[3] = sol.progress.iterations as f64;
    head[4] = sol.progress.best_iteration as f64;
    let mut jobs_at = OUT_HEAD + ROUTE_FIELDS * nv;
    let assigned: usize = sol.routes.iter().map(|r| r.len()).sum();
    let mut starts_at = jobs_at + assigned;
    let vehicle_times_at = fleet_out_len_abi3(nv, p.n());
    let mut stop_times_at = vehicle_times_at + FLEET_VEHICLE_TIMES * nv;
    for (v, route) in sol.routes.iter().enumerate() {
        let veh = &p.vehicles[v];
        let (duration, distance, lateness, back) = if route.is_empty() {
            (0, 0, 0, veh.shift_start)
        } else {
            let (times, back) = times_of(p, v, route);
            let mut at = veh.start;
            let mut distance = 0;
            for &j in route.iter() {
                let loc = p.jobs[j as usize].loc;
                distance += p.d(at, loc);
                at = loc;
            }
            distance += p.d(at, veh.end);
            for (&j, stop) in route.iter().zip(&times) {
                out[jobs_at] = j as f64;
                out[starts_at] = stop.start as f64;
                stop.write(&mut out[stop_times_at..stop_times_at + STOP_FIELDS]);
                jobs_at += 1;
                starts_at += 1;
                stop_times_at += STOP_FIELDS;
            }
            head[5] += 1.0;
            // the search's lateness (deadlines before 0 count from 0) is in the head;
            // the route's is against the deadlines as given, as its stops' are
            let lateness: i64 = times.iter().map(|s| s.lateness).sum();
            (back - veh.shift_start, distance, lateness, back)
        };
        head[1] += lateness as f64;
        head[6] += duration as f64;
        head[7] += distance as f64;
        let r = OUT_HEAD + ROUTE_FIELDS * v;
        out[r] = route.len() as f64;
        out[r + 1] = duration as f64;
        out[r + 2] = distance as f64;
        out[r + 3] = lateness as f64;
        let t = vehicle_times_at + FLEET_VEHICLE_TIMES * v;
        out[t] = veh.shift_start as f64;
        out[t + 1] = back as f64;
    }
    for &(j, reason) in &sol.unassigned {
        out[starts_at] = j as f64;
        out[starts_at + 1] = reason as i32 as f64;
        starts_at += 2;
    }
    // the breaks' tail, in the order given (fleet::model::Break::index)
    let mut breaks_at = fleet_out_len(nv, p.n());
    for (v, route) in sol.routes.iter().enumerate() {
        let count = p.vehicles[v].breaks.len();
        let slots = &mut out[breaks_at..breaks_at + BREAK_FIELDS * count];
        slots.iter_mut().for_each(|x| *x = -1.0);
        if !route.is_empty() {
            for t in super::breaks::taken(p, v, route) {
                slots[BREAK_FIELDS * t.index] = t.start as f64;
                slots[BREAK_FIELDS * t.index + 1] = t.after as f64;
                slots[BREAK_FIELDS * t.index + 2] = t.next_arrival as f64;
            }
        }
        breaks_at += BREAK_FIELDS * count;
    }
    out[..OUT_HEAD].copy_from_slice(&head);
}
