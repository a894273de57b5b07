/**
 * Marshalling of `solve_fleet`: the flat arrays documented in solver-rs/src/fleet/flat.rs, written
 * into the module's memory and the answer read back (through marshal.ts, as the route entries).
 * Integer quantities cross as f64 (exact up to 2^53); -1 stands for an absent optional field, and
 * NO_DEADLINE for an absent deadline (a deadline may be negative: already past at 0).
 */
import { SolverError } from './errors.ts';
import {
  ALLOWED_WORD_BITS,
  BREAK_FIELDS,
  EXTRA,
  MAX_BREAKS,
  FLEET_OUT_HEAD,
  FLEET_ROUTE_FIELDS,
  FLEET_VEHICLE_TIMES,
  JOB_FIELDS,
  MAX_DIMS,
  MAX_LOCATIONS,
  MAX_VEHICLES,
  MAX_WINDOWS,
  NO_DEADLINE,
  REASON_CODES,
  STOP_FIELDS,
  Status,
  VEHICLE_FIELDS,
} from './abi-constants.generated.ts';
import { readStopTimes, type SolverExports, type WasmSolver } from './abi.ts';
import type { BreakTimes } from './types.ts';
import { callModule, checkOptions, invalid } from './marshal.ts';
import { checkCosts, costSections } from './fleet-costs.ts';
import {
  SERVICE_OBJECTIVE,
  type FleetOptions,
  type FleetProblem,
  type FleetResult,
  type FleetRoute,
  type UnassignedReason,
} from './fleet-types.ts';

export { JOB_FIELDS, MAX_DIMS, MAX_LOCATIONS, MAX_VEHICLES, VEHICLE_FIELDS };
/** reasons::Reason as numbers, in code order. */
export const REASONS: Readonly<Record<number, UnassignedReason>> = REASON_CODES;

/** The part of the output every module of ABI 3 or later writes. */
function abi3OutLength(vehicles: number, jobs: number): number {
  return FLEET_OUT_HEAD + FLEET_ROUTE_FIELDS * vehicles + 2 * jobs;
}

/** f64 entries of solve_fleet's output for a module of this ABI version (`breaks`: all vehicles' breaks). */
export function fleetOutLength(vehicles: number, jobs: number, abiVersion = 4, breaks = 0): number {
  return (
    abi3OutLength(vehicles, jobs) +
    (abiVersion >= 4 ? FLEET_VEHICLE_TIMES * vehicles + STOP_FIELDS * jobs + BREAK_FIELDS * breaks : 0)
  );
}

/** Per vehicle its breaks' durations (empty when it has none). */
const breakDurations = (p: FleetProblem): number[][] => p.vehicles.map((v) => (v.breaks ?? []).map((b) => b.duration));

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x);

/** u32 words per job of the allowed-vehicle bitsets (flat.rs) for a fleet of this size. */
export function allowedWords(vehicles: number): number {
  return Math.ceil(vehicles / ALLOWED_WORD_BITS);
}

/** What the module cannot check itself: array lengths and types, allowed indices within the fleet's bitsets. */
export function checkFleetProblem(p: FleetProblem, o: FleetOptions): void {
  const m = p.locations;
  if (!Number.isInteger(m) || m < 1 || m > MAX_LOCATIONS)
    throw invalid(Status.BAD_MATRIX, `locations must be an integer in 1..${MAX_LOCATIONS}`);
  if (!(p.travel instanceof Int32Array) || p.travel.length !== m * m)
    throw invalid(Status.BAD_MATRIX, `travel must be an Int32Array of ${m * m}`);
  for (const [name, d] of [
    ['distance', p.distance],
    ['limitDistance', p.limitDistance],
  ] as const) {
    if (d !== undefined && (!(d instanceof Int32Array) || d.length !== m * m))
      throw invalid(Status.BAD_MATRIX, `${name} must be an Int32Array of ${m * m} or absent`);
  }
  if (!Array.isArray(p.vehicles) || p.vehicles.length === 0)
    throw invalid(Status.NO_VEHICLES, 'give at least one vehicle');
  if (p.vehicles.length > MAX_VEHICLES) throw invalid(Status.TOO_MANY_VEHICLES, `at most ${MAX_VEHICLES} vehicles`);
  if (!Array.isArray(p.jobs) || p.jobs.length === 0) throw invalid(Status.NO_JOBS, 'give at least one job');
  const numbers = (what: string, xs: Array<number | undefined>) => {
    for (const x of xs)
      if (x !== undefined && !isInt(x)) throw invalid(Status.BAD_NUMBER, `${what}: ${String(x)} is not a safe integer`);
  };
  p.vehicles.forEach((v, k) => {
    numbers(`vehicle ${k}`, [
      v.start,
      v.end,
      v.shiftStart,
      v.shiftEnd,
      v.maxStops,
      v.maxDuration,
      v.maxDriving,
      v.maxDistance,
      ...(v.capacity ?? []),
    ]);
    if (!isInt(v.start)) throw invalid(Status.BAD_LOCATION, `vehicle ${k}: start must be a location index`);
    if (v.breaks !== undefined) {
      if (!Array.isArray(v.breaks) || v.breaks.length > MAX_BREAKS)
        throw invalid(Status.BAD_EXTRA, `vehicle ${k}: breaks must be an array of at most ${MAX_BREAKS}`);
      v.breaks.forEach((b) => numbers(`vehicle ${k} break`, [b?.start ?? NaN, b?.end ?? NaN, b?.duration ?? NaN]));
    }
  });
  p.jobs.forEach((j, k) => {
    if (j.deadline === NO_DEADLINE)
      throw invalid(Status.BAD_NUMBER, `job ${k}: deadline ${NO_DEADLINE} is the module's "none"; leave the field out`);
    numbers(`job ${k}`, [
      j.location,
      j.service,
      j.ready,
      j.due,
      j.deadline,
      j.priority,
      ...(j.demand ?? []),
      ...(j.pickup ?? []),
    ]);
    if (!isInt(j.location)) throw invalid(Status.BAD_LOCATION, `job ${k}: location must be a location index`);
    if (j.windows !== undefined) {
      if (!Array.isArray(j.windows) || j.windows.length > MAX_WINDOWS)
        throw invalid(
          Status.BAD_EXTRA,
          `job ${k}: windows must be an array of at most ${MAX_WINDOWS} [start, end] pairs`,
        );
      j.windows.forEach((w) => numbers(`job ${k} window`, Array.isArray(w) && w.length === 2 ? [...w] : [NaN]));
    }
    for (const v of j.allowedVehicles ?? []) {
      if (!Number.isInteger(v) || v < 0 || v >= p.vehicles.length)
        throw invalid(Status.BAD_VEHICLE_INDEX, `job ${k}: allowed vehicle ${v} is not a vehicle index`);
    }
  });
  if (p.shipments !== undefined) {
    if (!Array.isArray(p.shipments)) throw invalid(Status.BAD_EXTRA, 'shipments must be an array of pairs');
    p.shipments.forEach((s, k) => {
      for (const end of [s?.pickup, s?.delivery])
        if (!Number.isInteger(end) || end! < 0 || end! >= p.jobs.length)
          throw invalid(Status.BAD_EXTRA, `shipment ${k}: pickup and delivery must be job indices`);
    });
  }
  const ob = p.objective ?? SERVICE_OBJECTIVE;
  numbers('objective', [ob.vehicleCost, ob.durationWeight, ob.distanceWeight]);
  checkCosts(p);
  checkOptions(o);
}

/**
 * The flat arrays of a problem (flat.rs's input); `abiVersion` < 4: deadlines as ABI 3 read them (-1 none, a past
 * one as 0) and allowed vehicles as its 64-bit masks (two words per job).
 */
export function flattenFleet(p: FleetProblem, abiVersion = 4) {
  const nv = p.vehicles.length;
  const nj = p.jobs.length;
  const dims = fleetDims(p);
  const opt = (x: number | undefined) => (x === undefined ? -1 : x);
  const vehicles = new Float64Array(VEHICLE_FIELDS * nv);
  const capacity = new Float64Array(nv * dims);
  p.vehicles.forEach((v, k) => {
    vehicles.set([v.start, opt(v.end), v.shiftStart ?? 0, opt(v.shiftEnd), opt(v.maxStops)], k * VEHICLE_FIELDS);
    capacity.set(v.capacity ?? [], k * dims);
  });
  const jobs = new Float64Array(JOB_FIELDS * nj);
  const demand = new Float64Array(nj * dims);
  const restricted = p.jobs.some((j) => j.allowedVehicles !== undefined);
  // ABI 3 read a 64-bit mask (two words) per job; its modules take at most 64 vehicles
  const words = abiVersion >= 4 ? allowedWords(nv) : 2;
  const allowed = restricted ? new Uint32Array(nj * words) : null;
  p.jobs.forEach((j, k) => {
    const deadline =
      j.deadline === undefined
        ? abiVersion >= 4
          ? NO_DEADLINE
          : -1
        : abiVersion >= 4
          ? j.deadline
          : Math.max(0, j.deadline);
    jobs.set([j.location, j.service ?? 0, j.ready ?? 0, opt(j.due), deadline], k * JOB_FIELDS);
    demand.set(j.demand ?? [], k * dims);
    if (allowed) {
      const list = j.allowedVehicles ?? Array.from({ length: nv }, (_, v) => v);
      for (const v of list) allowed[k * words + Math.floor(v / ALLOWED_WORD_BITS)] |= 1 << (v % ALLOWED_WORD_BITS);
    }
  });
  const ob = p.objective ?? SERVICE_OBJECTIVE;
  const objective = new Float64Array([ob.vehicleCost, ob.durationWeight, ob.distanceWeight]);
  return { nv, nj, dims, vehicles, jobs, capacity, demand, allowed, objective, extra: extraSections(p) };
}

/** Demand dimensions: the longest capacity, demand or pickup vector. */
function fleetDims(p: FleetProblem): number {
  return Math.max(
    0,
    ...p.vehicles.map((v) => v.capacity?.length ?? 0),
    ...p.jobs.map((j) => Math.max(j.demand?.length ?? 0, j.pickup?.length ?? 0)),
  );
}

/** solve_fleet's extra sections (flat.rs: [tag, length, values]); null when the problem needs none. */
export function extraSections(p: FleetProblem): Float64Array | null {
  const sections: number[] = [];
  const section = (tag: number, values: ArrayLike<number>) => {
    sections.push(tag, values.length);
    for (let k = 0; k < values.length; k++) sections.push(values[k]!);
  };
  if (p.jobs.some((j) => j.windows !== undefined)) {
    const values: number[] = [];
    for (const j of p.jobs) {
      if (j.windows === undefined) values.push(-1);
      else values.push(j.windows.length, ...j.windows.flatMap(([start, end]) => [start, end]));
    }
    section(EXTRA.WINDOWS, values);
  }
  if (
    p.vehicles.some((v) => v.maxDuration !== undefined || v.maxDriving !== undefined || v.maxDistance !== undefined)
  ) {
    const opt = (x: number | undefined) => (x === undefined ? -1 : x);
    section(
      EXTRA.VEHICLE_LIMITS,
      p.vehicles.flatMap((v) => [opt(v.maxDuration), opt(v.maxDriving), opt(v.maxDistance)]),
    );
  }
  if (p.limitDistance !== undefined) section(EXTRA.LIMIT_DISTANCE, p.limitDistance);
  if (p.jobs.some((j) => (j.priority ?? 0) !== 0))
    section(
      EXTRA.PRIORITY,
      p.jobs.map((j) => j.priority ?? 0),
    );
  if (p.shipments !== undefined && p.shipments.length > 0)
    section(
      EXTRA.SHIPMENTS,
      p.shipments.flatMap((s) => [s.pickup, s.delivery]),
    );
  if (p.jobs.some((j) => (j.pickup ?? []).some((q) => q !== 0))) {
    const dims = fleetDims(p);
    section(
      EXTRA.PICKUP,
      p.jobs.flatMap((j) => Array.from({ length: dims }, (_, d) => j.pickup?.[d] ?? 0)),
    );
  }
  if (p.vehicles.some((v) => (v.breaks?.length ?? 0) > 0))
    section(
      EXTRA.BREAKS,
      p.vehicles.flatMap((v) => [
        v.breaks?.length ?? 0,
        ...(v.breaks ?? []).flatMap((b) => [b.start, b.end, b.duration]),
      ]),
    );
  sections.push(...costSections(p));
  return sections.length === 0 ? null : new Float64Array(sections);
}

/** Read flat.rs's output array (with the routes' times when the module is of ABI 4). */
export function readFleetOut(
  out: Float64Array,
  nv: number,
  nj: number,
  abiVersion = 4,
  breaks: readonly (readonly number[])[] = [],
): Omit<FleetResult, 'solveMs'> {
  const routes: FleetRoute[] = [];
  let at = FLEET_OUT_HEAD + FLEET_ROUTE_FIELDS * nv;
  const lens = Array.from({ length: nv }, (_, v) => out[FLEET_OUT_HEAD + FLEET_ROUTE_FIELDS * v]!);
  const assigned = lens.reduce((s, x) => s + x, 0);
  let startAt = at + assigned;
  const vehicleTimesAt = abi3OutLength(nv, nj);
  let stopTimesAt = vehicleTimesAt + FLEET_VEHICLE_TIMES * nv;
  let breaksAt = fleetOutLength(nv, nj, abiVersion);
  for (let v = 0; v < nv; v++) {
    const r = FLEET_OUT_HEAD + FLEET_ROUTE_FIELDS * v;
    const len = lens[v]!;
    if (len > 0) {
      const route: FleetRoute = {
        vehicle: v,
        jobs: Array.from(out.subarray(at, at + len)),
        starts: Array.from(out.subarray(startAt, startAt + len)),
        duration: out[r + 1]!,
        distance: out[r + 2]!,
        lateness: out[r + 3]!,
      };
      if (abiVersion >= 4) {
        const t = vehicleTimesAt + FLEET_VEHICLE_TIMES * v;
        route.times = {
          departureS: out[t]!,
          stops: readStopTimes(out, stopTimesAt, len),
          endS: out[t + 1]!,
          durationS: out[r + 1]!,
          latenessS: out[r + 3]!,
        };
        stopTimesAt += STOP_FIELDS * len;
        if ((breaks[v]?.length ?? 0) > 0) route.times.breaks = readBreaks(out, breaksAt, breaks[v]!);
      }
      routes.push(route);
    }
    breaksAt += BREAK_FIELDS * (breaks[v]?.length ?? 0);
    at += len;
    startAt += len;
  }
  const unassigned: FleetResult['unassigned'] = [];
  for (let k = 0; k < out[0]!; k++) {
    const code = out[startAt + 2 * k + 1]!;
    const reason = REASONS[code];
    if (!reason) throw new SolverError('worker_failed', `solver returned an unknown reason code ${code}`);
    unassigned.push({ job: out[startAt + 2 * k]!, reason });
  }
  return {
    routes,
    unassigned,
    cost: {
      unassigned: out[0]!,
      lateness: out[1]!,
      main: out[2]!,
      vehicles: out[5]!,
      duration: out[6]!,
      distance: out[7]!,
    },
    iterations: out[3]!,
    bestIteration: out[4]!,
  };
}

/** A used vehicle's breaks from the output's tail (start, stops before it) given their durations, by start. */
function readBreaks(out: Float64Array, at: number, durations: readonly number[]): BreakTimes[] {
  const list = durations.map((duration, index) => {
    const startS = out[at + BREAK_FIELDS * index]!;
    const afterStops = out[at + BREAK_FIELDS * index + 1]!;
    return { index, startS, endS: startS + duration, afterStops, nextArrivalS: out[at + BREAK_FIELDS * index + 2]! };
  });
  return list.sort((a, b) => a.startS - b.startS || a.afterStops - b.afterStops);
}

/** The smallest time limit passed on: 0 would mean "none". */
const LEAST_TIME_LIMIT_MS = 0.001;

/**
 * Solve through the module's `solve_fleet` (the caller checked the ABI version). `spentMs` (the time
 * since the caller's clock started for this call) is taken off the time limit when the module is
 * called, so that marshalling counts against the budget as well.
 */
export function runFleet(
  e: SolverExports,
  p: FleetProblem,
  o: FleetOptions,
  spentMs: () => number = () => 0,
  abiVersion = 4,
): Omit<FleetResult, 'solveMs'> {
  checkFleetProblem(p, o);
  const f = flattenFleet(p, abiVersion);
  if (f.extra !== null && abiVersion < 4)
    throw new SolverError(
      'unsupported',
      `solver module of ABI version ${abiVersion} cannot take time windows or route limits (needs 4)`,
    );
  const breaks = breakDurations(p);
  const outLength = fleetOutLength(f.nv, f.nj, abiVersion, breaks.flat().length);
  const [out] = callModule(
    e,
    [p.travel, p.distance, f.vehicles, f.jobs, f.capacity, f.demand, f.allowed, f.objective, f.extra],
    [outLength],
    ([travel, distance, vehicles, jobs, capacity, demand, allowed, objective, extra], [outPtr]) => {
      const limit = o.timeLimitMs ?? 0;
      const timeLimitMs = limit > 0 ? Math.max(LEAST_TIME_LIMIT_MS, limit - spentMs()) : 0;
      return e.solve_fleet!(
        travel!,
        distance!,
        p.locations,
        vehicles!,
        f.nv,
        jobs!,
        f.nj,
        f.dims,
        capacity!,
        demand!,
        allowed!,
        objective!,
        (o.seed ?? 1) >>> 0,
        timeLimitMs,
        o.maxIterations ?? 0,
        outPtr!,
        o.stallIterations ?? 0,
        extra!,
        f.extra?.length ?? 0,
      );
    },
    'the fleet problem',
  );
  return readFleetOut(out!, f.nv, f.nj, abiVersion, breaks);
}

/** Plan several vehicles on an instance (ABI 3 or later); SolverError('unsupported') on an older module. */
export function solveFleet(s: WasmSolver, p: FleetProblem, o: FleetOptions = {}): FleetResult {
  if (!s.canPlanFleets)
    throw new SolverError('unsupported', `solver module of ABI version ${s.abiVersion} cannot plan fleets (needs 3)`);
  const t0 = s.clock();
  const r = runFleet(s.exports, p, o, () => s.clock() - t0, s.abiVersion);
  return { ...r, solveMs: s.clock() - t0 };
}
