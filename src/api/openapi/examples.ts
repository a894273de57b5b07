/**
 * Request and response examples of the OpenAPI document. The responses were
 * produced by the service itself (built-in travel model, default settings);
 * the linter checks every example against its schema.
 */
export const OPTIMIZE_REQUEST_EXAMPLES = {
  coordinates: {
    summary: 'Coordinates, a return point, deadlines and service times (works with a test key)',
    value: {
      start: { latitude: 48.8566, longitude: 2.3522 },
      end: { latitude: 48.8566, longitude: 2.3522 },
      departureTime: '2026-06-01T08:00:00+02:00',
      stops: [
        { id: 'louvre', latitude: 48.8606, longitude: 2.3376, deadline: '08:03' },
        { id: 'notre-dame', latitude: 48.853, longitude: 2.3499, serviceSeconds: 300 },
        { id: 'etoile', latitude: 48.8738, longitude: 2.295, deadline: '09:30', serviceSeconds: 120 },
      ],
    },
  },
  addresses: {
    summary: 'Street addresses mixed with coordinates (live keys only)',
    value: {
      start: { latitude: 48.8566, longitude: 2.3522 },
      departureTime: '2026-06-01T08:00:00+02:00',
      avoidTolls: true,
      stops: [
        { id: 'louvre', latitude: 48.8606, longitude: 2.3376 },
        { id: 'notre-dame', latitude: 48.853, longitude: 2.3499, serviceSeconds: 300 },
        { id: 'bastille', street: '1 place de la Bastille', postalCode: '75004', city: 'Paris' },
      ],
    },
  },
  ownMatrix: {
    summary: 'Extension: your own travel times (matrix, locations, {index}) and the route line (geometry)',
    value: {
      start: { index: 0 },
      end: { index: 0 },
      stops: [
        { id: 'a', index: 1, serviceSeconds: 120 },
        { id: 'b', index: 2, deadline: '08:20' },
      ],
      matrix: {
        durations: [
          [0, 600, 900],
          [620, 0, 420],
          [880, 400, 0],
        ],
        distances: [
          [0, 4200, 6100],
          [4300, 0, 2900],
          [6000, 2800, 0],
        ],
      },
      locations: [
        { latitude: 48.8566, longitude: 2.3522 },
        { latitude: 48.8606, longitude: 2.3376 },
        { latitude: 48.853, longitude: 2.3499 },
      ],
      departureTime: '2026-06-01T08:00:00+02:00',
      geometry: true,
    },
  },
  minimal: {
    summary: 'The least a call needs: a start and two stops',
    value: {
      start: { latitude: 48.8566, longitude: 2.3522 },
      stops: [
        { id: 'a', latitude: 48.8606, longitude: 2.3376 },
        { id: 'b', latitude: 48.853, longitude: 2.3499 },
      ],
    },
  },
};

export const OPTIMIZE_RESPONSE_EXAMPLES = {
  testKey: {
    summary: 'Test key: the "coordinates" request; the Louvre is reached 1 min 31 s after its 08:03 deadline',
    value: {
      order: ['louvre', 'etoile', 'notre-dame'],
      waypoints: [
        { id: 'louvre', order: 1, latitude: 48.8606, longitude: 2.3376 },
        { id: 'etoile', order: 2, latitude: 48.8738, longitude: 2.295 },
        { id: 'notre-dame', order: 3, latitude: 48.853, longitude: 2.3499 },
      ],
      totalDistanceKm: 12.57,
      estimatedTimeMin: 36.4,
      schedule: [
        { colisId: 'louvre', arrivee: '2026-06-01T06:04:31Z' },
        { colisId: 'etoile', arrivee: '2026-06-01T06:14:46Z' },
        { colisId: 'notre-dame', arrivee: '2026-06-01T06:29:40Z' },
      ],
      departAt: '2026-06-01T06:00:00Z',
      returnAt: '2026-06-01T06:36:22Z',
      lateStops: [{ colisId: 'louvre', arrivee: '2026-06-01T06:04:31Z', limite: '2026-06-01T06:03:00Z', retardMin: 2 }],
      stopsCharged: 0,
      sandbox: true,
      sandboxStopsRemainingToday: 197,
    },
  },
  liveKey: {
    summary: 'Live key: the "addresses" request, no end point (returnAt null), nothing late',
    value: {
      order: ['bastille', 'louvre', 'notre-dame'],
      waypoints: [
        { id: 'bastille', order: 1, latitude: 48.8601, longitude: 2.3507 },
        { id: 'louvre', order: 2, latitude: 48.8606, longitude: 2.3376 },
        { id: 'notre-dame', order: 3, latitude: 48.853, longitude: 2.3499 },
      ],
      totalDistanceKm: 3.38,
      estimatedTimeMin: 15.2,
      schedule: [
        { colisId: 'bastille', arrivee: '2026-06-01T06:01:35Z' },
        { colisId: 'louvre', arrivee: '2026-06-01T06:05:20Z' },
        { colisId: 'notre-dame', arrivee: '2026-06-01T06:10:09Z' },
      ],
      departAt: '2026-06-01T06:00:00Z',
      returnAt: null,
      lateStops: null,
      stopsCharged: 3,
      stopsBalance: 1997,
    },
  },
  ownMatrix: {
    summary:
      'Extension: the "ownMatrix" request with a test key: arrivals are the given durations plus service (a at 600 s, b at 600 + 120 + 420 s), the line is straight',
    value: {
      order: ['a', 'b'],
      waypoints: [
        { id: 'a', order: 1, latitude: 48.8606, longitude: 2.3376 },
        { id: 'b', order: 2, latitude: 48.853, longitude: 2.3499 },
      ],
      totalDistanceKm: 13.1,
      estimatedTimeMin: 33.7,
      schedule: [
        { colisId: 'a', arrivee: '2026-06-01T06:10:00Z' },
        { colisId: 'b', arrivee: '2026-06-01T06:19:00Z' },
      ],
      departAt: '2026-06-01T06:00:00Z',
      returnAt: '2026-06-01T06:33:40Z',
      lateStops: null,
      geometry: 'wheiHgljM_XfzAnn@{kAoUkM',
      geometrySource: 'straight',
      legs: [
        { distanceM: 4200, durationS: 600 },
        { distanceM: 2900, durationS: 420 },
        { distanceM: 6000, durationS: 880 },
      ],
      stopsCharged: 0,
      sandbox: true,
      sandboxStopsRemainingToday: 198,
    },
  },
};

export const BALANCE_EXAMPLES = {
  live: { summary: 'Live key', value: { stopsBalance: 1997 } },
  test: {
    summary: 'Test key',
    value: { sandbox: true, sandboxStopsRemainingToday: 197, sandboxCallsRemainingThisMinute: 19 },
  },
};

export const CHECKOUT_REQUEST_EXAMPLES = {
  pack: {
    summary: '2,000 stops, key sent to this address',
    value: { email: 'dispatch@example.com', packId: 'pack_2k' },
  },
};

export const CHECKOUT_RESPONSE_EXAMPLES = {
  stripe: {
    summary: 'A Stripe Checkout page',
    value: { url: 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3d4e5f6g7h8i9j0' },
  },
};

export const PACKS_EXAMPLES = {
  defaults: {
    summary: 'The default prices, in EUR cents',
    value: {
      packs: [
        { id: 'pack_2k', stops: 2000, priceCents: 2900, currency: 'eur' },
        { id: 'pack_10k', stops: 10000, priceCents: 9900, currency: 'eur' },
        { id: 'pack_50k', stops: 50000, priceCents: 39900, currency: 'eur' },
        { id: 'pack_250k', stops: 250000, priceCents: 149900, currency: 'eur' },
      ],
    },
  },
};
