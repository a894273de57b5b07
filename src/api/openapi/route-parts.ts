/**
 * The parts of a route answer that optimize and plans share (waypoints, geocoding, warnings,
 * schedule entries, late stops): one schema object each, so the OpenAPI document names each
 * once as a component and both responses refer to it.
 */
export const dateTime = { type: 'string', format: 'date-time' };
export const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] });

const precision = {
  type: 'string',
  enum: ['housenumber', 'street', 'locality', 'municipality'],
  description:
    'How exactly the address was placed, finest first: at its house number, on its street, at a locality (lieu-dit), or at the centre of its commune.',
};
export const waypointGeocoding = {
  type: 'object',
  description: 'Extension, address stops only (a stop sent as coordinates has none): how the address was placed.',
  properties: {
    precision,
    provider: {
      type: 'string',
      description:
        'The engine that placed it: geoplateforme, ban, nominatim or embedded (the commune-level gazetteer).',
    },
    label: { type: 'string', description: 'What the engine matched, e.g. "8 Boulevard du Port 80000 Amiens".' },
  },
  required: ['precision', 'provider', 'label'],
};
export const waypoint = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    order: { type: 'integer', minimum: 1 },
    latitude: nullable({ type: 'number' }),
    longitude: nullable({ type: 'number' }),
    geocoding: waypointGeocoding,
  },
  required: ['id', 'order', 'latitude', 'longitude'],
};
export const routeWarning = {
  type: 'object',
  description:
    'A location geocoded coarser than its street (precision locality or municipality): its position, arrival time and the distances around it are approximate.',
  properties: {
    code: { type: 'string', enum: ['geocoding_imprecise'] },
    location: { type: 'string', enum: ['start', 'stop', 'end'] },
    stopId: { type: 'string', description: 'location "stop" only: the stop id.' },
    vehicleId: {
      type: 'string',
      description: 'Plans only, location "start" or "end": the vehicle whose start or end it is.',
    },
    precision,
    message: { type: 'string' },
  },
  required: ['code', 'location', 'precision', 'message'],
};
export const scheduleEntry = {
  type: 'object',
  properties: { colisId: { type: 'string' }, arrivee: dateTime },
  required: ['colisId', 'arrivee'],
};
export const lateStop = {
  type: 'object',
  properties: {
    colisId: { type: 'string' },
    arrivee: { type: 'string' },
    limite: { type: 'string' },
    retardMin: { type: 'number' },
  },
  required: ['colisId', 'arrivee', 'limite', 'retardMin'],
};

/** Extension: one leg of a route's line (`"geometry": true`). */
export const routeLeg = {
  type: 'object',
  properties: {
    distanceM: { type: 'integer', minimum: 0 },
    durationS: { type: 'integer', minimum: 0 },
  },
  required: ['distanceM', 'durationS'],
};

/** Extension: the fields of a route answer with `"geometry": true` (optimize's answer, each route of a plan). */
export const routeGeometryFields = {
  geometry: {
    type: 'string',
    description:
      'Extension, with `"geometry": true`: the line of the route, from the start through the stops in visiting order to the end (when any), as an encoded polyline of precision 5 (Google\'s algorithm, latitude first).',
  },
  geometrySource: {
    type: 'string',
    enum: ['osrm', 'straight'],
    description:
      'Extension, with `"geometry": true`: `osrm`, the road line of OSRM\'s Route service; `straight`, straight segments between the points (the built-in model, a call with its own matrix, or a failed Route request).',
  },
  legs: {
    type: 'array',
    items: routeLeg,
    description:
      'Extension, with `"geometry": true`: one per leg in driving order (legs[0]: start → first stop; the last: → end, when any). From OSRM\'s Route service with `geometrySource: "osrm"`, else the travel matrix the schedule used.',
  },
};

/** What a paid call cost, as optimize's spec defines it (plans answer the same fields). */
export const billingFields = {
  stopsCharged: { type: 'integer', description: 'Stops debited by this call (0 for test keys).' },
  stopsBalance: { type: 'integer', description: 'Live keys only: the balance after this call.' },
  sandbox: { type: 'boolean', const: true, description: 'Test keys only: always true.' },
  sandboxStopsRemainingToday: {
    type: 'integer',
    description: "Test keys only: stops left in today's quota (Europe/Paris day).",
  },
};

/** Adds a title, a description and field descriptions to a schema in place (the schemas above stay plain). */
export function annotate(
  schema: Record<string, any>,
  title: string,
  description: string,
  fields: Record<string, string> = {},
): void {
  schema.title = title;
  schema.description = description;
  for (const [name, text] of Object.entries(fields)) schema.properties[name].description = text;
}

annotate(
  waypoint,
  'Waypoint',
  'One stop in visiting order, with the coordinates it was routed from (given, or geocoded).',
  {
    id: 'The stop id.',
    order: '1-based position in the visiting order.',
    latitude: 'Decimal degrees; null only if the point is unknown.',
    longitude: 'Decimal degrees; null only if the point is unknown.',
  },
);
annotate(waypointGeocoding, 'WaypointGeocoding', waypointGeocoding.description);
annotate(routeLeg, 'RouteLeg', 'Extension: one leg of a route, between two consecutive points of its line.', {
  distanceM: 'Metres.',
  durationS: 'Seconds of driving.',
});
annotate(routeWarning, 'RouteWarning', routeWarning.description);
annotate(scheduleEntry, 'ScheduleEntry', 'Estimated arrival at one stop.', {
  colisId: 'The stop id.',
  arrivee: 'Estimated arrival, UTC, whole seconds, `Z` suffix.',
});
annotate(lateStop, 'LateStop', 'A stop estimated to arrive strictly after its deadline.', {
  colisId: 'The stop id.',
  arrivee: 'Estimated arrival, UTC ISO 8601 with `Z` (same value as in schedule).',
  limite: 'The deadline instant, UTC ISO 8601 with `Z`.',
  retardMin: 'Whole minutes late, rounded up (1 s late is 1), always ≥ 1.',
});
