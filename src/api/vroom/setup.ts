/**
 * VROOM's `setup`: the time it takes to get started at a place, spent before the service of a task reached from
 * another place, not before one that follows at the same place. The solver has no setup of its own; a task whose
 * place no other task and no vehicle start shares is always reached from another place, so there its setup is
 * exactly more service time. A task with a setup at a shared place would need the solver to know which task
 * comes first there: 400 naming its setup.
 */
import { invalidRequest } from '../../errors.js';
import { places } from '../../calls/places.js';
import type { VroomCall } from './call.js';

type Layout = Pick<VroomCall, 'labelled' | 'points' | 'vehicleStart' | 'taskAt' | 'stops'>;

/** Throws for a setup at a place another task or a vehicle start shares (places as the call's matrix rows will be). */
export function checkSetups(call: Layout, withMatrix: boolean): void {
  if (!call.stops.some((t) => t.setup > 0)) return;
  const placeOf = withMatrix
    ? call.labelled.map((l) => ('index' in l.location ? l.location.index : -1))
    : places(call.points.map((p) => p!)).index;
  const shared = new Map<number, number>();
  const visit = (place: number) => shared.set(place, (shared.get(place) ?? 0) + 1);
  call.vehicleStart.forEach((at) => at !== undefined && visit(placeOf[at]!));
  call.taskAt.forEach((at) => visit(placeOf[at]!));
  call.stops.forEach((t, i) => {
    if (t.setup > 0 && shared.get(placeOf[call.taskAt[i]!]!)! > 1)
      throw invalidRequest(
        `${t.path}.setup: a setup time is supported only at a place of its own, and another task or a vehicle start is at this one (the service cannot tell which task there comes first); add the setup to the service of one task there, or leave setup out`,
        `${t.path}.setup`,
      );
  });
}
