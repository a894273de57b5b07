/**
 * Schedule module: arrival times, deadlines and lateness in Europe/Paris.
 *
 * Every rule and rounding is stated in SCHEDULE_RULES below (Markdown, copied
 * into the README). Keep the two in step: the unit tests in
 * test/unit/schedule/ check each rule.
 */
export {
  PARIS_ZONE,
  NO_DEADLINE,
  isValidDepartureTime,
  isValidDeadline,
  resolveDeparture,
  parisWallTimeToInstant,
  deadlineInstant,
  timeOfDayInstant,
  deadlineToOffsetS,
  solverDeadlineOffsetS,
  formatUtc,
  utcClock,
} from './time.js';
export type { WallTime, OverlapRule } from './time.js';
export { buildSchedule, metresToKm, secondsToMin1, retardMinutes } from './build.js';
export type { MatrixLike, ScheduleStop, ScheduleInput, ScheduleEntry, LateStop, ScheduleResult } from './build.js';

export const SCHEDULE_RULES = `### Times, deadlines and lateness

**Departure (\`departureTime\`).**
- Accepted form: \`YYYY-MM-DDTHH:MM\`, optionally \`:SS\` and a fraction of 1 to 9 digits, optionally followed by \`Z\` or \`±HH:MM\` (\`T\` and \`Z\` may be lower case). The date and time must exist (no 2026-02-30, no 24:00, no leap second \`:60\`); anything else is rejected with 400 \`invalid_request\`.
- With \`Z\` or an offset, it is that instant.
- Without an offset, it is Europe/Paris local (wall-clock) time. A time skipped by the spring change (e.g. 2026-03-29T02:30) is moved forward by the length of the gap: 03:30 CEST (01:30Z). A time that happens twice at the autumn change (e.g. 2026-10-25T02:30) is the **earlier** instant: 02:30 CEST (00:30Z).
- Without \`departureTime\`, the departure is the time the request is handled.
- A departure in the past is valid (planning ahead, replaying a day).
- The departure is truncated to the whole second (fractions are dropped); all schedule arithmetic is in whole seconds.

**Deadlines (\`deadline\`, \`HH:MM\`).**
- A deadline is Europe/Paris local time on the **Paris calendar day of the departure** (departure 2026-06-01T23:30Z is 2026-06-02 01:30 in Paris, so deadline 08:00 means 2026-06-02 08:00 Paris time). It never rolls over to the next day.
- A deadline that is already past at departure is valid; that stop is necessarily late.
- A deadline skipped by the spring change (02:30 on 2026-03-29) is moved forward by the length of the gap: 03:30 CEST (01:30Z). A deadline that happens twice at the autumn change (02:30 on 2026-10-25) is the **later** instant, 02:30 CET (01:30Z): the most lenient reading, and the last moment a Paris clock shows that time.

**Arrivals.**
- Arrival at a stop = departure + travel times of the legs so far + the service times (\`serviceSeconds\`) of the stops visited before it. There is no waiting: a vehicle never waits for a time window (plans: except for a stop's \`notBefore\`, below).
- Plans only: a vehicle that arrives before a stop's \`notBefore\` (Paris time on the Paris day of departure) waits; its service starts at \`notBefore\`, given as \`serviceStart\` in the schedule, and the waiting counts in the route's time.
- Each leg's travel time and each service time is rounded to the nearest whole second before adding.
- The service at a stop starts on arrival; the next leg starts when the service ends.

**Response fields.**
- \`departAt\`, every \`schedule[].arrivee\`, \`returnAt\`, \`lateStops[].arrivee\` and \`lateStops[].limite\`: UTC, ISO 8601 with a \`Z\` suffix, whole seconds, no fraction, e.g. \`2026-06-01T06:00:00Z\`.
- \`schedule\`: one entry per stop, in visiting order.
- \`returnAt\`: arrival at the end point after the last stop's service and the last leg; \`null\` when no end point was sent.
- \`lateStops\`: the stops whose arrival is **strictly after** their deadline instant (arriving exactly at the deadline is on time), in visiting order; \`null\` when there are none. Lateness is judged at arrival, not at the end of the service.
  - \`arrivee\`: the estimated arrival (same value as in \`schedule\`); \`limite\`: the deadline instant in UTC (e.g. deadline \`10:00\` on 2026-06-01 → \`2026-06-01T08:00:00Z\`).
  - \`retardMin\`: whole minutes late, rounded **up**: ceil((arrival − deadline) in seconds / 60); so 1 s late gives 1, 60 s gives 1, 61 s gives 2. Always ≥ 1.
- \`totalDistanceKm\`: sum of the leg distances (start → stops in order → end point when one was sent), in km, rounded half up to **2 decimals** (12 345 m → 12.35).
- \`estimatedTimeMin\`: from departure to the arrival at the end point, or, without an end point, to the end of the last stop's service; travel and service times included; in minutes rounded half up to **1 decimal** (3 723 s → 62.1).
`;
