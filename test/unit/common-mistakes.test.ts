/**
 * The common mistakes of a first optimize call: each gets 400 invalid_request,
 * a message that names the field and the fix, and `param`, the path of the
 * field to change.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { validateOptimizeRequest } from '../../src/api/optimize/validate.js';
import { DomainError } from '../../src/errors.js';

const point = (i: number) => ({ id: `s${i}`, latitude: 48.85 + i / 1000, longitude: 2.35 });
const base = (): Record<string, any> => ({ start: { latitude: 48.85, longitude: 2.35 }, stops: [point(1), point(2)] });

function mistake(body: unknown, param: string | undefined, message: RegExp): void {
  assert.throws(
    () => validateOptimizeRequest(body),
    (err: unknown) => {
      assert.ok(err instanceof DomainError, String(err));
      assert.equal(err.status, 400);
      assert.equal(err.code, 'invalid_request');
      assert.match(err.message, message);
      assert.equal(err.extra.param, param, `param of "${err.message}"`);
      return true;
    },
  );
}

test('1. lat/lng instead of latitude/longitude', () => {
  mistake(
    { ...base(), start: { lat: 48.85, lng: 2.35 } },
    'start.lat',
    /^start has "lat", "lng": use latitude and longitude \(decimal degrees\), e\.g\. \{"latitude": 48\.8566, "longitude": 2\.3522\}$/,
  );
  // one right and one wrong: the coordinates branch is chosen, the hint still names the fix
  mistake(
    { ...base(), start: { latitude: 48.85, lng: 2.35 } },
    'start.lng',
    /^start has "lng": use latitude and longitude/,
  );
});

test('2. lon, long, latlng, coordinates, Latitude, and a location nested in a stop', () => {
  mistake(
    { ...base(), end: { lat: 48.85, lon: 2.35 } },
    'end.lat',
    /^end has "lat", "lon": use latitude and longitude/,
  );
  mistake({ ...base(), start: { latitude: 48.85, long: 2.35 } }, 'start.long', /use latitude and longitude/);
  mistake(
    { ...base(), start: { latlng: [48.85, 2.35] } },
    'start.latlng',
    /^start has "latlng": use latitude and longitude/,
  );
  mistake({ ...base(), start: { coordinates: [2.35, 48.85] } }, 'start.coordinates', /use latitude and longitude/);
  mistake(
    { ...base(), start: { Latitude: 48.85, Longitude: 2.35 } },
    'start.Latitude',
    /^start has "Latitude", "Longitude": use latitude and longitude/,
  );
  const body = base();
  body.stops[1] = { id: 'b', location: { lat: 48.86, lng: 2.34 } };
  mistake(body, 'stops[1].location', /^stops\[1\] has "location": use latitude and longitude/);
});

test('3. a [lon, lat] array instead of an object', () => {
  mistake(
    { ...base(), start: [2.3522, 48.8566] },
    'start',
    /^start must be an object, not an array: use latitude and longitude, e\.g\. .*\[2\.3522, 48\.8566\] in GeoJSON order \[longitude, latitude\] is \{"latitude": 48\.8566, "longitude": 2\.3522\}/,
  );
  const body = base();
  body.stops[0] = [2.35, 48.85];
  mistake(body, 'stops[0]', /^stops\[0\] must be an object, not an array: use latitude and longitude with its "id"/);
});

test('4. numbers sent as strings', () => {
  const body = base();
  body.stops[0] = { ...point(1), latitude: '48.8606' };
  mistake(
    body,
    'stops[0].latitude',
    /^stops\[0\]\.latitude must be a number from -90 to 90, not a string: write 48\.8606 without quotes$/,
  );
  body.stops[0] = { ...point(1), serviceSeconds: '120' };
  mistake(
    body,
    'stops[0].serviceSeconds',
    /^stops\[0\]\.serviceSeconds must be a number of seconds from 0 to 3600, not a string: write 120 without quotes$/,
  );
  mistake(
    { ...base(), avoidTolls: 'true' },
    'avoidTolls',
    /^avoidTolls must be a boolean, not a string: write true without quotes$/,
  );
});

test('5. a deadline in another form than HH:MM', () => {
  const withDeadline = (deadline: unknown) => {
    const b = base();
    b.stops[0] = { ...point(1), deadline };
    return b;
  };
  const prefix = 'stops\\[0\\]\\.deadline must be a time HH:MM \\(24-hour, Europe\\/Paris\\)';
  mistake(
    withDeadline('2026-06-01T14:30:00+02:00'),
    'stops[0].deadline',
    new RegExp(
      `^${prefix}: send the time of day only, e\\.g\\. "14:30"; the day is the Paris calendar day of the departure$`,
    ),
  );
  mistake(withDeadline('9:05'), 'stops[0].deadline', new RegExp(`^${prefix}: write "09:05"$`));
  mistake(withDeadline('14h30'), 'stops[0].deadline', new RegExp(`^${prefix}: write "14:30"$`));
  mistake(withDeadline('14:30:00'), 'stops[0].deadline', new RegExp(`^${prefix}: write "14:30"$`));
  mistake(withDeadline('2:30 PM'), 'stops[0].deadline', new RegExp(`^${prefix}: write "14:30" \\(24-hour clock\\)$`));
  mistake(withDeadline('1430'), 'stops[0].deadline', new RegExp(`^${prefix}: write "14:30"$`));
  mistake(withDeadline('24:00'), 'stops[0].deadline', new RegExp(`^${prefix}: the last minute of a day is "23:59"$`));
  mistake(withDeadline('soon'), 'stops[0].deadline', new RegExp(`^${prefix}, e\\.g\\. "09:05" or "17:30"$`));
  mistake(
    withDeadline(1430),
    'stops[0].deadline',
    /^stops\[0\]\.deadline must be a string: write the time as a string "HH:MM"/,
  );
});

test('6. a departureTime without the ISO 8601 form (space, date only, day first, offset without colon, Unix time)', () => {
  const prefix =
    'departureTime must be an ISO 8601 date-time, e\\.g\\. 2026-06-01T08:00:00\\+02:00 \\(without an offset it is Europe\\/Paris local time\\)';
  mistake(
    { ...base(), departureTime: '2026-06-01 08:00' },
    'departureTime',
    new RegExp(`^${prefix}: put a T between the date and the time: "2026-06-01T08:00"$`),
  );
  mistake(
    { ...base(), departureTime: '2026-06-01' },
    'departureTime',
    new RegExp(`^${prefix}: add the time of departure, e\\.g\\. "2026-06-01T08:00"$`),
  );
  mistake(
    { ...base(), departureTime: '08:00' },
    'departureTime',
    new RegExp(`^${prefix}: add the date, e\\.g\\. "2026-06-01T08:00"$`),
  );
  mistake(
    { ...base(), departureTime: '01/06/2026 08:00' },
    'departureTime',
    new RegExp(`^${prefix}: write the date year first \\(YYYY-MM-DD\\), as in: "2026-06-01T08:00"$`),
  );
  mistake(
    { ...base(), departureTime: '2026-06-01T08:00:00+0200' },
    'departureTime',
    new RegExp(`^${prefix}: write the offset with a colon: "2026-06-01T08:00:00\\+02:00"$`),
  );
  mistake(
    { ...base(), departureTime: 1780293600 },
    'departureTime',
    /^departureTime must be a string: send an ISO 8601 date-time such as .*, not a Unix timestamp$/,
  );
});

test('7. stops sent as an object keyed by id', () => {
  mistake(
    { ...base(), stops: { a: { latitude: 48.86, longitude: 2.34 }, b: { latitude: 48.85, longitude: 2.35 } } },
    'stops',
    /^stops must be an array, not an object: put each stop in the array with its id, e\.g\. \[\{"id": "a", "latitude"/,
  );
  mistake({ ...base(), stops: point(1) }, 'stops', /^stops must be an array, not an object: send a list of stops/);
});

test('8. one stop, or none', () => {
  mistake(
    { ...base(), stops: [point(1)] },
    'stops',
    /^stops must contain at least 2 items: a route needs 2 to 200 stops \(got 1\)$/,
  );
  mistake(
    { ...base(), stops: [] },
    'stops',
    /^stops must contain at least 2 items: a route needs 2 to 200 stops \(got 0\)$/,
  );
});

test('9. 201 stops', () => {
  mistake(
    { ...base(), stops: Array.from({ length: 201 }, (_, i) => point(i)) },
    'stops',
    /^stops must contain at most 200 items: split the route into calls of at most 200 stops each, or send up to 1000 stops in one POST \/api\/v1\/plans call \(got 201\)$/,
  );
});

test('10. duplicate stop ids', () => {
  const body = base();
  body.stops.push({ ...point(3), id: 's1' });
  mistake(body, 'stops[2].id', /^stops\[2\]\.id "s1" repeats stops\[0\]\.id: stop ids must be unique within one call$/);
});

test('11. an empty street, postal code or city', () => {
  const address = { street: '10 rue de Rivoli', postalCode: '75004', city: 'Paris' };
  mistake(
    { ...base(), start: { ...address, street: '' } },
    'start.street',
    /^start\.street must not be empty: give the house number and street, e\.g\. "10 rue de Rivoli"$/,
  );
  mistake(
    { ...base(), start: { ...address, postalCode: '' } },
    'start.postalCode',
    /^start\.postalCode must not be empty: give the postal code, e\.g\. "75004"$/,
  );
  mistake(
    { ...base(), start: { ...address, city: '' } },
    'start.city',
    /^start\.city must not be empty: give the city, e\.g\. "Paris"$/,
  );
});

test('12. a postal code sent as a number', () => {
  mistake(
    { ...base(), start: { street: '1 rue du Lac', postalCode: 1400, city: 'Châtillon-sur-Chalaronne' } },
    'start.postalCode',
    /^start\.postalCode must be a string: write it in quotes, e\.g\. "01400" \(as a number, a leading 0 is lost\)$/,
  );
});

test('13. address fields under other names (postcode, zip, address)', () => {
  mistake(
    { ...base(), start: { street: '10 rue de Rivoli', postcode: '75004', city: 'Paris' } },
    'start.postcode',
    /^start has "postcode": use postalCode, a string such as "75004"$/,
  );
  mistake(
    { ...base(), start: { street: '10 rue de Rivoli', zip: '75004', city: 'Paris' } },
    'start.zip',
    /use postalCode/,
  );
  mistake(
    { ...base(), start: { address: '10 rue de Rivoli, 75004 Paris' } },
    'start.address',
    /^start has "address": use street \(house number and street\), postalCode and city, e\.g\. \{"street"/,
  );
});

test('14. top-level fields under other names (origin, destination, points, departure_time, avoid_tolls)', () => {
  const { start, stops } = base();
  mistake(
    { origin: start, stops },
    'origin',
    /^body has "origin": use start \(the fields are start, end, stops, avoidTolls and departureTime\)$/,
  );
  mistake({ start, stops, destination: start }, 'destination', /^body has "destination": use end/);
  mistake({ start, points: stops }, 'points', /^body has "points": use stops/);
  mistake(
    { start, stops, departure_time: '2026-06-01T08:00' },
    'departure_time',
    /^body has "departure_time": use departureTime/,
  );
  mistake({ start, stops, avoid_tolls: true }, 'avoid_tolls', /^body has "avoid_tolls": use avoidTolls/);
});

test('15. stop fields under other names (serviceTime, timeWindow, stopId)', () => {
  const withStop = (extra: Record<string, unknown>) => {
    const b = base();
    b.stops[0] = { ...point(1), ...extra };
    return b;
  };
  mistake(
    withStop({ serviceTime: 5 }),
    'stops[0].serviceTime',
    /^stops\[0\] has "serviceTime": use serviceSeconds, the time spent at the stop in seconds \(0 to 3600\)$/,
  );
  mistake(
    withStop({ timeWindow: ['09:00', '12:00'] }),
    'stops[0].timeWindow',
    /^stops\[0\] has "timeWindow": use deadline, the latest arrival as a Paris local time "HH:MM"$/,
  );
  const noId = base();
  noId.stops[0] = { stopId: 'a', latitude: 48.85, longitude: 2.35 };
  mistake(noId, 'stops[0].stopId', /^stops\[0\] has "stopId": use id, a string unique within the call$/);
});

test('messages without a known mistake still name the field and the form, and param points at it', () => {
  mistake({ ...base(), vehicle: 'van' }, 'vehicle', /^body has an unknown property "vehicle"$/);
  mistake({ ...base(), start: { latitude: 48.8 } }, 'start.longitude', /^start\.longitude is required$/);
  mistake(
    { ...base(), start: { latitude: 48.8, longitude: 2.3, city: 'Paris' } },
    'start',
    /^start must be either coordinates .* or an address .*not both$/,
  );
  mistake([], undefined, /^body must be an object$/);
});
