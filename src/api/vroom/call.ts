/**
 * A VROOM request as the service works on it: its tasks (a job is one, a shipment two: its pickup, then its
 * delivery), each with its amounts, windows and skills; the labelled locations of the call (each vehicle's start
 * and end, then the tasks), which the shared steps resolve (src/calls/steps.ts); and the caller's matrix, if any.
 * It is a paid request (src/calls/paid-route.ts): `stops` are the tasks, one charged stop each.
 */
import type { PaidRequest } from '../../calls/paid-route.js';
import type { LabelledLocation } from '../../calls/locations.js';
import type { GivenMatrix } from '../../calls/given-matrix.js';
import type { Point } from '../../geo/index.js';
import type { VroomCosts } from './costs.js';
import type { VroomVehicle } from './schema.js';
import type { PlanStep } from './plan-steps.js';

export type TaskType = 'job' | 'pickup' | 'delivery';

export interface VroomTask {
  type: TaskType;
  id: number;
  /** Where it is in the request: `jobs[2]`, `shipments[0].pickup`. */
  path: string;
  description?: string;
  /** `[lon, lat]` as given (echoed in the answer). */
  location?: readonly number[];
  locationIndex?: number;
  /** Before the service; only at a place of its own (src/api/vroom/setup.ts), so always spent. */
  setup: number;
  service: number;
  /** Sorted, overlapping ones merged; absent: no window. */
  windows?: Array<readonly [number, number]>;
  /** Unloaded here, per dimension: a job's delivery (loaded at the start), a shipment's amount at its delivery. */
  delivery: number[];
  /** Loaded here, per dimension: a job's pickup (carried to the end), a shipment's amount at its pickup. */
  pickup: number[];
  skills: readonly number[];
  priority: number;
}

export interface VroomCall extends PaidRequest {
  /** The tasks: jobs in order, then each shipment's pickup and delivery. */
  stops: VroomTask[];
  vehicles: readonly VroomVehicle[];
  /** Task indices of each shipment's pickup and delivery. */
  shipments: Array<{ pickup: number; delivery: number }>;
  /** Every location, labelled: each vehicle's start and end (if any), then the tasks. */
  labelled: LabelledLocation[];
  /** Undefined for a vehicle without a start: its route begins at its first task. */
  vehicleStart: Array<number | undefined>;
  vehicleEnd: Array<number | undefined>;
  /** The coordinates given for each labelled location (null: only an index); what options.g draws. */
  points: Array<Point | null>;
  /** The labelled location of each task. */
  taskAt: number[];
  /** The matrices of the vehicles' profile, when the caller sent them. */
  matrix?: GivenMatrix;
  /** Distances are answered (no matrices, or matrices with distances), as VROOM does with -g or distance matrices. */
  distancesKnown: boolean;
  /** The vehicles' costs (the same for all). */
  costs: VroomCosts;
  /** matrices.{profile}.costs, by the caller's rows. */
  costMatrix?: ReadonlyArray<readonly number[]>;
  /** Amount dimensions of the call (0: no capacity, no load in the answer). */
  dimensions: number;
  /** Every vehicle's speed_factor (they are all the same). */
  speedFactor: number;
  /** options.g: each route's geometry. */
  drawRoutes: boolean;
  /** Plan mode (options.c): each vehicle's route as its steps give it (src/api/vroom/plan-steps.ts); no solve. */
  plan?: PlanStep[][];
}

/** `jobs[2] (id 7)`: how answers name a location (src/calls/locations.ts). */
export const labelOf = (path: string, id: number): string => `${path} (id ${id})`;
