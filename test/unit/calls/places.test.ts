import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAME_PLACE_METRES, inputOrderAtSamePlace, places } from '../../../src/calls/places.js';
import { greatCircleM } from '../../../src/geo/index.js';

const A = { latitude: 48.855648, longitude: 2.358457 };
const A2 = { latitude: 48.85567, longitude: 2.35848 }; // 3 m from A
const A3 = { latitude: 48.855692, longitude: 2.358503 }; // 3 m from A2, 6 m from A
const B = { latitude: 48.855313, longitude: 2.36592 };
const C = { latitude: 48.85391, longitude: 2.36672 };

test("places: a point within 5 m of a place's first point is that place, named by its first point", () => {
  assert.ok(greatCircleM(A, A2) <= SAME_PLACE_METRES && greatCircleM(A, A3) > SAME_PLACE_METRES);
  assert.deepEqual(places([A, B, A2, C, A]), { points: [A, B, C], index: [0, 1, 0, 2, 0] });
  // A is 6 m from A3: a place of its own; A2 (3 m from both) joins the first place, A3's
  assert.deepEqual(places([A3, A, A2]), { points: [A3, A], index: [0, 1, 0] }, 'no chain through A2');
  assert.deepEqual(places([B, A, { ...A }]), { points: [B, A], index: [0, 1, 1] }, 'identical coordinates');
  const b = { latitude: 1, longitude: 2 };
  const c = { latitude: 1, longitude: 2.001 }; // 111 m east
  assert.deepEqual(places([b, c]), { points: [b, c], index: [0, 1] });
});

const flat = () => ({ totalLatenessS: 0, durationS: 100 });

test('stops at one place are put back in input order, in the positions the solver gave them', () => {
  // stops 0..4 at places A B C A B; solver: 3(A) 1(B) 0(A) 2(C) 4(B)
  const place = [0, 1, 2, 0, 1];
  const placeOf = (stop: number) => place[stop]!;
  assert.deepEqual(inputOrderAtSamePlace([3, 1, 0, 2, 4], placeOf, flat), [0, 1, 3, 2, 4]);
  assert.deepEqual(inputOrderAtSamePlace([4, 2, 3, 1, 0], placeOf, flat), [1, 2, 0, 4, 3]);
  assert.deepEqual(
    inputOrderAtSamePlace([2, 1, 0], (s) => s, flat),
    [2, 1, 0],
    'nothing shared: the solver order stands',
  );
});

test("a place keeps the solver's order when input order would make the route later: more lateness, or a later end", () => {
  const placeOf = (stop: number) => [0, 0, 1, 1][stop]!;
  // order [1,0,3,2]: place 0 back to [0,1] costs lateness, place 1 back to [2,3] does not
  const lateness = (order: readonly number[]) => ({
    totalLatenessS: order.indexOf(0) < order.indexOf(1) ? 60 : 0,
    durationS: 100,
  });
  assert.deepEqual(inputOrderAtSamePlace([1, 0, 3, 2], placeOf, lateness), [1, 0, 2, 3]);
  // a wait (a notBefore) that input order would add: the route would end later
  const later = (order: readonly number[]) => ({
    totalLatenessS: 0,
    durationS: order.indexOf(2) < order.indexOf(3) ? 160 : 100,
  });
  assert.deepEqual(inputOrderAtSamePlace([1, 0, 3, 2], placeOf, later), [0, 1, 3, 2]);
});

test('places: houses 4 m apart along a street are not one place end to end; every member is within 5 m of its place', () => {
  // 50 points 4 m apart eastwards (about 196 m from first to last)
  const street = Array.from({ length: 50 }, (_, k) => ({ latitude: 48.85, longitude: 2.35 + (k * 4) / 73_300 }));
  assert.ok(greatCircleM(street[0]!, street[49]!) > 190);
  const { points, index } = places(street);
  assert.ok(points.length >= 25, `${points.length} places`);
  street.forEach((p, k) => assert.ok(greatCircleM(points[index[k]!]!, p) <= SAME_PLACE_METRES, `point ${k}`));
});

test('places: the grid finds neighbours across cell borders and far north, and points far apart stay apart', () => {
  for (const latitude of [0, 48.85, 69.6, -33.9]) {
    const metresPerDegreeLon = 111_195 * Math.cos((latitude * Math.PI) / 180);
    // pairs 4.9 m apart east-west and north-south at many offsets: always one place
    for (let k = 0; k < 40; k++) {
      const base = { latitude: latitude + k * 0.0000137, longitude: 2 + k * 0.0000291 };
      const east = { latitude: base.latitude, longitude: base.longitude + 4.9 / metresPerDegreeLon };
      const north = { latitude: base.latitude + 4.9 / 111_195, longitude: base.longitude };
      assert.deepEqual(places([base, east, north]).index, [0, 0, 0], `${latitude} ${k}`);
      const far = { latitude: base.latitude, longitude: base.longitude + 5.2 / metresPerDegreeLon };
      assert.deepEqual(places([base, far]).index, [0, 1], `${latitude} ${k} far`);
    }
  }
});
