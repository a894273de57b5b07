import { labelledStops, type LabelledLocation } from '../../calls/locations.js';
import type { OptimizeRequest } from './schema.js';

/** The locations of an optimize request, in the order its matrix takes them: [start, ...stops, end?]. */
export function optimizeLocations(request: OptimizeRequest): LabelledLocation[] {
  return [
    { label: 'start', role: 'start', location: request.start },
    ...labelledStops(request.stops),
    ...(request.end ? [{ label: 'end', role: 'end' as const, location: request.end }] : []),
  ];
}
