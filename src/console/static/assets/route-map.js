// Draws a route as inline SVG: equirectangular projection scaled to fit with padding,
// the start and end marked, the stops numbered in visiting order, late stops in another colour,
// a shipment's pickup ▲ and delivery ▼ (shipment-marks.js).
import { el, valid } from './svg.js';
import { SHIPMENT_KINDS, shipmentLinks, shipmentShape } from './shipment-marks.js';

const WIDTH = 800;
const PADDING = 36;

/**
 * The points of an encoded polyline of precision 5 (an answer's `geometry`), as {latitude, longitude}.
 * Written here rather than loaded: the console is plain static modules, and the algorithm is a few lines.
 */
export function decodePolyline(encoded) {
  const points = [];
  let index = 0;
  let latitude = 0;
  let longitude = 0;
  const next = () => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = encoded.charCodeAt(index++) - 63;
      result |= (byte & 0x1f) << shift;
      shift += 5;
    } while (byte >= 0x20 && index < encoded.length);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (index < encoded.length) {
    latitude += next();
    longitude += next();
    points.push({ latitude: latitude / 1e5, longitude: longitude / 1e5 });
  }
  return points;
}

/**
 * One route (the optimize playground).
 * @param container element the SVG replaces the content of
 * @param route {start, end?, stops: [{id, order, latitude, longitude, late, label}], line?} (stops in visiting
 *   order; line: the answer's geometry, decoded, drawn instead of straight legs)
 */
export function renderRouteMap(container, { start, end, stops, line }) {
  const lateCount = stops.filter((s) => s.late).length;
  return renderMap(container, {
    routes: [{ start, end, stops, line }],
    unassigned: [],
    description: `Start, ${stops.length} stops in visiting order${end ? ', end' : ''}; ${lateCount} late.`,
  });
}

/** A colour per vehicle, distinct for the first ten and readable under white numbers. */
export const ROUTE_COLOURS = [
  '#1d4ed8',
  '#047857',
  '#7c3aed',
  '#b91c1c',
  '#0e7490',
  '#a16207',
  '#be185d',
  '#4d7c0f',
  '#1e40af',
  '#9333ea',
];

/**
 * Several routes (the fleet playground): each vehicle's route in its own colour, late stops ringed,
 * stops no vehicle could take drawn hollow.
 * @param routes [{vehicleId, colour, start, end?, stops: [{id, order, kind?, latitude, longitude, late, label}], line?}]
 *   (kind: "pickup" or "delivery" for a shipment's end, drawn ▲ or ▼ and joined by a dashed line; absent for a stop)
 * @param unassigned [{id, latitude, longitude, label, symbol?}] (symbol: the text in the hollow marker, "?" by default)
 */
export function renderFleetMap(container, { routes, unassigned }) {
  const stops = routes.reduce((n, r) => n + r.stops.length, 0);
  return renderMap(container, {
    routes,
    unassigned,
    description: `${routes.length} vehicle routes with ${stops} stops in visiting order; ${unassigned.length} stops unassigned.`,
  });
}

function renderMap(container, { routes, unassigned, description }) {
  const points = [
    ...routes.flatMap((r) => [r.start, ...(r.end ? [r.end] : []), ...r.stops, ...(r.line ?? [])]),
    ...unassigned,
  ].filter(valid);
  const meanLat = points.reduce((sum, p) => sum + p.latitude, 0) / Math.max(1, points.length);
  const kx = Math.cos((meanLat * Math.PI) / 180);
  const xs = points.map((p) => p.longitude * kx);
  const ys = points.map((p) => p.latitude);
  let minX = Math.min(...xs);
  let maxX = Math.max(...xs);
  let minY = Math.min(...ys);
  let maxY = Math.max(...ys);
  const MIN_SPAN = 0.002; // degrees: a single point or a line still gets a frame
  if (maxX - minX < MIN_SPAN) {
    const c = (maxX + minX) / 2;
    minX = c - MIN_SPAN / 2;
    maxX = c + MIN_SPAN / 2;
  }
  if (maxY - minY < MIN_SPAN) {
    const c = (maxY + minY) / 2;
    minY = c - MIN_SPAN / 2;
    maxY = c + MIN_SPAN / 2;
  }
  const spanX = maxX - minX;
  const spanY = maxY - minY;
  // the height follows the data's shape, within reason
  const height = Math.round(Math.min(700, Math.max(380, (WIDTH - 2 * PADDING) * (spanY / spanX) + 2 * PADDING)));
  const scale = Math.min((WIDTH - 2 * PADDING) / spanX, (height - 2 * PADDING) / spanY);
  const offsetX = (WIDTH - spanX * scale) / 2;
  const offsetY = (height - spanY * scale) / 2;
  const project = (p) => [
    offsetX + (p.longitude * kx - minX) * scale,
    height - (offsetY + (p.latitude - minY) * scale),
  ];

  const svg = el('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-labelledby': 'route-map-title route-map-desc',
    class: 'route-svg',
  });
  svg.append(
    el('title', { id: 'route-map-title' }, 'Route map'),
    el('desc', { id: 'route-map-desc' }, description),
    el('rect', { x: 0, y: 0, width: WIDTH, height, fill: '#f8fafc' }),
  );

  // a light grid every 0.01° of latitude/longitude gives a sense of scale
  const grid = el('g', { stroke: '#e2e8f0', 'stroke-width': 1 });
  for (let lat = Math.ceil(minY * 100) / 100; lat <= maxY; lat += 0.01) {
    const [, y] = project({ latitude: lat, longitude: minX / kx });
    grid.append(el('line', { x1: 0, x2: WIDTH, y1: y.toFixed(1), y2: y.toFixed(1) }));
  }
  for (let lonK = Math.ceil((minX / kx) * 100) / 100; lonK * kx <= maxX; lonK += 0.01) {
    const [x] = project({ latitude: minY, longitude: lonK });
    grid.append(el('line', { y1: 0, y2: height, x1: x.toFixed(1), x2: x.toFixed(1) }));
  }
  svg.append(grid);
  svg.append(scaleBar(scale, height));

  for (const route of routes) svg.append(routeLine(route, project));
  const starts = [];
  for (const route of routes) {
    if (route.end && valid(route.end)) svg.append(endMarker(route, project));
    if (valid(route.start)) starts.push(route);
  }
  // vehicles leaving the same depot share one start marker
  const drawn = new Map();
  for (const route of starts) {
    const key = `${route.start.latitude},${route.start.longitude}`;
    if (drawn.has(key)) drawn.get(key).push(route);
    else drawn.set(key, [route]);
  }
  for (const group of drawn.values()) svg.append(startMarker(group, project));

  svg.append(shipmentLinks(routes, project));
  const markers = el('g', { class: 'stop-markers' });
  for (const route of routes) {
    for (const stop of route.stops) if (valid(stop)) markers.append(stopMarker(stop, route, project));
  }
  for (const stop of unassigned) if (valid(stop)) markers.append(unassignedMarker(stop, project));
  svg.append(markers);
  container.replaceChildren(svg);
  return svg;
}

const LINE_GREY = '#64748b';
const STOP_BLUE = '#1d4ed8';
const LATE_ORANGE = '#c2410c';

function routeLine(route, project) {
  const g = el('g', route.vehicleId !== undefined ? { 'data-vehicle-id': route.vehicleId } : {});
  // the route's line from the answer (roads, with OSRM) when there is one, else straight legs between the stops
  const drawn = route.line?.length >= 2 ? route.line : [route.start, ...route.stops, ...(route.end ? [route.end] : [])];
  const path = drawn.filter(valid).map(project);
  if (path.length < 2) return g;
  g.append(
    el('polyline', {
      class: 'route-line',
      ...(route.line?.length >= 2 ? { 'data-geometry': 'answer' } : {}),
      points: path.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' '),
      fill: 'none',
      stroke: route.colour ?? LINE_GREY,
      'stroke-width': 3,
      'stroke-linejoin': 'round',
      'stroke-linecap': 'round',
      opacity: 0.85,
    }),
  );
  // a small arrow in the middle of each leg shows the direction
  const arrows = el('g', { fill: route.colour ?? '#475569' });
  for (let i = 1; i < path.length; i += 1) {
    const [x1, y1] = path[i - 1];
    const [x2, y2] = path[i];
    if (Math.hypot(x2 - x1, y2 - y1) < 40) continue;
    const angle = (Math.atan2(y2 - y1, x2 - x1) * 180) / Math.PI;
    arrows.append(
      el('path', {
        d: 'M -6 -5 L 6 0 L -6 5 z',
        transform: `translate(${((x1 + x2) / 2).toFixed(1)} ${((y1 + y2) / 2).toFixed(1)}) rotate(${angle.toFixed(1)})`,
      }),
    );
  }
  g.append(arrows);
  return g;
}

const who = (route) => (route.vehicleId !== undefined ? ` of ${route.vehicleId}` : '');

function endMarker(route, project) {
  const { start, end } = route;
  const [x, y] = project(end);
  const [sx, sy] = valid(start) ? project(start) : [Infinity, Infinity];
  // when the end is the start, a larger diamond frames the start square
  const sameAsStart = Math.hypot(x - sx, y - sy) < 8;
  const half = sameAsStart ? 17 : 12;
  const g = el('g', { class: 'end-marker', transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` });
  g.append(
    el(
      'title',
      {},
      `End${who(route)} ${end.latitude}, ${end.longitude}${sameAsStart ? ' (same place as the start)' : ''}`,
    ),
  );
  g.append(
    el('rect', {
      x: -half,
      y: -half,
      width: 2 * half,
      height: 2 * half,
      transform: 'rotate(45)',
      fill: '#6d28d9',
      stroke: '#fff',
      'stroke-width': 2,
    }),
  );
  if (!sameAsStart)
    g.append(
      el(
        'text',
        {
          'text-anchor': 'middle',
          'dominant-baseline': 'central',
          fill: '#fff',
          'font-size': 13,
          'font-weight': 700,
          'font-family': 'system-ui, sans-serif',
        },
        'E',
      ),
    );
  return g;
}

function startMarker(group, project) {
  const { start } = group[0];
  const [x, y] = project(start);
  const vehicles = group.map((r) => r.vehicleId).filter((id) => id !== undefined);
  const g = el('g', { class: 'start-marker', transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` });
  g.append(
    el(
      'title',
      {},
      `Start${vehicles.length ? ` of ${vehicles.join(', ')}` : ''} ${start.latitude}, ${start.longitude}`,
    ),
  );
  g.append(
    el('rect', { x: -12, y: -12, width: 24, height: 24, rx: 4, fill: '#047857', stroke: '#fff', 'stroke-width': 2 }),
  );
  g.append(
    el(
      'text',
      {
        'text-anchor': 'middle',
        'dominant-baseline': 'central',
        fill: '#fff',
        'font-size': 13,
        'font-weight': 700,
        'font-family': 'system-ui, sans-serif',
      },
      'S',
    ),
  );
  return g;
}

function stopMarker(stop, route, project) {
  const [x, y] = project(stop);
  const attributes = {
    class: `stop-marker${stop.kind ? ` ${stop.kind}` : ''}${stop.late ? ' late' : ''}`,
    'data-stop-id': stop.id,
    'data-order': stop.order,
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
  };
  if (route.vehicleId !== undefined) attributes['data-vehicle-id'] = route.vehicleId;
  const g = el('g', attributes);
  g.append(el('title', {}, stop.label ?? `${stop.order}. ${stop.id}`));
  // one route: late stops are orange; several routes: a stop keeps its vehicle's colour and a late one gets an orange ring
  const circle = route.colour
    ? { r: 15, fill: route.colour, stroke: stop.late ? LATE_ORANGE : '#fff', 'stroke-width': stop.late ? 4 : 2 }
    : { r: 15, fill: stop.late ? LATE_ORANGE : STOP_BLUE, stroke: '#fff', 'stroke-width': 2 };
  // a shipment's pickup is a ▲ and its delivery a ▼, a stop a circle
  const { r, ...outline } = circle;
  g.append(SHIPMENT_KINDS.has(stop.kind) ? shipmentShape(stop.kind, outline) : el('circle', { r, ...outline }));
  g.append(
    el(
      'text',
      {
        class: 'stop-number',
        ...(SHIPMENT_KINDS.has(stop.kind) ? { y: stop.kind === 'pickup' ? 2 : -2 } : {}),
        'text-anchor': 'middle',
        'dominant-baseline': 'central',
        fill: '#fff',
        'font-size': stop.order >= 100 ? 11 : 13,
        'font-weight': 700,
        'font-family': 'system-ui, sans-serif',
      },
      String(stop.order),
    ),
  );
  return g;
}

function unassignedMarker(stop, project) {
  const [x, y] = project(stop);
  const g = el('g', {
    class: 'unassigned-marker',
    'data-stop-id': stop.id,
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
  });
  g.append(el('title', {}, stop.label ?? `${stop.id}: not assigned`));
  g.append(el('circle', { r: 13, fill: '#fff', stroke: '#334155', 'stroke-width': 3, 'stroke-dasharray': '4 3' }));
  g.append(
    el(
      'text',
      {
        'text-anchor': 'middle',
        'dominant-baseline': 'central',
        fill: '#334155',
        'font-size': 14,
        'font-weight': 700,
        'font-family': 'system-ui, sans-serif',
      },
      stop.symbol ?? '?',
    ),
  );
  return g;
}

/** A scale bar (1, 2 or 5 × 10^n km) in the bottom-left corner. */
function scaleBar(pixelsPerDegreeX, height) {
  // pixelsPerDegreeX is per degree of (longitude × cos(lat)), i.e. per degree of arc: ~111.32 km
  const pixelsPerKm = pixelsPerDegreeX / 111.32;
  const target = 120 / pixelsPerKm;
  const magnitude = 10 ** Math.floor(Math.log10(target));
  const km =
    [1, 2, 5, 10]
      .map((m) => m * magnitude)
      .filter((v) => v <= target)
      .pop() ?? magnitude;
  const length = km * pixelsPerKm;
  const g = el('g', { class: 'scale-bar', transform: `translate(14 ${height - 16})` });
  g.append(el('rect', { x: -6, y: -22, width: length + 12, height: 30, fill: '#ffffff', opacity: 0.8, rx: 4 }));
  g.append(
    el('path', { d: `M 0 -6 V 0 H ${length.toFixed(1)} V -6`, fill: 'none', stroke: '#334155', 'stroke-width': 2 }),
  );
  const label = km >= 1 ? `${km} km` : `${Math.round(km * 1000)} m`;
  g.append(
    el(
      'text',
      {
        x: (length / 2).toFixed(1),
        y: -9,
        'text-anchor': 'middle',
        'font-size': 12,
        fill: '#334155',
        'font-family': 'system-ui, sans-serif',
      },
      label,
    ),
  );
  return g;
}
