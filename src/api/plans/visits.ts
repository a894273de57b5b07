/**
 * The places a plan visits, in the solver's job order: the stops as sent, then each shipment's pickup and
 * delivery (shipment k: jobs stops + 2k and stops + 2k + 1). Everything after validation (locations, the
 * problem, the answer) reads this list, so a shipment's ends go through the same steps as stops.
 */
import type { Location } from '../../calls/location-schema.js';
import type { PlanRequest, PlanShipment } from './schema.js';

type ShipmentEnd = PlanShipment['pickup'];

export interface PlanVisit {
  kind: 'stop' | 'pickup' | 'delivery';
  /** The stop's id, or the shipment's (the same at its pickup and at its delivery). */
  id: string;
  /** How errors name it: `stops[2] (id "a")`, `shipments[0].pickup (id "r")`. */
  label: string;
  location: Location;
  serviceSeconds?: number;
  deadline?: string;
  notBefore?: string;
  timeWindows?: ReadonlyArray<{ start: string; end: string }>;
  demand?: number[];
  allowedVehicles?: string[];
  priority?: number;
  /** Index in `shipments` (pickups and deliveries only). */
  shipment?: number;
}

export function planVisits(request: PlanRequest): PlanVisit[] {
  const visits: PlanVisit[] = request.stops.map((s, i) => ({
    ...s,
    kind: 'stop',
    label: `stops[${i}] (id ${JSON.stringify(s.id)})`,
    location: s,
  }));
  (request.shipments ?? []).forEach((s, k) => {
    const end = (kind: 'pickup' | 'delivery', e: ShipmentEnd): PlanVisit => ({
      ...e,
      kind,
      id: s.id,
      label: `shipments[${k}].${kind} (id ${JSON.stringify(s.id)})`,
      location: e,
      ...(s.demand !== undefined ? { demand: s.demand } : {}),
      ...(s.allowedVehicles !== undefined ? { allowedVehicles: s.allowedVehicles } : {}),
      ...(s.priority !== undefined ? { priority: s.priority } : {}),
      shipment: k,
    });
    visits.push(end('pickup', s.pickup), end('delivery', s.delivery));
  });
  return visits;
}

/** The solver's pairs: shipment k's pickup and delivery jobs. */
export function shipmentPairs(request: PlanRequest): Array<{ pickup: number; delivery: number }> {
  const n = request.stops.length;
  return (request.shipments ?? []).map((_, k) => ({ pickup: n + 2 * k, delivery: n + 2 * k + 1 }));
}
