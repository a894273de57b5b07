// A fleet route's timeline for the console: its visits (stops, shipments' pickups and deliveries) and
// breaks in order, from the answer's `steps`, or, in an answer without steps, from its waypoints and schedule.

const VISITS = new Set(['stop', 'pickup', 'delivery']);

/** The request's stops and shipments by id: what the answer's ids refer to. */
export function planInputs(request) {
  return {
    stops: new Map(request.stops.map((s) => [s.id, s])),
    shipments: new Map((request.shipments ?? []).map((s) => [s.id, s])),
  };
}

/** Steps as the answer would have them, for an answer without `steps`: a shipment's first end is its pickup. */
function stepsFromWaypoints(waypoints, schedule, shipments) {
  const picked = new Set();
  return waypoints.map((w, i) => {
    let type = 'stop';
    if (shipments.has(w.id)) {
      type = picked.has(w.id) ? 'delivery' : 'pickup';
      picked.add(w.id);
    }
    const entry = schedule[i];
    return { type, id: w.id, arrival: entry?.arrivee, serviceStart: entry?.serviceStart };
  });
}

/**
 * The rows of a route between its start and its end, in order: each with the step's fields (type, id, arrival,
 * serviceStart?, departure?, load?) plus, for a visit, `order` (its number in the visiting order), `place` (its
 * coordinates: the waypoint's, else the request's), `input` (the request's stop, or the shipment's pickup or
 * delivery) and `late` (its lateStops entry); a break (or any other step) has `order` null.
 */
export function routeVisits(route, { stops, shipments }) {
  const waypoints = [...route.waypoints].sort((a, b) => a.order - b.order);
  const lateStops = route.lateStops ?? [];
  const steps = route.steps
    ? route.steps.filter((s) => s.type !== 'start' && s.type !== 'end')
    : stepsFromWaypoints(waypoints, route.schedule ?? [], shipments);
  let next = 0;
  return steps.map((step) => {
    if (!VISITS.has(step.type)) return { ...step, order: null };
    const waypoint = waypoints[next] ?? {};
    next += 1;
    const input = (step.type === 'stop' ? stops.get(step.id) : shipments.get(step.id)?.[step.type]) ?? {};
    // a shipment's two ends share its id: the late entry of an end is the one arriving when it does
    const late = lateStops.filter((l) => l.colisId === step.id);
    return {
      ...step,
      order: waypoint.order ?? next,
      place: {
        latitude: waypoint.latitude ?? input.latitude,
        longitude: waypoint.longitude ?? input.longitude,
      },
      input,
      late: late.find((l) => l.arrivee === step.arrival) ?? (late.length === 1 && input.deadline ? late[0] : undefined),
    };
  });
}

/** When a visit may be served, as the request gave it: "09:30–…", "08:30–12:00, 16:00–18:30 · due 11:00", or "—". */
export function windowText(input) {
  const { notBefore, deadline, timeWindows } = input ?? {};
  if (!timeWindows?.length) return notBefore || deadline ? `${notBefore ?? '…'}–${deadline ?? '…'}` : '—';
  const windows = timeWindows.map((w) => `${w.start}–${w.end}`).join(', ');
  return [windows, notBefore && `from ${notBefore}`, deadline && `due ${deadline}`].filter(Boolean).join(' · ');
}

export const STEP_NAMES = { stop: 'Stop', pickup: 'Pickup', delivery: 'Delivery', break: 'Break' };
