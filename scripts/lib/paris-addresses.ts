/**
 * Twenty Paris street addresses with positions close to their real ones (test data for the fake
 * Géoplateforme; five of them in the 4th arrondissement, where the commune-level gazetteer puts
 * every address on one point). Each has a distinct point at housenumber level.
 */
import type { FakeAddress } from './fake-geoplateforme.js';

export const PARIS_ADDRESSES: FakeAddress[] = [
  { housenumber: '1', street: 'Rue de Rivoli', postcode: '75004', city: 'Paris', citycode: '75104', latitude: 48.855648, longitude: 2.358457 },
  { housenumber: '6', street: 'Place des Vosges', postcode: '75004', city: 'Paris', citycode: '75104', latitude: 48.855313, longitude: 2.365920 },
  { housenumber: '11', street: 'Rue Saint-Antoine', postcode: '75004', city: 'Paris', citycode: '75104', latitude: 48.853910, longitude: 2.366720 },
  { housenumber: '12', street: 'Rue des Archives', postcode: '75004', city: 'Paris', citycode: '75104', latitude: 48.857480, longitude: 2.354520 },
  { housenumber: '19', street: 'Rue Beaubourg', postcode: '75004', city: 'Paris', citycode: '75104', latitude: 48.860690, longitude: 2.352980 },
  { housenumber: '4', street: 'Place du Louvre', postcode: '75001', city: 'Paris', citycode: '75101', latitude: 48.859700, longitude: 2.341370 },
  { housenumber: '2', street: 'Rue de la Paix', postcode: '75002', city: 'Paris', citycode: '75102', latitude: 48.868930, longitude: 2.331320 },
  { housenumber: '60', street: 'Rue de Bretagne', postcode: '75003', city: 'Paris', citycode: '75103', latitude: 48.863390, longitude: 2.360680 },
  { housenumber: '47', street: 'Rue des Écoles', postcode: '75005', city: 'Paris', citycode: '75105', latitude: 48.849770, longitude: 2.344960 },
  { housenumber: '8', street: 'Rue de Vaugirard', postcode: '75006', city: 'Paris', citycode: '75106', latitude: 48.849460, longitude: 2.339350 },
  { housenumber: '5', street: 'Avenue Anatole France', postcode: '75007', city: 'Paris', citycode: '75107', latitude: 48.858370, longitude: 2.294480 },
  { housenumber: '55', street: 'Rue du Faubourg Saint-Honoré', postcode: '75008', city: 'Paris', citycode: '75108', latitude: 48.870430, longitude: 2.316690 },
  { housenumber: '8', street: 'Rue Scribe', postcode: '75009', city: 'Paris', citycode: '75109', latitude: 48.871060, longitude: 2.330510 },
  { housenumber: '20', street: 'Rue du Faubourg Saint-Denis', postcode: '75010', city: 'Paris', citycode: '75110', latitude: 48.871830, longitude: 2.353610 },
  { housenumber: '10', street: 'Boulevard Voltaire', postcode: '75011', city: 'Paris', citycode: '75111', latitude: 48.865070, longitude: 2.367680 },
  { housenumber: '3', street: 'Rue de Lyon', postcode: '75012', city: 'Paris', citycode: '75112', latitude: 48.848720, longitude: 2.370860 },
  { housenumber: '33', street: 'Avenue d\'Italie', postcode: '75013', city: 'Paris', citycode: '75113', latitude: 48.825460, longitude: 2.357580 },
  { housenumber: '21', street: 'Avenue du Maine', postcode: '75015', city: 'Paris', citycode: '75115', latitude: 48.843080, longitude: 2.320120 },
  { housenumber: '1', street: 'Avenue Gustave V de Suède', postcode: '75016', city: 'Paris', citycode: '75116', latitude: 48.861470, longitude: 2.290560 },
  { housenumber: '35', street: 'Rue du Chevalier de la Barre', postcode: '75018', city: 'Paris', citycode: '75118', latitude: 48.886530, longitude: 2.343030 },
];

/** The addresses as optimize stops (ids p01…p20), in the order above. */
export function parisAddressStops(extra: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  return PARIS_ADDRESSES.map((a, i) => ({
    id: `p${String(i + 1).padStart(2, '0')}`,
    street: `${a.housenumber} ${a.street}`,
    postalCode: a.postcode,
    city: a.city,
    ...extra,
  }));
}
