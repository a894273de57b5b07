// Vehicles of the fleet playground: one table row → one vehicle of POST /api/v1/plans, and the sample day.

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

function wholeNumbers(text, what) {
  const parts = text.split(/[,;\s]+/).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p)))
    throw new Error(`${what} must be whole numbers separated by commas, e.g. 500,40 (got "${text}")`);
  return parts.map(Number);
}

/** A decimal number as typed (a coordinate, kilometres). */
function coordinate(text, what) {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text)) throw new Error(`${what} must be a number (got "${text}")`);
  return Number(text);
}

const LIMITS = {
  maxDurationMin: 'the longest route',
  maxDrivingMin: 'the most driving',
  maxDistanceKm: 'the longest route in km',
};

const BREAK = /^(\d{2}:\d{2})\s*[-–]\s*(\d{2}:\d{2})[\s,]+(\d{1,4})\s*(min)?$/;

/** "12:00-14:00 30" → a break of 30 min taken inside 12:00–14:00 (the API's vehicle break; one per table row). */
function breakOf(text, vehicleId) {
  const match = BREAK.exec(text);
  if (!match || !TIME.test(match[1]) || !TIME.test(match[2]))
    throw new Error(`break must be a window and minutes, e.g. 12:00-14:00 30 (got "${text}")`);
  return {
    id: `${vehicleId}-break`,
    window: { start: match[1], end: match[2] },
    durationSeconds: Number(match[3]) * 60,
  };
}

/**
 * @param cells {id, latitude, longitude, returns, shiftStart, shiftEnd, capacity, maxStops, maxDurationMin,
 *   maxDrivingMin, maxDistanceKm, break} as typed (strings, returns a boolean)
 * @returns a Vehicle of the API: {id, start, end?, shift?, capacity?, maxStops?, maxDurationMin?, maxDrivingMin?,
 *   maxDistanceKm?, breaks?}
 */
export function vehicleFromCells(cells, where) {
  try {
    if (!cells.id) throw new Error('the id is empty');
    const start = {
      latitude: coordinate(cells.latitude, 'start latitude'),
      longitude: coordinate(cells.longitude, 'start longitude'),
    };
    const vehicle = { id: cells.id, start };
    if (cells.returns) vehicle.end = { ...start };
    for (const [field, value] of [
      ['start', cells.shiftStart],
      ['end', cells.shiftEnd],
    ]) {
      if (!value) continue;
      if (!TIME.test(value)) throw new Error(`shift ${field} must be a time HH:MM (got "${value}")`);
      vehicle.shift = { ...vehicle.shift, [field]: value };
    }
    if (cells.capacity) vehicle.capacity = wholeNumbers(cells.capacity, 'capacity');
    for (const field of ['maxDurationMin', 'maxDrivingMin']) {
      if (!cells[field]) continue;
      if (!/^\d+$/.test(cells[field]))
        throw new Error(`${LIMITS[field]} must be whole minutes (got "${cells[field]}")`);
      vehicle[field] = Number(cells[field]);
    }
    if (cells.maxDistanceKm) vehicle.maxDistanceKm = coordinate(cells.maxDistanceKm, LIMITS.maxDistanceKm);
    if (cells.break) vehicle.breaks = [breakOf(cells.break, cells.id)];
    if (cells.maxStops) {
      if (!/^\d+$/.test(cells.maxStops) || Number(cells.maxStops) < 1)
        throw new Error(`max stops must be a whole number from 1 (got "${cells.maxStops}")`);
      vehicle.maxStops = Number(cells.maxStops);
    }
    return vehicle;
  } catch (err) {
    throw new Error(`${where}: ${err.message}`);
  }
}

/** The table's cells of an API vehicle (the inverse of vehicleFromCells for what the table can hold). */
export function cellsOfVehicle(vehicle) {
  return {
    id: vehicle.id ?? '',
    latitude: vehicle.start ? String(vehicle.start.latitude) : '',
    longitude: vehicle.start ? String(vehicle.start.longitude) : '',
    returns: Boolean(vehicle.end),
    shiftStart: vehicle.shift?.start ?? '',
    shiftEnd: vehicle.shift?.end ?? '',
    capacity: vehicle.capacity ? vehicle.capacity.join(',') : '',
    maxStops: vehicle.maxStops ? String(vehicle.maxStops) : '',
    maxDurationMin: vehicle.maxDurationMin ? String(vehicle.maxDurationMin) : '',
    maxDrivingMin: vehicle.maxDrivingMin ? String(vehicle.maxDrivingMin) : '',
    maxDistanceKm: vehicle.maxDistanceKm ? String(vehicle.maxDistanceKm) : '',
    break: vehicle.breaks?.length
      ? `${vehicle.breaks[0].window.start}-${vehicle.breaks[0].window.end} ${vehicle.breaks[0].durationSeconds / 60}`
      : '',
  };
}

const DEPOT = { latitude: 48.8566, longitude: 2.3522 };
// fixed, so that the sample always needs both vans: 16 parcels leave the depot against 12 per van; with the
// 2 shipments it is 10 stops, a test key's most per call
const SAMPLE_STOPS = [
  ['A01', 48.8738, 2.295, 3],
  ['A02', 48.8867, 2.3431, 3],
  ['A03', 48.8462, 2.3371, 2, { notBefore: '09:30' }],
  ['A04', 48.853, 2.3499, 3, { deadline: '09:00' }],
  ['A05', 48.8606, 2.3376, 2, { deadline: '10:30' }],
  ['A06', 48.8412, 2.321, 3],
];
// goods picked up on the way and delivered elsewhere: a return from a shop, a parcel between two offices
const SAMPLE_SHIPMENTS = [
  {
    id: 'return-1',
    demand: [2],
    pickup: { latitude: 48.8532, longitude: 2.3692, serviceSeconds: 300 },
    delivery: { latitude: 48.8841, longitude: 2.3322, timeWindows: [{ start: '09:00', end: '11:00' }] },
  },
  {
    id: 'parcel-2',
    demand: [1],
    pickup: { latitude: 48.8353, longitude: 2.3725, serviceSeconds: 120 },
    delivery: { latitude: 48.865, longitude: 2.3817, serviceSeconds: 120, deadline: '11:30' },
  },
];

/**
 * Two vans from one depot (capacity 12 parcels, shift 08:00–17:00), 6 stops with parcels (an opening time,
 * two deadlines) and 2 shipments (one delivered inside a time window, one by a deadline): 10 stops in all.
 */
export function sampleFleet() {
  const vehicles = ['van-1', 'van-2'].map((id) => ({
    id,
    start: { ...DEPOT },
    end: { ...DEPOT },
    shift: { start: '08:00', end: '17:00' },
    capacity: [12],
  }));
  const stops = SAMPLE_STOPS.map(([id, latitude, longitude, parcels, extra]) => ({
    id,
    latitude,
    longitude,
    serviceSeconds: 180,
    demand: [parcels],
    ...extra,
  }));
  return { vehicles, stops, shipments: structuredClone(SAMPLE_SHIPMENTS) };
}
