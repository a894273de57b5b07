// Vehicles of the fleet playground: one table row → one vehicle of POST /api/v1/plans, and the sample day.

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

function wholeNumbers(text, what) {
  const parts = text.split(/[,;\s]+/).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p)))
    throw new Error(`${what} must be whole numbers separated by commas, e.g. 500,40 (got "${text}")`);
  return parts.map(Number);
}

function coordinate(text, what) {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text)) throw new Error(`${what} must be a number (got "${text}")`);
  return Number(text);
}

/**
 * @param cells {id, latitude, longitude, returns, shiftStart, shiftEnd, capacity, maxStops} as typed (strings, returns a boolean)
 * @returns a Vehicle of the API: {id, start, end?, shift?, capacity?, maxStops?}
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
  };
}

const DEPOT = { latitude: 48.8566, longitude: 2.3522 };
// fixed, so that the sample always needs both vans: 20 parcels against 12 per van
const SAMPLE_STOPS = [
  ['A01', 48.8738, 2.295, 2],
  ['A02', 48.8867, 2.3431, 3],
  ['A03', 48.8462, 2.3371, 1, { notBefore: '09:30' }],
  ['A04', 48.853, 2.3499, 2, { deadline: '09:00' }],
  ['A05', 48.8606, 2.3376, 3],
  ['A06', 48.8412, 2.321, 2],
  ['A07', 48.8796, 2.373, 1, { deadline: '10:30' }],
  ['A08', 48.8353, 2.3725, 2],
  ['A09', 48.865, 2.3817, 3, { notBefore: '10:00' }],
  ['A10', 48.847, 2.395, 1],
];

/** Two vans from one depot (capacity 12 parcels, shift 08:00–17:00) and 10 stops with parcels, two opening times and two deadlines. */
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
  return { vehicles, stops };
}
