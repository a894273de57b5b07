/**
 * Common mistakes in a paid call's body (optimize, plans), recognised behind a
 * schema failure and answered with a message that names the fix: the spellings
 * of other routing APIs (lat/lng, [lon, lat], postcode, serviceTime …), times
 * in the wrong form, stops sent as an object. The endpoints add their own
 * (src/api/optimize/mistakes.ts: root fields, stop counts). docs/api.md lists
 * them; test/unit/common-mistakes.test.ts has one case each.
 */
import { fieldPath, valueAt, type MistakeRule, type ValidationFailure } from '../http/validate.js';
import { isValidDepartureTime } from '../schedule/time.js';
import { infiniteMatrixCell } from './matrix-schema.js';

type Path = Array<string | number>;

const EXAMPLE_POINT = '{"latitude": 48.8566, "longitude": 2.3522}';
const EXAMPLE_ADDRESS = '{"street": "10 rue de Rivoli", "postalCode": "75004", "city": "Paris"}';

/** The location (start, end or stops[i]; a plan's vehicles[i].start or .end) a failure sits in, if any. */
function locationOf(path: Path): Path | undefined {
  if (path[0] === 'start' || path[0] === 'end') return [path[0]];
  if (path[0] === 'stops' && typeof path[1] === 'number') return ['stops', path[1]];
  if (path[0] === 'vehicles' && typeof path[1] === 'number' && (path[2] === 'start' || path[2] === 'end'))
    return path.slice(0, 3);
  return undefined;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const quoted = (keys: string[]): string => keys.map((k) => `"${k}"`).join(', ');
export const lower = (key: string): string => key.toLowerCase().replace(/[_\s-]/g, '');

/** Spellings of a point's coordinates in other APIs (compared lower-cased, without _ and -). */
const COORDINATE_SPELLINGS = new Set([
  'lat',
  'lng',
  'lon',
  'long',
  'latlng',
  'lnglat',
  'latlon',
  'lonlat',
  'latlong',
  'coordinates',
  'coords',
  'coord',
  'location',
  'position',
  'point',
  'geometry',
  'geo',
  'gps',
  'x',
  'y',
  'latitude',
  'longitude',
]);

/** lat/lng, lon, latlng, coordinates … or a [lon, lat] array where a Location is expected. */
const coordinateSpellings: MistakeRule = (failure, body) => {
  const location = locationOf(failure.path);
  if (!location) return undefined;
  const value = valueAt(body, location);
  const where = fieldPath(location);
  if (Array.isArray(value)) {
    const pair =
      value.length === 2 && value.every((n) => typeof n === 'number')
        ? ` ([${String(value[0])}, ${String(value[1])}] in GeoJSON order [longitude, latitude] is {"latitude": ${String(value[1])}, "longitude": ${String(value[0])}})`
        : '';
    const id = location[0] === 'stops' ? ' with its "id"' : '';
    return {
      message: `${where} must be an object, not an array: use latitude and longitude${id}, e.g. ${EXAMPLE_POINT}${pair}`,
      path: location,
    };
  }
  if (!isObject(value)) return undefined;
  const wrong = Object.keys(value).filter(
    (k) => k !== 'latitude' && k !== 'longitude' && COORDINATE_SPELLINGS.has(lower(k)),
  );
  if (wrong.length === 0) return undefined;
  return {
    message: `${where} has ${quoted(wrong)}: use latitude and longitude (decimal degrees), e.g. ${EXAMPLE_POINT}`,
    path: [...location, wrong[0]],
  };
};

/** Address fields under other names. */
const ADDRESS_SPELLINGS: Array<[Set<string>, string]> = [
  [
    new Set(['postcode', 'zip', 'zipcode', 'postal', 'postalcode', 'cp', 'codepostal', 'plz']),
    'use postalCode, a string such as "75004"',
  ],
  [new Set(['town', 'commune', 'ville', 'locality', 'municipality', 'cityname']), 'use city'],
  [
    new Set([
      'address',
      'adresse',
      'addressline',
      'addressline1',
      'line1',
      'streetaddress',
      'road',
      'rue',
      'housenumber',
      'number',
      'streetname',
    ]),
    `use street (house number and street), postalCode and city, e.g. ${EXAMPLE_ADDRESS}`,
  ],
];

/**
 * A rule for fields under other names inside a location (`stopsOnly`: inside a stop): the first key of the
 * object, other than its `own` fields, that `spellings` knows, with the fix.
 */
function spellingsRule(
  spellings: Array<[Set<string>, string]>,
  own: readonly string[],
  stopsOnly: boolean,
): MistakeRule {
  return (failure, body) => {
    const location = locationOf(failure.path);
    if (!location || (stopsOnly && location[0] !== 'stops')) return undefined;
    const value = valueAt(body, location);
    if (!isObject(value)) return undefined;
    for (const key of Object.keys(value)) {
      if (own.includes(key)) continue;
      const match = spellings.find(([names]) => names.has(lower(key)));
      if (match) return { message: `${fieldPath(location)} has "${key}": ${match[1]}`, path: [...location, key] };
    }
    return undefined;
  };
}

const addressSpellings = spellingsRule(ADDRESS_SPELLINGS, ['postalCode', 'city', 'street'], false);

/** A stop's fields under other names. */
const STOP_SPELLINGS: Array<[Set<string>, string]> = [
  [
    new Set([
      'servicetime',
      'service',
      'duration',
      'serviceduration',
      'serviceseconds',
      'dwell',
      'dwelltime',
      'servicemin',
      'serviceminutes',
      'stoptime',
    ]),
    'use serviceSeconds, the time spent at the stop in seconds (0 to 3600)',
  ],
  [
    new Set([
      'timewindow',
      'timewindows',
      'due',
      'duetime',
      'latest',
      'before',
      'deliverby',
      'endtime',
      'deadlinetime',
      'until',
    ]),
    'use deadline, the latest arrival as a Paris local time "HH:MM"',
  ],
  [
    new Set(['stopid', 'identifier', 'ref', 'reference', 'key', 'colisid', 'parcelid']),
    'use id, a string unique within the call',
  ],
];

const stopSpellings = spellingsRule(STOP_SPELLINGS, ['serviceSeconds', 'deadline', 'id'], true);

/** `stops` sent as an object keyed by id, or as a single stop. */
const stopsNotAnArray: MistakeRule = (failure) => {
  if (
    failure.path.length !== 1 ||
    failure.path[0] !== 'stops' ||
    failure.keyword !== 'type' ||
    !isObject(failure.value)
  )
    return undefined;
  const keyedById = Object.values(failure.value).every(isObject) && Object.keys(failure.value).length > 0;
  return {
    message:
      `stops must be an array, not an object: ${keyedById ? 'put each stop in the array with its id, ' : 'send a list of stops, '}` +
      'e.g. [{"id": "a", "latitude": 48.8606, "longitude": 2.3376}, {"id": "b", "latitude": 48.853, "longitude": 2.3499}]',
  };
};

const pad = (n: number): string => String(n).padStart(2, '0');

/** A time of day (a stop's deadline or notBefore, a plan's shift bounds) that sits at `path`. */
function isTimeOfDay(path: Path): boolean {
  const last = path[path.length - 1];
  if (path[0] === 'stops') return last === 'deadline' || last === 'notBefore';
  return path[0] === 'vehicles' && path[2] === 'shift' && (last === 'start' || last === 'end');
}

/** A deadline (or another time of day) that is not HH:MM: a date-time, 9:05, 14h30, 2:30 PM, 14:30:00, a number. */
const deadlineForm: MistakeRule = (failure) => {
  if (!isTimeOfDay(failure.path)) return undefined;
  const v = failure.value;
  if (failure.keyword === 'type') {
    return { message: `${failure.message}: write the time as a string "HH:MM" (24-hour, Europe/Paris), e.g. "14:30"` };
  }
  if (failure.keyword !== 'pattern' || typeof v !== 'string') return undefined;
  const text = v.trim();
  if (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(text)) {
    return {
      message: `${failure.message}: send the time of day only, e.g. "${text.slice(11, 16)}"; the day is the Paris calendar day of the departure`,
    };
  }
  const ampm = /^(\d{1,2})(?:[:h.](\d{2}))?\s*([ap])\.?m\.?$/i.exec(text);
  if (ampm) {
    const hour = (Number(ampm[1]) % 12) + (ampm[3].toLowerCase() === 'p' ? 12 : 0);
    if (Number(ampm[1]) <= 12 && Number(ampm[2] ?? 0) < 60)
      return { message: `${failure.message}: write "${pad(hour)}:${pad(Number(ampm[2] ?? 0))}" (24-hour clock)` };
  }
  const compact = /^(\d{2})(\d{2})$/.exec(text);
  if (compact && Number(compact[1]) < 24 && Number(compact[2]) < 60)
    return { message: `${failure.message}: write "${compact[1]}:${compact[2]}"` };
  const clock = /^(\d{1,2})\s*(?:[:hH.]\s*(\d{2})?(?::\d{2})?)?$/.exec(text);
  if (clock) {
    const hour = Number(clock[1]);
    const minute = Number(clock[2] ?? 0);
    if (hour === 24 && minute === 0) return { message: `${failure.message}: the last minute of a day is "23:59"` };
    if (hour < 24 && minute < 60) return { message: `${failure.message}: write "${pad(hour)}:${pad(minute)}"` };
  }
  return { message: `${failure.message}, e.g. "09:05" or "17:30"` };
};

/** A departureTime in a near-miss form: a space for the T, a date or a time alone, a day-first date, an offset without colon, a Unix timestamp. */
const departureForm: MistakeRule = (failure) => {
  if (failure.path.length !== 1 || failure.path[0] !== 'departureTime') return undefined;
  const v = failure.value;
  const example = '"2026-06-01T08:00:00+02:00" (or without an offset, "2026-06-01T08:00", read as Paris local time)';
  if (failure.keyword === 'type' && typeof v === 'number') {
    return { message: `${failure.message}: send an ISO 8601 date-time such as ${example}, not a Unix timestamp` };
  }
  if (typeof v !== 'string') return undefined;
  const text = v.trim();
  const suggest = (fixed: string, why: string): ReturnType<MistakeRule> =>
    isValidDepartureTime(fixed) ? { message: `${failure.message}: ${why}: "${fixed}"` } : undefined;
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(text))
    return suggest(text.replace(' ', 'T'), 'put a T between the date and the time');
  if (/^\d{4}-\d{2}-\d{2}$/.test(text))
    return { message: `${failure.message}: add the time of departure, e.g. "${text}T08:00"` };
  if (/^\d{1,2}:\d{2}(:\d{2})?$/.test(text))
    return { message: `${failure.message}: add the date, e.g. "2026-06-01T${text.padStart(5, '0')}"` };
  const dayFirst = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})[ T](\d{2}:\d{2}(?::\d{2})?)$/.exec(text);
  if (dayFirst)
    return suggest(
      `${dayFirst[3]}-${pad(Number(dayFirst[2]))}-${pad(Number(dayFirst[1]))}T${dayFirst[4]}`,
      'write the date year first (YYYY-MM-DD), as in',
    );
  const offset = /^(.*[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([+-])(\d{2})(\d{2})$/.exec(text);
  if (offset)
    return suggest(
      `${offset[1].replace(' ', 'T')}${offset[2]}${offset[3]}:${offset[4]}`,
      'write the offset with a colon',
    );
  return undefined;
};

/** Address fields: empty, or a postal code sent as a number (its leading 0 is lost). */
const ADDRESS_EXAMPLES: Record<string, string> = {
  street: '"10 rue de Rivoli"',
  postalCode: '"75004"',
  city: '"Paris"',
};
const addressFieldForm: MistakeRule = (failure) => {
  const last = failure.path[failure.path.length - 1];
  if (typeof last !== 'string' || !(last in ADDRESS_EXAMPLES) || !locationOf(failure.path)) return undefined;
  if (failure.keyword === 'minLength') {
    const what =
      last === 'street' ? 'the house number and street' : last === 'postalCode' ? 'the postal code' : 'the city';
    return { message: `${failure.message}: give ${what}, e.g. ${ADDRESS_EXAMPLES[last]}` };
  }
  if (failure.keyword === 'type' && typeof failure.value === 'number' && last === 'postalCode') {
    return {
      message: `${failure.message}: write it in quotes, e.g. "${String(failure.value).padStart(5, '0')}" (as a number, a leading 0 is lost)`,
    };
  }
  return undefined;
};

/** The rules about locations, stop fields and times, which hold for a plan's stops, vehicle locations and shifts too. */
const LOCATION_AND_TIME_MISTAKES: MistakeRule[] = [
  coordinateSpellings,
  addressSpellings,
  stopSpellings,
  deadlineForm,
  departureForm,
  addressFieldForm,
];

/**
 * The rules every paid call's body shares: a stops field sent as an object, then locations, stop fields
 * and times (a plan's vehicle locations and shifts too). Each endpoint puts its own (root fields, stop
 * counts) first: the first rule that recognises the failure writes the message.
 */
export const CALL_MISTAKES: MistakeRule[] = [stopsNotAnArray, ...LOCATION_AND_TIME_MISTAKES, infiniteMatrixCell];

export type { ValidationFailure };
