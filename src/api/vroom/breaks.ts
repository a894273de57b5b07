/**
 * VROOM vehicle breaks: the request's shape (built from schema.ts's parts, so that this file does not import it)
 * and their mapping onto the fleet solver's breaks (solver-rs/src/fleet/breaks.rs): one `time_windows` entry, its
 * `service` as the duration. Several windows and `max_load` answer 400 naming them (unsupported.ts).
 */
import type { FleetBreak } from '../../solver/fleet-types.js';

/** Most breaks of one vehicle (as plans). */
export const MAX_VROOM_BREAKS = 5;

export interface VroomBreak {
  id: number;
  time_windows: ReadonlyArray<readonly number[]>;
  service?: number;
  description?: string;
}

export const vroomBreaksSchema = <const W, const S, const I, const T>(window: W, service: S, id: I, text: T) =>
  ({
    type: 'array',
    maxItems: MAX_VROOM_BREAKS,
    'x-message': `must list at most ${MAX_VROOM_BREAKS} breaks`,
    description: `Up to ${MAX_VROOM_BREAKS} breaks (VROOM \`break\`), each with one time window. A used vehicle takes every one, starting inside its window, while it stands (before a leg, waiting at a task, or at its end); an unused vehicle takes none.`,
    items: {
      title: 'VroomBreak',
      type: 'object',
      properties: {
        id,
        time_windows: {
          type: 'array',
          minItems: 1,
          maxItems: 1,
          items: window,
          'x-message':
            'must hold exactly one [start, end] window: several windows per break are not supported; send the one the break should be taken in',
          description: 'Exactly one `[start, end]`: the break starts inside it.',
        },
        service,
        description: text,
      },
      required: ['id', 'time_windows'],
      additionalProperties: false,
    },
  }) as const;

/** A vehicle's breaks for the solver, in the order given. */
export function fleetBreaks(breaks: readonly VroomBreak[] | undefined): FleetBreak[] {
  return (breaks ?? []).map((b) => ({
    start: b.time_windows[0]![0]!,
    end: b.time_windows[0]![1]!,
    duration: b.service ?? 0,
  }));
}
