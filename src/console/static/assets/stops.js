// Stops of the playground: the table model, CSV and JSON forms, and the sample.
// A stop here is {id, latitude, longitude, deadline?, serviceSeconds?}; in JSON it may also be an
// address {id, street, postalCode, city, deadline?, serviceSeconds?} (live keys only), which the
// table and the CSV form cannot hold.

export const CSV_HEADER = 'id,latitude,longitude,deadline,serviceSeconds';

/** Splits one CSV line; fields may be "quoted" (with "" for a quote). */
function splitCsvLine(line) {
  const fields = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (c === ',') {
      fields.push(field.trim());
      field = '';
    } else field += c;
  }
  if (quoted) throw new Error('an opening quote is not closed');
  fields.push(field.trim());
  return fields;
}

function number(text, what) {
  if (text === undefined || text === '' || !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new Error(`${what} must be a number (got "${text ?? ''}")`);
  return Number(text);
}

/** One stop from the cells of a row: id, latitude, longitude, then optional deadline and serviceSeconds. */
export function stopFromCells([id, latitude, longitude, deadline, serviceSeconds], where) {
  try {
    if (!id) throw new Error('the id is empty');
    const stop = { id, latitude: number(latitude, 'latitude'), longitude: number(longitude, 'longitude') };
    if (deadline) stop.deadline = deadline;
    if (serviceSeconds !== undefined && serviceSeconds !== '')
      stop.serviceSeconds = number(serviceSeconds, 'serviceSeconds');
    return stop;
  } catch (err) {
    throw new Error(`${where}: ${err.message}`);
  }
}

/** id,latitude,longitude[,deadline][,serviceSeconds]; a header line and blank lines are skipped. */
export function parseCsv(text) {
  const stops = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '' || line.trim().startsWith('#')) return;
    let cells;
    try {
      cells = splitCsvLine(line);
    } catch (err) {
      throw new Error(`CSV line ${index + 1}: ${err.message}`);
    }
    if (stops.length === 0 && cells[0].toLowerCase() === 'id' && /^lat/i.test(cells[1] ?? '')) return;
    if (cells.length < 3 || cells.length > 5)
      throw new Error(
        `CSV line ${index + 1}: expected 3 to 5 fields (id,latitude,longitude[,deadline][,serviceSeconds]), got ${cells.length}`,
      );
    stops.push(stopFromCells(cells, `CSV line ${index + 1}`));
  });
  return stops;
}

function csvField(value) {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** True for a stop given as an address (street, postalCode, city). */
export const isAddressStop = (stop) => 'street' in stop || 'postalCode' in stop || 'city' in stop;

function coordinatesOnly(stops, where) {
  const address = stops.find(isAddressStop);
  if (address)
    throw new Error(`stop "${address.id}" is an address: the ${where} takes coordinates, keep addresses in JSON`);
}

export function toCsv(stops) {
  coordinatesOnly(stops, 'CSV form');
  return [
    CSV_HEADER,
    ...stops.map((s) => [s.id, s.latitude, s.longitude, s.deadline, s.serviceSeconds].map(csvField).join(',')),
  ].join('\n');
}

/**
 * The API's stops array (or a whole request body with a `stops` field). `extraFields` are kept
 * as given (the fleet playground's notBefore, demand, allowedVehicles); the API validates them.
 */
export function parseJson(text, { extraFields = [] } = {}) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`JSON: ${err.message}`);
  }
  if (value && !Array.isArray(value) && Array.isArray(value.stops)) value = value.stops;
  if (!Array.isArray(value))
    throw new Error('JSON: expected an array of stops, e.g. [{"id": "a", "latitude": 48.86, "longitude": 2.34}]');
  return value.map((item, index) => {
    const where = `JSON stops[${index}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new Error(`${where}: expected an object`);
    let stop;
    if (isAddressStop(item)) {
      for (const field of ['street', 'postalCode', 'city']) {
        if (typeof item[field] !== 'string' || item[field].trim() === '')
          throw new Error(`${where}: an address needs street, postalCode and city as text (${field} is missing)`);
      }
      stop = { id: item.id, street: item.street, postalCode: item.postalCode, city: item.city };
    } else {
      if (typeof item.latitude !== 'number' || typeof item.longitude !== 'number') {
        throw new Error(`${where}: give latitude and longitude as numbers, or an address (street, postalCode, city)`);
      }
      stop = { id: item.id, latitude: item.latitude, longitude: item.longitude };
    }
    if (item.deadline !== undefined) stop.deadline = item.deadline;
    if (item.serviceSeconds !== undefined) stop.serviceSeconds = item.serviceSeconds;
    for (const field of extraFields) if (item[field] !== undefined) stop[field] = item[field];
    return stop;
  });
}

/**
 * The fleet playground's optional shipments: blank → {} (none sent), else {shipments: [...]} from the API's
 * shipments array (or a whole request body with a `shipments` field), kept as given; the API validates them.
 */
export function parseShipmentsJson(text) {
  if (text.trim() === '') return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`Shipments JSON: ${err.message}`);
  }
  if (value && !Array.isArray(value) && Array.isArray(value.shipments)) value = value.shipments;
  if (!Array.isArray(value))
    throw new Error(
      'Shipments JSON: expected an array of shipments, e.g. [{"id": "s1", "pickup": {"latitude": 48.85, "longitude": 2.35}, "delivery": {"latitude": 48.88, "longitude": 2.34}}], or leave it empty',
    );
  value.forEach((item, index) => {
    if (!item || typeof item !== 'object' || Array.isArray(item))
      throw new Error(`Shipments JSON [${index}]: expected an object with id, pickup and delivery`);
  });
  return { shipments: value };
}

export function toJson(stops) {
  return JSON.stringify(stops, null, 2);
}

/** `count` random stops around central Paris, some with deadlines and service times. */
export function sampleStops(count = 10, random = Math.random) {
  const stops = [];
  for (let i = 1; i <= count; i += 1) {
    const stop = {
      id: `S${String(i).padStart(2, '0')}`,
      latitude: Number((48.83 + random() * 0.07).toFixed(5)),
      longitude: Number((2.28 + random() * 0.14).toFixed(5)),
    };
    if (random() < 0.6) {
      const minutes = 8 * 60 + 15 + Math.floor(random() * 4) * 15; // 08:15 to 09:00: some will be late
      stop.deadline = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    }
    stop.serviceSeconds = 60 + Math.floor(random() * 9) * 30; // 1 to 5 minutes
    stops.push(stop);
  }
  return stops;
}
