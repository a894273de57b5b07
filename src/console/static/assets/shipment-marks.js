// Pickups and deliveries on the fleet map: a ▲ at a shipment's pickup and a ▼ at its delivery (in the
// vehicle's colour, numbered in visiting order like a stop), and a thin dashed line between the two ends.
import { el, valid } from './svg.js';

/** The kinds of a route's visit that are a shipment's end. */
export const SHIPMENT_KINDS = new Set(['pickup', 'delivery']);

// equal-sided triangles whose centroid is the point: ▲ for a pickup, ▼ for a delivery
const TRIANGLES = { pickup: 'M 0 -20 L 17.3 10 L -17.3 10 z', delivery: 'M 0 20 L 17.3 -10 L -17.3 -10 z' };

/** The shape of a shipment end's marker (a path), in place of a stop's circle. */
export function shipmentShape(kind, attributes) {
  return el('path', { class: 'shipment-shape', d: TRIANGLES[kind], 'stroke-linejoin': 'round', ...attributes });
}

/**
 * A dashed line from each shipment's pickup to its delivery, in the vehicle's colour.
 * @param routes [{vehicleId, colour, stops: [{id, kind?, latitude, longitude}]}]
 */
export function shipmentLinks(routes, project) {
  const g = el('g', { class: 'shipment-links' });
  for (const route of routes) {
    const pickups = new Map();
    for (const stop of route.stops) {
      if (!valid(stop)) continue;
      if (stop.kind === 'pickup') pickups.set(stop.id, stop);
      if (stop.kind !== 'delivery' || !pickups.has(stop.id)) continue;
      const [x1, y1] = project(pickups.get(stop.id));
      const [x2, y2] = project(stop);
      g.append(
        el('line', {
          class: 'shipment-link',
          'data-shipment-id': stop.id,
          ...(route.vehicleId !== undefined ? { 'data-vehicle-id': route.vehicleId } : {}),
          x1: x1.toFixed(1),
          y1: y1.toFixed(1),
          x2: x2.toFixed(1),
          y2: y2.toFixed(1),
          stroke: route.colour ?? '#334155',
          'stroke-width': 1.5,
          'stroke-dasharray': '6 4',
          opacity: 0.9,
        }),
      );
    }
  }
  return g;
}
