/**
 * The matrices of a VROOM request: those of the vehicles' one profile, checked in VROOM's terms (square, every
 * table the size of durations), as the call's own matrix (src/calls/given-matrix.ts) and its cost matrix.
 */
import { invalidRequest } from '../../errors.js';
import type { GivenMatrix } from '../../calls/given-matrix.js';
import type { VroomRequest } from './schema.js';

export interface ProfileMatrices {
  matrix: GivenMatrix;
  /** matrices.{profile}.costs, by the caller's rows. */
  costs?: ReadonlyArray<readonly number[]>;
}

export function profileMatrices(request: VroomRequest, profile: string): ProfileMatrices | undefined {
  if (!request.matrices) return undefined;
  const [name, matrices] = Object.entries(request.matrices)[0]!;
  if (name !== profile)
    throw invalidRequest(
      `matrices.${name} is not the vehicles' profile (${JSON.stringify(profile)}): send the matrices under "${profile}", or set the vehicles' profile to "${name}"`,
      `matrices.${name}`,
    );
  const rows = matrices.durations.length;
  const check = (table: ReadonlyArray<readonly number[]> | undefined, field: string) => {
    if (!table) return;
    if (table.length !== rows)
      throw invalidRequest(
        `matrices.${name}.${field} has ${table.length} rows but durations has ${rows}: both are over the same rows`,
        `matrices.${name}.${field}`,
      );
    table.forEach((row, i) => {
      if (row.length !== rows)
        throw invalidRequest(
          `matrices.${name}.${field}[${i}] has ${row.length} values but durations has ${rows} rows: the matrices are square, row i column j being from row i to row j`,
          `matrices.${name}.${field}[${i}]`,
        );
    });
  };
  check(matrices.durations, 'durations');
  check(matrices.distances, 'distances');
  check(matrices.costs, 'costs');
  return {
    matrix: { durations: matrices.durations, ...(matrices.distances ? { distances: matrices.distances } : {}) },
    ...(matrices.costs ? { costs: matrices.costs } : {}),
  };
}
