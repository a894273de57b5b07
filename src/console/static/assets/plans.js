// The fleet playground: vehicles as a table, stops as JSON → POST /api/v1/plans → one coloured route
// per vehicle on the map, a schedule per vehicle, and the stops no vehicle could take with their reason.
import { clearError } from './api.js';
import { count, duration, parisDay, parisTime, parisTimeUp, parisTomorrowAt, TIME_INPUT } from './format.js';
import { departureFields, runOnSubmit, term } from './playground-run.js';
import { callApi } from './api.js';
import { inBackground, planInBackground } from './plan-progress.js';
import { decodePolyline, renderFleetMap, ROUTE_COLOURS } from './route-map.js';
import { parseJson, toJson } from './stops.js';
import { cellsOfVehicle, sampleFleet, vehicleFromCells } from './vehicles.js';

const $ = (id) => document.getElementById(id);
const FLEET_STOP_FIELDS = ['notBefore', 'demand', 'allowedVehicles'];
const COLUMNS = [
  ['id', 'id', { maxlength: '100', spellcheck: 'false' }],
  ['latitude', 'start latitude', { inputmode: 'decimal' }],
  ['longitude', 'start longitude', { inputmode: 'decimal' }],
  ['returns', 'returns to its start', { type: 'checkbox' }],
  ['shiftStart', 'shift start (Paris time, optional)', TIME_INPUT],
  ['shiftEnd', 'shift end (Paris time, optional)', TIME_INPUT],
  ['capacity', 'capacity (optional, e.g. 500,40)', { spellcheck: 'false' }],
  ['maxStops', 'most stops (optional)', { type: 'number', min: '1', max: '1000', step: '1' }],
];
export const REASONS = {
  capacity: 'No vehicle has room left for its demand',
  shift: 'No vehicle can reach it within its shift',
  allowedVehicles: 'None of its allowed vehicles can take it',
  unreachable: 'No road reaches it from the vehicles',
};

export function initPlans({ onResult }) {
  const body = $('vehicles-body');
  const error = $('plans-error');
  const status = $('plans-status');
  const runButton = $('plans-run');

  function addVehicle(vehicle = {}) {
    const cells = cellsOfVehicle(vehicle);
    const tr = document.createElement('tr');
    for (const [field, , attributes] of COLUMNS) {
      const input = document.createElement('input');
      input.type = attributes.type ?? 'text';
      input.dataset.field = field;
      if (input.type === 'checkbox') input.checked = cells[field];
      else input.value = cells[field];
      for (const [k, v] of Object.entries(attributes)) if (k !== 'type') input.setAttribute(k, v);
      const td = document.createElement('td');
      td.append(input);
      tr.append(td);
    }
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'small icon';
    remove.textContent = '✕';
    remove.addEventListener('click', () => {
      const next = tr.nextElementSibling ?? tr.previousElementSibling;
      tr.remove();
      labelRows();
      (next?.querySelector('input') ?? $('add-vehicle')).focus();
    });
    const td = document.createElement('td');
    td.append(remove);
    tr.append(td);
    body.append(tr);
    labelRows();
    return tr;
  }

  function labelRows() {
    [...body.rows].forEach((tr, i) => {
      tr.querySelectorAll('input').forEach((input, j) =>
        input.setAttribute('aria-label', `Vehicle ${i + 1} ${COLUMNS[j][1]}`),
      );
      tr.querySelector('button')?.setAttribute('aria-label', `Remove vehicle ${i + 1}`);
    });
  }

  function readVehicles() {
    const vehicles = [];
    [...body.rows].forEach((tr, i) => {
      const cells = Object.fromEntries(
        [...tr.querySelectorAll('input')].map((input) => [
          input.dataset.field,
          input.type === 'checkbox' ? input.checked : input.value.trim(),
        ]),
      );
      if (COLUMNS.every(([field]) => !cells[field])) return;
      vehicles.push(vehicleFromCells(cells, `Vehicle ${i + 1}`));
    });
    if (vehicles.length === 0) throw new Error('Add at least one vehicle (an id and its start).');
    return vehicles;
  }

  $('add-vehicle').addEventListener('click', () => addVehicle().querySelector('input').focus());
  $('plans-sample').addEventListener('click', () => {
    clearError(error);
    const { vehicles, stops } = sampleFleet();
    body.replaceChildren();
    for (const vehicle of vehicles) addVehicle(vehicle);
    $('plans-stops').value = toJson(stops);
    if (!$('plans-departure').value) $('plans-departure').value = parisTomorrowAt(8, 0);
    status.textContent = `Sample loaded: ${vehicles.length} vans, ${stops.length} stops.`;
  });

  // the finished job of a background plan (null: the plan was one call)
  let job = null;
  runOnSubmit($('plans-form'), {
    path: '/api/v1/plans',
    button: runButton,
    status,
    error,
    busy: 'Planning…',
    failure: 'The day could not be planned:',
    buildRequest: () => ({
      vehicles: readVehicles(),
      stops: parseJson($('plans-stops').value, { extraFields: FLEET_STOP_FIELDS }),
      ...departureFields($('plans-departure'), $('plans-avoid-tolls')),
      geometry: true,
    }),
    send: async (request, key) => {
      job = null;
      $('plans-job').hidden = true;
      if (!inBackground(request)) return (await callApi('/api/v1/plans', { method: 'POST', key, body: request })).body;
      job = await planInBackground(request, key, { status, error });
      return job.result;
    },
    render: (request, plan) => {
      renderPlan(request, plan);
      onResult?.(plan);
      const how = job?.status === 'cancelled' ? 'Stopped early, best plan kept' : 'Day planned';
      return `${how}: ${plan.totals.assigned} of ${plan.totals.stops} stops on ${plan.totals.vehiclesUsed} vehicles.`;
    },
  });

  addVehicle();
}

function cell(tr, text, header = false) {
  const c = document.createElement(header ? 'th' : 'td');
  if (header) c.scope = 'row';
  c.textContent = text;
  tr.append(c);
  return c;
}

/** Draws the answer of /api/v1/plans: totals, the unassigned stops, the map and one schedule per vehicle. */
export function renderPlan(request, plan) {
  const inputs = new Map(request.stops.map((s) => [s.id, s]));
  const vehicles = new Map(
    request.vehicles.map((v, i) => [v.id, { ...v, colour: ROUTE_COLOURS[i % ROUTE_COLOURS.length] }]),
  );

  const totals = $('plans-totals');
  totals.replaceChildren();
  term(totals, 'Vehicles used', `${plan.totals.vehiclesUsed} of ${request.vehicles.length}`);
  term(
    totals,
    'Stops assigned',
    `${plan.totals.assigned} of ${plan.totals.stops}`,
    plan.totals.unassigned ? `${plan.totals.unassigned} unassigned` : 'every stop has a vehicle',
  );
  term(totals, 'Distance', `${plan.totals.totalDistanceKm.toFixed(2)} km`, 'all routes');
  term(totals, 'Duration', duration(plan.totals.estimatedTimeMin), 'sum of the routes');
  term(
    totals,
    'Late stops',
    String(plan.totals.lateStops),
    plan.totals.lateStops ? 'arrive after their deadline' : 'every deadline is met',
  );
  term(
    totals,
    'Charged',
    `${count(plan.stopsCharged)} stops`,
    plan.sandbox ? 'test key: the sandbox is free' : 'every stop sent',
  );
  if (plan.sandbox)
    term(totals, 'Left today', `${count(plan.sandboxStopsRemainingToday)} stops`, 'sandbox daily quota');
  else if (typeof plan.stopsBalance === 'number')
    term(totals, 'Balance', `${count(plan.stopsBalance)} stops`, 'after this call');

  const unassignedBox = $('plans-unassigned');
  const list = unassignedBox.querySelector('ul');
  list.replaceChildren();
  for (const u of plan.unassigned) {
    const li = document.createElement('li');
    li.dataset.stopId = u.id;
    li.dataset.reason = u.reason;
    li.textContent = `${u.id}: ${REASONS[u.reason] ?? u.reason}${u.message ? ` (${u.message})` : ''}`;
    list.append(li);
  }
  unassignedBox.hidden = plan.unassigned.length === 0;

  const mapRoutes = plan.routes.map((route) => {
    const vehicle = vehicles.get(route.vehicleId) ?? {};
    const arrivals = new Map((route.schedule ?? []).map((e) => [e.colisId, e.arrivee]));
    const late = new Map((route.lateStops ?? []).map((l) => [l.colisId, l]));
    return {
      vehicleId: route.vehicleId,
      colour: vehicle.colour,
      start: vehicle.start,
      end: vehicle.end,
      ...(route.geometry ? { line: decodePolyline(route.geometry) } : {}),
      stops: [...route.waypoints]
        .sort((a, b) => a.order - b.order)
        .map((w) => {
          const input = inputs.get(w.id) ?? {};
          const arrival = arrivals.get(w.id);
          return {
            id: w.id,
            order: w.order,
            latitude: w.latitude ?? input.latitude,
            longitude: w.longitude ?? input.longitude,
            late: late.has(w.id),
            label: `${route.vehicleId} ${w.order}. ${w.id}${arrival ? `, arrives ${parisTimeUp(arrival)}` : ''}${late.has(w.id) ? `, late by ${late.get(w.id).retardMin} min` : ''}`,
          };
        }),
    };
  });
  const unassignedPoints = plan.unassigned.map((u) => ({
    ...inputs.get(u.id),
    id: u.id,
    label: `${u.id}: not assigned (${u.reason})`,
  }));
  renderFleetMap($('plans-map'), { routes: mapRoutes, unassigned: unassignedPoints });

  const schedules = $('plans-schedules');
  schedules.replaceChildren();
  for (const route of plan.routes) schedules.append(routeSchedule(route, vehicles.get(route.vehicleId) ?? {}, inputs));
  $('plans-result').hidden = false;
}

function routeSchedule(route, vehicle, inputs) {
  const section = document.createElement('section');
  section.className = 'plan-route';
  section.dataset.vehicleId = route.vehicleId;
  const h = document.createElement('h4');
  const swatch = document.createElement('span');
  swatch.className = 'swatch';
  swatch.style.background = vehicle.colour ?? '';
  swatch.setAttribute('aria-hidden', 'true');
  const load =
    route.load && route.load.length
      ? ` · load ${route.load.join(' / ')}${vehicle.capacity ? ` of ${vehicle.capacity.join(' / ')}` : ''}`
      : '';
  h.append(
    swatch,
    document.createTextNode(
      ` ${route.vehicleId} · ${route.order.length} stops · ${route.totalDistanceKm.toFixed(2)} km · ${duration(route.estimatedTimeMin)}${load}`,
    ),
  );
  const departDay = route.departAt ? parisDay(route.departAt) : null;
  const time = (iso, format = parisTime) =>
    iso ? `${format(iso)}${departDay && parisDay(iso) !== departDay ? ' (+1 day)' : ''}` : '—';
  const p = document.createElement('p');
  p.className = 'hint';
  p.textContent = `Leaves ${time(route.departAt)}${route.returnAt ? `, back ${time(route.returnAt)}` : ', ends at its last stop'} (Paris time).`;

  const table = document.createElement('table');
  table.className = 'plan-schedule';
  const caption = document.createElement('caption');
  caption.className = 'visually-hidden';
  caption.textContent = `Schedule of ${route.vehicleId}`;
  const head = document.createElement('thead');
  head.innerHTML =
    '<tr><th scope="col">#</th><th scope="col">Stop</th><th scope="col">Arrival</th><th scope="col">Service starts</th><th scope="col">Window</th><th scope="col">Status</th></tr>';
  const tbody = document.createElement('tbody');
  const entries = new Map((route.schedule ?? []).map((e) => [e.colisId, e]));
  const late = new Map((route.lateStops ?? []).map((l) => [l.colisId, l]));
  for (const w of [...route.waypoints].sort((a, b) => a.order - b.order)) {
    const input = inputs.get(w.id) ?? {};
    const entry = entries.get(w.id);
    const lateness = late.get(w.id);
    const tr = document.createElement('tr');
    if (lateness) tr.className = 'late';
    cell(tr, String(w.order));
    cell(tr, w.id, true);
    cell(tr, time(entry?.arrivee, parisTimeUp));
    cell(tr, entry?.serviceStart ? time(entry.serviceStart, parisTimeUp) : 'On arrival');
    cell(
      tr,
      `${input.notBefore ?? ''}–${input.deadline ?? ''}` === '–'
        ? '—'
        : `${input.notBefore ?? '…'}–${input.deadline ?? '…'}`,
    );
    const statusCell = document.createElement('td');
    const badge = document.createElement('span');
    badge.className = lateness ? 'badge late' : 'badge ok';
    badge.textContent = lateness ? `Late by ${lateness.retardMin} min` : input.deadline ? 'On time' : 'No deadline';
    statusCell.append(badge);
    tr.append(statusCell);
    tbody.append(tr);
  }
  table.append(caption, head, tbody);
  const scroll = document.createElement('div');
  scroll.className = 'table-scroll';
  scroll.append(table);
  section.append(h, p, scroll);
  return section;
}
