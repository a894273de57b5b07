/**
 * Marshalling of `solve_fleet` (ABI 3): the flat arrays documented in
 * solver-rs/src/fleet/flat.rs, written into the module's memory and the
 * answer read back. Integer quantities cross as f64 (exact up to 2^53);
 * -1 stands for an absent optional field.
 */
import { SolverError } from './errors.ts';
import { Status, invalid, statusName, type SolverExports, type WasmSolver } from './abi.ts';
import { SERVICE_OBJECTIVE, type FleetOptions, type FleetProblem, type FleetResult, type FleetRoute, type UnassignedReason } from './fleet-types.ts';

export const VEHICLE_FIELDS = 5;
export const JOB_FIELDS = 5;
const OUT_HEAD = 8;
const ROUTE_FIELDS = 4;
/** Limits of the module (fleet/model.rs). */
export const MAX_VEHICLES = 64;
export const MAX_DIMS = 8;
export const MAX_LOCATIONS = 8192;
/** reasons::Reason as numbers, in code order. */
export const REASONS: Record<number, UnassignedReason> = { 1: 'capacity', 2: 'shift', 3: 'allowedVehicles', 4: 'unreachable' };

export function fleetOutLength(vehicles: number, jobs: number): number {
  return OUT_HEAD + ROUTE_FIELDS * vehicles + 2 * jobs;
}

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x);
const isU32 = (x: number) => Number.isInteger(x) && x >= 0 && x <= 0xffffffff;

/** What the module cannot check itself: array lengths and types, allowed indices within the 64-bit masks. */
export function checkFleetProblem(p: FleetProblem, o: FleetOptions): void {
  const m = p.locations;
  if (!Number.isInteger(m) || m < 1 || m > MAX_LOCATIONS) throw invalid(Status.BAD_MATRIX, `locations must be an integer in 1..${MAX_LOCATIONS}`);
  if (!(p.travel instanceof Int32Array) || p.travel.length !== m * m) throw invalid(Status.BAD_MATRIX, `travel must be an Int32Array of ${m * m}`);
  if (p.distance !== undefined && (!(p.distance instanceof Int32Array) || p.distance.length !== m * m)) {
    throw invalid(Status.BAD_MATRIX, `distance must be an Int32Array of ${m * m} or absent`);
  }
  if (!Array.isArray(p.vehicles) || p.vehicles.length === 0) throw invalid(Status.NO_VEHICLES, 'give at least one vehicle');
  if (p.vehicles.length > MAX_VEHICLES) throw invalid(Status.TOO_MANY_VEHICLES, `at most ${MAX_VEHICLES} vehicles`);
  if (!Array.isArray(p.jobs) || p.jobs.length === 0) throw invalid(Status.NO_JOBS, 'give at least one job');
  const numbers = (what: string, xs: Array<number | undefined>) => {
    for (const x of xs) if (x !== undefined && !isInt(x)) throw invalid(Status.BAD_NUMBER, `${what}: ${String(x)} is not a safe integer`);
  };
  p.vehicles.forEach((v, k) => {
    numbers(`vehicle ${k}`, [v.start, v.end, v.shiftStart, v.shiftEnd, v.maxStops, ...(v.capacity ?? [])]);
    if (!isInt(v.start)) throw invalid(Status.BAD_LOCATION, `vehicle ${k}: start must be a location index`);
  });
  p.jobs.forEach((j, k) => {
    numbers(`job ${k}`, [j.location, j.service, j.ready, j.due, j.deadline, ...(j.demand ?? [])]);
    if (!isInt(j.location)) throw invalid(Status.BAD_LOCATION, `job ${k}: location must be a location index`);
    for (const v of j.allowedVehicles ?? []) {
      if (!Number.isInteger(v) || v < 0 || v >= p.vehicles.length) throw invalid(Status.BAD_VEHICLE_INDEX, `job ${k}: allowed vehicle ${v} is not a vehicle index`);
    }
  });
  const ob = p.objective ?? SERVICE_OBJECTIVE;
  numbers('objective', [ob.vehicleCost, ob.durationWeight, ob.distanceWeight]);
  const t = o.timeLimitMs ?? 0;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) throw invalid(Status.BAD_TIME_LIMIT, 'timeLimitMs must be a finite number >= 0');
  for (const [k, v] of [['seed', o.seed], ['maxIterations', o.maxIterations], ['stallIterations', o.stallIterations]] as const) {
    if (v !== undefined && !isU32(v)) throw invalid(Status.BAD_NUMBER, `${k} must be an integer in 0..2^32-1`);
  }
}

/** The flat arrays of a problem (flat.rs's input). */
export function flattenFleet(p: FleetProblem) {
  const nv = p.vehicles.length;
  const nj = p.jobs.length;
  const dims = Math.max(0, ...p.vehicles.map((v) => v.capacity?.length ?? 0), ...p.jobs.map((j) => j.demand?.length ?? 0));
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
  const allowed = restricted ? new Uint32Array(2 * nj) : null;
  p.jobs.forEach((j, k) => {
    jobs.set([j.location, j.service ?? 0, j.ready ?? 0, opt(j.due), opt(j.deadline)], k * JOB_FIELDS);
    demand.set(j.demand ?? [], k * dims);
    if (allowed) {
      const list = j.allowedVehicles ?? Array.from({ length: nv }, (_, v) => v);
      for (const v of list) allowed[2 * k + (v >= 32 ? 1 : 0)] |= 1 << (v % 32);
    }
  });
  const ob = p.objective ?? SERVICE_OBJECTIVE;
  const objective = new Float64Array([ob.vehicleCost, ob.durationWeight, ob.distanceWeight]);
  return { nv, nj, dims, vehicles, jobs, capacity, demand, allowed, objective };
}

/** Read flat.rs's output array. */
export function readFleetOut(out: Float64Array, nv: number): Omit<FleetResult, 'solveMs'> {
  const routes: FleetRoute[] = [];
  let at = OUT_HEAD + ROUTE_FIELDS * nv;
  const lens = Array.from({ length: nv }, (_, v) => out[OUT_HEAD + ROUTE_FIELDS * v]);
  const assigned = lens.reduce((s, x) => s + x, 0);
  let startAt = at + assigned;
  for (let v = 0; v < nv; v++) {
    const r = OUT_HEAD + ROUTE_FIELDS * v;
    const len = lens[v];
    if (len > 0) {
      routes.push({
        vehicle: v,
        jobs: Array.from(out.subarray(at, at + len)),
        starts: Array.from(out.subarray(startAt, startAt + len)),
        duration: out[r + 1],
        distance: out[r + 2],
        lateness: out[r + 3],
      });
    }
    at += len;
    startAt += len;
  }
  const unassigned: FleetResult['unassigned'] = [];
  for (let k = 0; k < out[0]; k++) {
    const code = out[startAt + 2 * k + 1];
    const reason = REASONS[code];
    if (!reason) throw new SolverError('worker_failed', `solver returned an unknown reason code ${code}`);
    unassigned.push({ job: out[startAt + 2 * k], reason });
  }
  return {
    routes,
    unassigned,
    cost: { unassigned: out[0], lateness: out[1], main: out[2], vehicles: out[5], duration: out[6], distance: out[7] },
    iterations: out[3],
    bestIteration: out[4],
  };
}

/** The smallest time limit passed on: 0 would mean "none". */
const LEAST_TIME_LIMIT_MS = 0.001;

/**
 * Solve through the module's `solve_fleet` (the caller checked the ABI version). `spentMs` (the time
 * since the caller's clock started for this call) is taken off the time limit when the module is
 * called, so that marshalling counts against the budget as well.
 */
export function runFleet(e: SolverExports, p: FleetProblem, o: FleetOptions, spentMs: () => number = () => 0): Omit<FleetResult, 'solveMs'> {
  checkFleetProblem(p, o);
  const f = flattenFleet(p);
  const blocks: Array<[number, number, number]> = [];
  let trapped = false;
  const put = (src: Int32Array | Float64Array | Uint32Array | null | undefined): number => {
    if (!src || src.length === 0) return 0;
    const align = src.BYTES_PER_ELEMENT;
    const ptr = e.alloc(src.byteLength, align);
    if (ptr === 0) throw new SolverError('trap', 'solver out of memory');
    blocks.push([ptr, src.byteLength, align]);
    new Uint8Array(e.memory.buffer).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
    return ptr;
  };
  try {
    const outLen = fleetOutLength(f.nv, f.nj);
    const outPtr = put(new Float64Array(outLen));
    const limit = o.timeLimitMs ?? 0;
    const timeLimitMs = limit > 0 ? Math.max(LEAST_TIME_LIMIT_MS, limit - spentMs()) : 0;
    const status = e.solve_fleet!(
      put(p.travel), put(p.distance), p.locations, put(f.vehicles), f.nv, put(f.jobs), f.nj, f.dims,
      put(f.capacity), put(f.demand), put(f.allowed), put(f.objective),
      (o.seed ?? 1) >>> 0, timeLimitMs, o.maxIterations ?? 0, outPtr, o.stallIterations ?? 0,
    );
    if (status !== Status.OK) throw invalid(status, `solver rejected the fleet problem: ${statusName(status)}`);
    return readFleetOut(new Float64Array(e.memory.buffer, outPtr, outLen).slice(), f.nv);
  } catch (err) {
    trapped = err instanceof WebAssembly.RuntimeError;
    throw err;
  } finally {
    // after a trap the allocator state is unknown: the caller drops the instance
    if (!trapped) for (const [ptr, size, align] of blocks) e.dealloc(ptr, size, align);
  }
}

/** Plan several vehicles on an instance (ABI 3); SolverError('unsupported') on an older module. */
export function solveFleet(s: WasmSolver, p: FleetProblem, o: FleetOptions = {}): FleetResult {
  if (!s.canPlanFleets) throw new SolverError('unsupported', `solver module of ABI version ${s.abiVersion} cannot plan fleets (needs 3)`);
  const t0 = s.clock();
  const r = runFleet(s.exports, p, o, () => s.clock() - t0);
  return { ...r, solveMs: s.clock() - t0 };
}
