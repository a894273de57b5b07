import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_GAZETTEER_PATH,
  EMBEDDED_GEOCODER_NOTICE,
  EmbeddedGeocoder,
  loadGazetteer,
  matchGazetteer,
} from '../../../src/geo/geocoding/embedded.js';
import { normaliseName, normalisePostalCode } from '../../../src/geo/geocoding/normalise.js';
import { greatCircleM } from '../../../src/geo/routing/haversine.js';

const geo = new EmbeddedGeocoder();
const at = (street: string, postalCode: string, city: string) => geo.geocode({ street, postalCode, city });
const km = (a: { latitude: number; longitude: number }, lat: number, lon: number) =>
  greatCircleM(a, { latitude: lat, longitude: lon }) / 1000;

test('gazetteer file is committed, small, and has the expected shape', async () => {
  const size = statSync(DEFAULT_GAZETTEER_PATH).size;
  assert.ok(size > 500_000 && size < 4_000_000, `size ${size}`);
  const g = await loadGazetteer();
  assert.ok(g.size > 6000, `${g.size} postal codes`);
  assert.equal(await loadGazetteer(), g, 'loaded once');
});

test('Paris 75004 → the 4th arrondissement point, whatever the spelling', async () => {
  const r = await at('1 rue de Rivoli', '75004', 'Paris');
  assert.ok(r);
  assert.equal(r.provider, 'embedded');
  assert.equal(r.precision, 'municipality');
  assert.ok(km(r, 48.856, 2.357) < 1.5, `${r.latitude},${r.longitude} is ${km(r, 48.856, 2.357)} km away`);
  for (const city of [
    'PARIS',
    'Paris 4e',
    'Paris 04',
    'paris 4ème',
    'Paris IV',
    'Paris 4e Arrondissement',
    'Paris Cedex 04',
  ]) {
    assert.deepEqual(await at('x', '75004', city), r, city);
  }
  const fifteenth = await at('x', '75015', 'Paris');
  assert.ok(fifteenth && km(fifteenth, r.latitude, r.longitude) > 3, 'the 15th is elsewhere');
  const sixteenth = await at('x', '75116', 'Paris');
  assert.ok(sixteenth && km(sixteenth, 48.8637, 2.2769) < 1, '75116 → 16th');
});

test('Lyon 69003 and Marseille 13008 → their arrondissements', async () => {
  const lyon3 = await at('x', '69003', 'Lyon');
  assert.ok(lyon3 && km(lyon3, 45.76, 4.851) < 2, JSON.stringify(lyon3));
  assert.deepEqual(await at('x', '69003', 'LYON 3EME'), lyon3);
  const lyon1 = await at('x', '69001', 'Lyon');
  assert.ok(lyon1 && km(lyon1, lyon3.latitude, lyon3.longitude) > 1);
  const m8 = await at('x', '13008', 'Marseille');
  assert.ok(m8 && km(m8, 43.27, 5.382) < 2, JSON.stringify(m8));
  assert.deepEqual(await at('x', '13008', 'Marseille 8e'), m8);
  const m1 = await at('x', '13001', 'Marseille');
  assert.ok(m1 && km(m1, m8.latitude, m8.longitude) > 2);
});

test('Saint-Étienne 42000: St / SAINT- / accents all match', async () => {
  const r = await at('x', '42000', 'Saint-Étienne');
  assert.ok(r && km(r, 45.4397, 4.3872) < 5, JSON.stringify(r));
  assert.deepEqual(await at('x', '42000', 'St Etienne'), r);
  assert.deepEqual(await at('x', '42000', 'SAINT-ETIENNE'), r);
  assert.deepEqual(await at('x', '42000', 'saint etienne'), r);
});

test('a postal code shared by several communes picks the named one (01400)', async () => {
  const g = await loadGazetteer();
  assert.ok(g.get('01400')!.length >= 5, '01400 is shared');
  const romans = await at('x', '01400', 'Romans');
  const chatillon = await at('x', '01400', 'Chatillon-sur-Chalaronne');
  assert.ok(romans && chatillon);
  assert.ok(km(romans, chatillon.latitude, chatillon.longitude) > 3);
  assert.ok(km(chatillon, 46.118, 4.957) < 3, JSON.stringify(chatillon));
});

test('unknown postal code, unknown city, empty city → null', async () => {
  assert.equal(await at('x', '99999', 'Paris'), null);
  assert.equal(await at('x', '01400', 'Lyon'), null);
  assert.equal(await at('x', '42000', 'Saint-Chamond'), null);
  assert.equal(await at('x', '75004', ''), null);
  assert.equal(await at('x', 'abc', 'Paris'), null);
});

test('close names on a postal code are accepted only when unambiguous; 4-digit postal codes are padded', async () => {
  assert.ok(await at('x', '13008', 'Marseile'), 'one letter missing');
  const boulogne = await at('x', '92100', 'Boulogne');
  const full = await at('x', '92100', 'Boulogne-Billancourt');
  assert.deepEqual(boulogne, full);
  assert.deepEqual(await at('x', '1000', 'Bourg-en-Bresse'), await at('x', '01000', 'Bourg en Bresse'));
});

test('a former commune (commune déléguée) name is found under its new commune postal codes', async () => {
  const r = await at('x', '01200', 'Bellegarde-sur-Valserine');
  assert.ok(r && km(r, 46.108, 5.825) < 3, JSON.stringify(r));
});

test('fuzzy ambiguity → null (synthetic gazetteer)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gaz-'));
  const path = join(dir, 'g.json');
  writeFileSync(
    path,
    JSON.stringify({
      format: 1,
      postalCodes: {
        '12345': [
          ['Saint-Martin-Haut', 45, 3, '12001'],
          ['Saint-Martin-Bas', 45.1, 3.1, '12002'],
        ],
        '12346': [['Villeneuve', 46, 4, '12003']],
      },
    }),
  );
  const g = await loadGazetteer(path);
  assert.equal(matchGazetteer(g, '12345', 'Saint Martin'), null, 'prefix of two communes');
  assert.equal(matchGazetteer(g, '12345', 'St Martin Haut')?.insee, '12001');
  assert.equal(matchGazetteer(g, '12346', 'Villeneuv')?.insee, '12003');
  assert.equal(matchGazetteer(g, '12346', 'Villefranche'), null);
  const custom = new EmbeddedGeocoder({ path });
  assert.deepEqual(await custom.geocode({ street: '', postalCode: '12346', city: 'VILLENEUVE' }), {
    latitude: 46,
    longitude: 4,
    precision: 'municipality',
    provider: 'embedded',
    label: '12346 Villeneuve',
  });
});

test('normalisation rules', () => {
  assert.equal(normaliseName("L'Abergement-Clémenciat"), 'l abergement clemenciat');
  assert.equal(normaliseName('  STE-Foy   lès  Lyon '), 'sainte foy les lyon');
  assert.equal(normaliseName('Cœuvres-et-Valsery'), 'coeuvres et valsery');
  assert.equal(normaliseName('Paris CEDEX'), 'paris');
  assert.equal(normalisePostalCode(' 75 004 '), '75004');
  assert.equal(normalisePostalCode('6000'), '06000');
});

test('precision notice names commune precision and how to switch', () => {
  assert.match(EMBEDDED_GEOCODER_NOTICE, /commune precision/);
  assert.match(EMBEDDED_GEOCODER_NOTICE, /GEOCODER=geoplateforme,embedded/);
  assert.match(EMBEDDED_GEOCODER_NOTICE, /BAN_URL/);
});
