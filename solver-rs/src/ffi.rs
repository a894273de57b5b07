//! WebAssembly ABI (C calling convention over linear memory; no wasm-bindgen).
//! The only module with `unsafe`. Its constants (version, statuses, record
//! and output layouts, limits) are declared once in `abi.rs`, which the host
//! reads as the generated `src/solver/abi-constants.generated.ts`.
//!
//! ABI_VERSION = 4. Version 2 added `solve_with_report`, 3 `solve_fleet`
//! (whose 17th argument, `stall_iterations`, came later without a bump);
//! 4 returns the schedules (every stop's arrival, wait, start of service,
//! departure and lateness in the route outputs, `evaluate_route`), and reads
//! deadlines as any i32 but `NO_DEADLINE` (a negative deadline was already
//! past at departure), where 1–3 read -1 as none and rejected the rest below 0.
//! A host checks the version it reads and calls only what that version has.
//!
//! Imports:
//!   env.now_ms() -> f64              monotonic clock in ms (JS: performance.now())
//!   env.on_improve(assigned: u32, route_s: f64)
//!                                    solve_fleet found a new best plan (its construction
//!                                    included): the jobs it serves and the sum of its
//!                                    routes' durations in seconds (an integer). Called at
//!                                    every new best, unthrottled (the host throttles); it
//!                                    never drives a decision. Added inside ABI 4: a host
//!                                    passes it to any module (an older one ignores it).
//!
//! Exports:
//!   memory                           linear memory (grows; refresh JS views after calls)
//!   abi_version() -> u32             = 4
//!   alloc(size: u32, align: u32) -> u32
//!                                    allocate `size` bytes (size > 0, align a power of two);
//!                                    0 on failure
//!   dealloc(ptr: u32, size: u32, align: u32)
//!                                    free a block from `alloc` with the same size/align
//!   solve(durations: u32, size: u32, service: u32, deadline: u32, has_end: u32,
//!         seed: u32, time_limit_ms: f64, max_iterations: u32, stall_iterations: u32,
//!         out: u32) -> i32
//!       durations   i32[size*size], row-major travel seconds over nodes
//!                   [start, stop 0 .. stop n-1, end?]; n = size - 1 - has_end
//!       service     i32[n], service seconds per stop (>= 0)
//!       deadline    i32[n], seconds after departure (may be negative), NO_DEADLINE = none;
//!                   the search counts a negative deadline from 0 (that stop's lateness
//!                   changes by a constant), the reported times use it as given
//!       has_end     0 = open route (ends after the last stop's service), 1 = end node is last
//!       seed        PRNG seed (same input + seed + no time limit => same result)
//!       time_limit_ms  0 = none; otherwise the search stops after this many ms
//!       max_iterations 0 = no cap on ILS iterations
//!       stall_iterations 0 = default (see search::default_stall): stop after this many kicks
//!                   without a new best route (convergence)
//!       out         f64[route_out_len(n) = 3 + 6n]: [0] lateness s, [1] duration s,
//!                   [2] ILS iterations, [3 + k] = 0-based stop index visited k-th,
//!                   [3 + n + 5k ..] the k-th stop's arrival, wait (0), start of service,
//!                   departure, lateness (schedule::StopTimes)
//!     returns a status (abi::STATUSES): 1 BAD_SIZE, 3 NEGATIVE_DURATION,
//!       4 NEGATIVE_SERVICE, 6 BAD_FLAG, 7 BAD_TIME_LIMIT, 8 NULL_POINTER, 9 MISALIGNED
//!   solve_with_report(<the 10 arguments of solve>, report: u32, report_len: u32,
//!         events: u32, events_capacity: u32) -> i32
//!       As `solve`, and also:
//!       report      f64[report_len] (0 = none; entries past report_len are not written):
//!                   [0] kick after which the final route was first reached (0 = first descent)
//!                   [1] ms at which it was first reached
//!                   [2] improvements of the best route (events) in total
//!                   [3] events written
//!                   [4 + 3k + 0..3] operator k: tried, improving, applied, operators in the
//!                   order two_opt, or_opt, swap, segment_swap, late_relocate,
//!                   lin_kernighan, kick (REPORT_LEN = 25 entries in all)
//!       events      f64[4 * events_capacity] (0 = none): one (ms, kick, lateness s,
//!                   duration s) per new best route, in order; beyond the capacity the
//!                   first capacity - 1 are kept and the last slot holds the final one.
//!                   Times are observed with now_ms and never drive a decision; the
//!                   lateness is the search's (negative deadlines counted from 0).
//!   evaluate_route(durations: u32, size: u32, service: u32, deadline: u32, has_end: u32,
//!         order: u32, out: u32) -> i32                                   (ABI 4)
//!       The times of a given visiting order (no search): `order` u32[n], a permutation
//!       of the stops (else 22 BAD_ORDER); out as `solve`'s (iterations 0).
//!   solve_fleet(travel: u32, distance: u32, locations: u32, vehicles: u32,
//!         vehicle_count: u32, jobs: u32, job_count: u32, dims: u32, capacity: u32,
//!         demand: u32, allowed: u32, objective: u32, seed: u32, time_limit_ms: f64,
//!         max_iterations: u32, out: u32, stall_iterations: u32, extra: u32,
//!         extra_len: u32) -> i32
//!       Plans several vehicles (crate::fleet). The arrays and the output
//!       f64[fleet_out_len(vehicle_count, job_count) + BREAK_FIELDS × breaks] are documented in
//!       fleet/flat.rs; distance, capacity/demand (dims = 0) and allowed may
//!       be 0 (= travel, none, all); objective f64[3]. max_iterations 0 = run
//!       to the time limit (20000 iterations when there is none either); the
//!       time limit counts from the call (decoding included); stall_iterations
//!       0 = off (fleet::FleetParams). `extra` (f64[extra_len], may be 0 with
//!       extra_len 0) holds the optional sections of abi::extra (several time
//!       windows per job); appended inside ABI 4 before its release, a host
//!       calling an older ABI 4 module without them passes nothing more.
//!       Statuses 7, 8, 9 as above, 10–21, 23.
//!   trap_for_test()                  always traps (tests the host's recovery)

// The exports take raw pointers from the host by design (C ABI over linear
// memory); they are validated (null, alignment) before use.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::alloc::{alloc as raw_alloc, dealloc as raw_dealloc, Layout};

use crate::abi::{route_deadlines, route_out_len, status, ROUTE_OUT_HEAD, STOP_FIELDS};
pub use crate::abi::{ABI_VERSION, REPORT_LEN};
use crate::problem::{Input, MAX_SIZE};
use crate::schedule::{route_times, RouteTimes};
use crate::search::operators::OPERATORS;
use crate::search::{Clock, Params};
use crate::Solution;

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "env")]
extern "C" {
    fn now_ms() -> f64;
    fn on_improve(assigned: u32, route_s: f64);
}

/// The fleet search has a new best plan (`env.on_improve` on WebAssembly; natively, counted
/// per thread for the crate's tests: `improvements_reported`).
pub fn report_improvement(assigned: usize, route_s: i64) {
    #[cfg(target_arch = "wasm32")]
    // SAFETY: a host function taking two numbers; it reads no memory.
    unsafe {
        on_improve(assigned as u32, route_s as f64)
    }
    #[cfg(not(target_arch = "wasm32"))]
    record_natively(assigned, route_s);
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    static REPORTED: std::cell::Cell<(u64, usize, i64)> = std::cell::Cell::new((0, 0, 0));
}

/// Native builds: new best plans reported on this thread so far, and the last one's
/// (assigned, route seconds).
#[cfg(not(target_arch = "wasm32"))]
pub fn improvements_reported() -> (u64, usize, i64) {
    REPORTED.with(|r| r.get())
}

struct HostClock;

#[cfg(target_arch = "wasm32")]
impl Clock for HostClock {
    fn now_ms(&self) -> f64 {
        unsafe { now_ms() }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for HostClock {
    fn now_ms(&self) -> f64 {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }
}

#[no_mangle]
pub extern "C" fn abi_version() -> u32 {
    ABI_VERSION
}

#[no_mangle]
pub extern "C" fn alloc(size: usize, align: usize) -> *mut u8 {
    if size == 0 {
        return std::ptr::null_mut();
    }
    match Layout::from_size_align(size, align) {
        Ok(layout) => unsafe { raw_alloc(layout) },
        Err(_) => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "C" fn dealloc(ptr: *mut u8, size: usize, align: usize) {
    if ptr.is_null() || size == 0 {
        return;
    }
    if let Ok(layout) = Layout::from_size_align(size, align) {
        unsafe { raw_dealloc(ptr, layout) }
    }
}

#[no_mangle]
pub extern "C" fn trap_for_test() {
    panic!("trap_for_test");
}

fn check_ptr<T>(p: *const T) -> Result<(), i32> {
    if p.is_null() {
        return Err(status::NULL_POINTER);
    }
    if (p as usize) % std::mem::align_of::<T>() != 0 {
        return Err(status::MISALIGNED);
    }
    Ok(())
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn solve(
    durations: *const i32,
    size: u32,
    service: *const i32,
    deadline: *const i32,
    has_end: u32,
    seed: u32,
    time_limit_ms: f64,
    max_iterations: u32,
    stall_iterations: u32,
    out: *mut f64,
) -> i32 {
    solve_with_report(
        durations,
        size,
        service,
        deadline,
        has_end,
        seed,
        time_limit_ms,
        max_iterations,
        stall_iterations,
        out,
        std::ptr::null_mut(),
        0,
        std::ptr::null_mut(),
        0,
    )
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn solve_with_report(
    durations: *const i32,
    size: u32,
    service: *const i32,
    deadline: *const i32,
    has_end: u32,
    seed: u32,
    time_limit_ms: f64,
    max_iterations: u32,
    stall_iterations: u32,
    out: *mut f64,
    report: *mut f64,
    report_len: u32,
    events: *mut f64,
    events_capacity: u32,
) -> i32 {
    let result = solve_inner(
        durations,
        size,
        service,
        deadline,
        has_end,
        seed,
        time_limit_ms,
        max_iterations,
        stall_iterations,
        out,
    )
    .and_then(|sol| {
        if report_len > 0 {
            check_ptr(report as *const f64)?;
            // SAFETY: the host passes f64[report_len] from `alloc` (checked above).
            let report = unsafe { std::slice::from_raw_parts_mut(report, report_len as usize) };
            write_report(&sol, report, events_capacity as usize);
        }
        if events_capacity > 0 {
            check_ptr(events as *const f64)?;
            // SAFETY: the host passes f64[4 * events_capacity] from `alloc` (checked above).
            let events =
                unsafe { std::slice::from_raw_parts_mut(events, 4 * events_capacity as usize) };
            write_events(&sol, events);
        }
        Ok(())
    });
    status_of(result)
}

fn status_of(result: Result<(), i32>) -> i32 {
    match result {
        Ok(()) => status::OK,
        Err(code) => code,
    }
}

/// The time limit check of both entry points.
fn check_time_limit(time_limit_ms: f64) -> Result<(), i32> {
    if !time_limit_ms.is_finite() || time_limit_ms < 0.0 {
        return Err(status::BAD_TIME_LIMIT);
    }
    Ok(())
}

fn write_report(sol: &Solution, report: &mut [f64], events_capacity: usize) {
    let r = &sol.progress;
    let total = sol.improvements.len();
    let mut values = Vec::with_capacity(REPORT_LEN);
    values.push(r.best_iteration as f64);
    // (0 for the exact solver, which makes no search)
    values.push(r.best_ms.unwrap_or(0.0));
    values.push(total as f64);
    values.push(total.min(events_capacity) as f64);
    for op in OPERATORS.iter() {
        let c = r.get(*op);
        values.push(c.tried as f64);
        values.push(c.improving as f64);
        values.push(c.applied as f64);
    }
    for (slot, v) in report.iter_mut().zip(values) {
        *slot = v;
    }
}

fn write_events(sol: &Solution, events: &mut [f64]) {
    let improvements = &sol.improvements;
    let capacity = events.len() / 4;
    if capacity == 0 {
        return;
    }
    let kept = improvements.len().min(capacity);
    for k in 0..kept {
        // beyond the capacity, the last slot holds the final improvement
        let e = if k == kept - 1 {
            improvements[improvements.len() - 1]
        } else {
            improvements[k]
        };
        events[4 * k] = e.ms;
        events[4 * k + 1] = e.iteration as f64;
        events[4 * k + 2] = e.cost.lateness as f64;
        events[4 * k + 3] = e.cost.duration as f64;
    }
}

/// A single route as the host gave it: the search's input (deadlines: -1
/// none, negatives counted from 0) and the deadlines as given, for the times.
struct RouteArgs<'a> {
    durations: &'a [i32],
    service: &'a [i32],
    search_deadline: Vec<i32>,
    deadline: Vec<Option<i64>>,
    size: usize,
    has_end: bool,
}

impl<'a> RouteArgs<'a> {
    fn read(
        durations: *const i32,
        size: u32,
        service: *const i32,
        deadline: *const i32,
        has_end: u32,
    ) -> Result<RouteArgs<'a>, i32> {
        if has_end > 1 {
            return Err(status::BAD_FLAG);
        }
        let size = size as usize;
        let extra = 1 + has_end as usize;
        if size < extra || size > MAX_SIZE {
            return Err(status::BAD_SIZE);
        }
        let n = size - extra;
        check_ptr(durations)?;
        let (search_deadline, deadline) = route_deadlines(slice(deadline, n)?);
        Ok(RouteArgs {
            durations: slice(durations, size * size)?,
            service: slice(service, n)?,
            search_deadline,
            deadline,
            size,
            has_end: has_end == 1,
        })
    }

    fn input(&self) -> Input<'_> {
        Input {
            size: self.size,
            durations: self.durations,
            service: self.service,
            deadline: &self.search_deadline,
            has_end: self.has_end,
        }
    }
}

/// Writes a route output (abi::route_out_len): costs, order, the stops' times.
fn write_route(
    out: *mut f64,
    order: &[u32],
    times: &RouteTimes,
    iterations: u64,
) -> Result<(), i32> {
    check_ptr(out as *const f64)?;
    let n = order.len();
    // SAFETY: the host passes f64[route_out_len(n)] from `alloc` (checked above).
    let out = unsafe { std::slice::from_raw_parts_mut(out, route_out_len(n)) };
    out[0] = times.lateness as f64;
    out[1] = times.end as f64;
    out[2] = iterations as f64;
    let at = ROUTE_OUT_HEAD + n;
    for (k, (&s, stop)) in order.iter().zip(&times.stops).enumerate() {
        out[ROUTE_OUT_HEAD + k] = s as f64;
        stop.write(&mut out[at + STOP_FIELDS * k..at + STOP_FIELDS * (k + 1)]);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn solve_inner(
    durations: *const i32,
    size: u32,
    service: *const i32,
    deadline: *const i32,
    has_end: u32,
    seed: u32,
    time_limit_ms: f64,
    max_iterations: u32,
    stall_iterations: u32,
    out: *mut f64,
) -> Result<Solution, i32> {
    let args = RouteArgs::read(durations, size, service, deadline, has_end)?;
    check_ptr(out as *const f64)?;
    check_time_limit(time_limit_ms)?;
    let params = Params {
        seed: seed as u64,
        time_limit_ms,
        max_iterations: max_iterations as u64,
        stall_iterations: stall_iterations as u64,
        options: Default::default(),
    };
    let inp = args.input();
    let sol = crate::solve(&inp, &params, &HostClock).map_err(|e| e as i32)?;
    let times = route_times(&inp, &args.deadline, &sol.order);
    debug_assert_eq!(times.end, sol.cost.duration);
    write_route(out, &sol.order, &times, sol.progress.iterations)?;
    Ok(sol)
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn evaluate_route(
    durations: *const i32,
    size: u32,
    service: *const i32,
    deadline: *const i32,
    has_end: u32,
    order: *const u32,
    out: *mut f64,
) -> i32 {
    let run = || -> Result<(), i32> {
        let args = RouteArgs::read(durations, size, service, deadline, has_end)?;
        let inp = args.input();
        // the same checks as a solve (NEGATIVE_DURATION, NEGATIVE_SERVICE …)
        crate::Problem::new(&inp).map_err(|e| e as i32)?;
        let n = args.service.len();
        let order = slice(order, n)?;
        let mut seen = vec![false; n];
        for &s in order {
            if s as usize >= n || seen[s as usize] {
                return Err(status::BAD_ORDER);
            }
            seen[s as usize] = true;
        }
        write_route(out, order, &route_times(&inp, &args.deadline, order), 0)
    };
    status_of(run())
}

/// The host's block of `len` > 0 i32 (from `alloc(4 * len, 4)`, checked
/// non-null and aligned) as a Vec, for `Cells::host`, which never drops it
/// (the host frees the block itself).
fn host_cells(ptr: *const i32, len: usize) -> Vec<i32> {
    // SAFETY: `len` i32 allocated by `alloc` with the layout of a Vec<i32> of
    // capacity `len`; only read, and never dropped (Cells::host).
    unsafe { Vec::from_raw_parts(ptr as *mut i32, len, len) }
}

/// A host slice of `len` elements (empty when len is 0, the pointer then unused).
fn slice<'a, T>(ptr: *const T, len: usize) -> Result<&'a [T], i32> {
    if len == 0 {
        return Ok(&[]);
    }
    check_ptr(ptr)?;
    // SAFETY: the host passes `len` elements allocated with `alloc` (checked
    // non-null and aligned above).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn solve_fleet(
    travel: *const i32,
    distance: *const i32,
    locations: u32,
    vehicles: *const f64,
    vehicle_count: u32,
    jobs: *const f64,
    job_count: u32,
    dims: u32,
    capacity: *const f64,
    demand: *const f64,
    allowed: *const u32,
    objective: *const f64,
    seed: u32,
    time_limit_ms: f64,
    max_iterations: u32,
    out: *mut f64,
    stall_iterations: u32,
    extra: *const f64,
    extra_len: u32,
) -> i32 {
    use crate::fleet::flat;
    let started_ms = HostClock.now_ms();
    let run = || -> Result<(), i32> {
        check_time_limit(time_limit_ms)?;
        let (m, nv, nj, dims) = (
            locations as usize,
            vehicle_count as usize,
            job_count as usize,
            dims as usize,
        );
        if m == 0 || m > crate::fleet::model::MAX_LOCATIONS {
            return Err(flat::STATUS_BAD_MATRIX);
        }
        if nv == 0 {
            return Err(flat::STATUS_NO_VEHICLES);
        }
        if nv > crate::fleet::model::MAX_VEHICLES {
            return Err(flat::STATUS_TOO_MANY_VEHICLES);
        }
        if nj == 0 {
            return Err(flat::STATUS_NO_JOBS);
        }
        if dims > crate::fleet::model::MAX_DIMS {
            return Err(flat::STATUS_TOO_MANY_DIMENSIONS);
        }
        check_ptr(out as *const f64)?;
        check_ptr(travel)?;
        if !distance.is_null() {
            check_ptr(distance)?;
        }
        let result = (|| -> Result<(), i32> {
            let objective = slice(objective, 3)?;
            let input = flat::FlatInput {
                locations: m,
                // read as the cells below
                travel: &[],
                distance: None,
                vehicles: slice(vehicles, flat::VEHICLE_FIELDS * nv)?,
                jobs: slice(jobs, flat::JOB_FIELDS * nj)?,
                dims,
                capacity: slice(capacity, nv * dims)?,
                demand: slice(demand, nj * dims)?,
                allowed: if allowed.is_null() {
                    None
                } else {
                    Some(slice(allowed, nj * crate::abi::allowed_words(nv))?)
                },
                objective: [objective[0], objective[1], objective[2]],
                extra: if extra.is_null() || extra_len == 0 {
                    None
                } else {
                    Some(slice(extra, extra_len as usize)?)
                },
            };
            use crate::fleet::matrix::Cells;
            // the matrices are read in place (400 MB each at 10,000 places), never freed here
            let (fleet_input, problem) = flat::problem(
                &input,
                Cells::host(m, host_cells(travel, m * m)),
                if distance.is_null() {
                    None
                } else {
                    Some(Cells::host(m, host_cells(distance, m * m)))
                },
            )?;
            let params = crate::fleet::FleetParams {
                seed: seed as u64,
                time_limit_ms,
                max_iterations: max_iterations as u64,
                stall_iterations: stall_iterations as u64,
                settings: Default::default(),
            };
            let sol = crate::fleet::solve_since(&problem, &params, &HostClock, started_ms);
            // SAFETY: the host passes f64[out_len(nv, nj, breaks)] from `alloc` (checked above).
            let breaks = flat::break_count(&fleet_input);
            let out = unsafe { std::slice::from_raw_parts_mut(out, flat::out_len(nv, nj, breaks)) };
            flat::encode(&problem, &sol, out);
            Ok(())
        })();
        result
    };
    status_of(run())
}

// (native-only code goes after the module's own: the panic locations in the module stay on their lines)

/// Native builds: counts the report (`improvements_reported`) and logs it while a test records
/// (`record_improvements`).
#[cfg(not(target_arch = "wasm32"))]
fn record_natively(assigned: usize, route_s: i64) {
    REPORTED.with(|r| r.set((r.get().0 + 1, assigned, route_s)));
    LOGGED.with(|l| {
        if let Some(log) = l.borrow_mut().as_mut() {
            log.push((assigned, route_s));
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// Every report in order while a test records them.
    static LOGGED: std::cell::RefCell<Option<Vec<(usize, i64)>>> = std::cell::RefCell::new(None);
}

/// Native builds: from now on, keep every report of this thread in order (the crate's tests of
/// when the search reports; nothing is kept otherwise).
#[cfg(not(target_arch = "wasm32"))]
pub fn record_improvements() {
    LOGGED.with(|l| *l.borrow_mut() = Some(Vec::new()));
}

/// Native builds: the reports (assigned, route seconds) since `record_improvements`, in order;
/// the recording stops.
#[cfg(not(target_arch = "wasm32"))]
pub fn recorded_improvements() -> Vec<(usize, i64)> {
    LOGGED.with(|l| l.borrow_mut().take().unwrap_or_default())
}
