/**
 * Vehicle breaks in a plan: the request's shape, the checks JSON Schema cannot make (ids unique per vehicle, a window
 * that does not end before it starts) and the solver's times (seconds after the departure). The solver schedules
 * them (solver-rs/src/fleet/breaks.rs); steps.ts shows them.
 */
import type { DateTime } from 'luxon';
import { timeOfDaySchema } from '../../calls/location-schema.js';
import { invalidRequest } from '../../errors.js';
import type { FleetBreak } from '../../solver/fleet-types.js';
import { timeOfDayInstant } from '../../schedule/index.js';

/** Most breaks of one vehicle. */
export const MAX_VEHICLE_BREAKS = 5;
/** The longest break: a day. */
export const MAX_BREAK_SECONDS = 86_400;

export const breakSchema = {
  title: 'VehicleBreak',
  description:
    'A break the driver takes when the vehicle is used (hard): it starts inside its window and lasts durationSeconds, taken while the vehicle stands (before driving to the next stop, while waiting at a stop, or at the end point).',
  type: 'object',
  properties: {
    id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Caller-chosen break id, unique within its vehicle (1 to 100 characters).',
      examples: ['lunch'],
    },
    window: {
      title: 'BreakWindow',
      description: 'When the break may start, Europe/Paris local time on the Paris calendar day of departure.',
      type: 'object',
      properties: {
        start: timeOfDaySchema('The break starts at this time or later.', '12:00'),
        end: timeOfDaySchema('The break starts at this time or earlier; not before `start`.', '13:30'),
      },
      required: ['start', 'end'],
      additionalProperties: false,
    },
    durationSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_BREAK_SECONDS,
      'x-message': `must be a whole number of seconds from 0 to ${MAX_BREAK_SECONDS}`,
      description: 'How long the break lasts.',
      examples: [2700],
    },
  },
  required: ['id', 'window', 'durationSeconds'],
  additionalProperties: false,
} as const;

export const vehicleBreaksProperty = {
  breaks: {
    type: 'array',
    maxItems: MAX_VEHICLE_BREAKS,
    items: breakSchema,
    'x-message': `must list at most ${MAX_VEHICLE_BREAKS} breaks {"id", "window": {"start": "HH:MM", "end": "HH:MM"}, "durationSeconds"}`,
    description: `Up to ${MAX_VEHICLE_BREAKS} breaks, ids unique within the vehicle. A used vehicle takes every one (hard): a stop that would keep a break out of its window goes to another vehicle or is unassigned (reason shift, or timeWindows). An unused vehicle takes none.`,
    examples: [[{ id: 'lunch', window: { start: '12:00', end: '13:30' }, durationSeconds: 2700 }]],
  },
} as const;

interface WithBreaks {
  breaks?: ReadonlyArray<{ id: string; window: { start: string; end: string }; durationSeconds: number }>;
}

/** Ids unique within a vehicle; a window whose end is not before its start. */
export function checkBreaks(vehicles: readonly WithBreaks[]): void {
  vehicles.forEach((v, i) => {
    const seen = new Map<string, number>();
    (v.breaks ?? []).forEach((b, k) => {
      const path = `vehicles[${i}].breaks[${k}]`;
      const first = seen.get(b.id);
      if (first !== undefined)
        throw invalidRequest(
          `${path}.id ${JSON.stringify(b.id)} repeats vehicles[${i}].breaks[${first}].id: break ids must be unique within a vehicle`,
          `${path}.id`,
        );
      seen.set(b.id, k);
      if (b.window.end < b.window.start)
        throw invalidRequest(
          `${path}.window.end "${b.window.end}" must not be before its start "${b.window.start}" (a break window lies within one Paris calendar day)`,
          `${path}.window.end`,
        );
    });
  });
}

/**
 * A vehicle's breaks for the solver, with their index in the request: a window under way at the departure starts at
 * 0; one that ended before the departure is dropped (that break was due before the day's plan starts).
 */
export function solverBreaks(v: WithBreaks, departure: DateTime): { breaks: FleetBreak[]; ids: string[] } {
  const offset = (time: string, overlap: 'earlier' | 'later') =>
    Math.round((timeOfDayInstant(time, departure, overlap).toMillis() - departure.toMillis()) / 1000);
  const breaks: FleetBreak[] = [];
  const ids: string[] = [];
  for (const b of v.breaks ?? []) {
    const end = offset(b.window.end, 'later');
    if (end < 0) continue;
    breaks.push({ start: Math.max(0, offset(b.window.start, 'earlier')), end, duration: b.durationSeconds });
    ids.push(b.id);
  }
  return { breaks, ids };
}
