// The fleet playground: vehicles as a table, stops and shipments as JSON → POST /api/v1/plans → one coloured
// route per vehicle on the map, a schedule per vehicle from its steps, and the stops no vehicle could take with their reason.
import { clearError } from './api.js';
import { count, duration, parisTimeUp, parisTomorrowAt, TIME_INPUT } from './format.js';
import { departureFields, runOnSubmit, term } from './playground-run.js';
import { callApi } from './api.js';
import { inBackground, planInBackground } from './plan-progress.js';
import { decodePolyline, renderFleetMap, ROUTE_COLOURS } from './route-map.js';
import { routeSchedule } from './plan-schedule.js';
import { planInputs, routeVisits, STEP_NAMES } from './plan-visits.js';
import { parseJson, parseShipmentsJson, toJson } from './stops.js';
import { cellsOfVehicle, sampleFleet, vehicleFromCells } from './vehicles.js';

const $ = (id) => document.getElementById(id);
const FLEET_STOP_FIELDS = ['notBefore', 'timeWindows', 'priority', 'demand', 'allowedVehicles'];
const COLUMNS = [
  ['id', 'id', { maxlength: '100', spellcheck: 'false' }],
  ['latitude', 'start latitude', { inputmode: 'decimal' }],
  ['longitude', 'start longitude', { inputmode: 'decimal' }],
  ['returns', 'returns to its start', { type: 'checkbox' }],
  ['shiftStart', 'shift start (Paris time, optional)', TIME_INPUT],
  ['shiftEnd', 'shift end (Paris time, optional)', TIME_INPUT],
  ['capacity', 'capacity (optional, e.g. 500,40)', { spellcheck: 'false' }],
  ['maxStops', 'most stops (optional)', { type: 'number', min: '1', max: '1000', step: '1' }],
  ['maxDurationMin', 'longest route in minutes (optional)', { type: 'number', min: '1', max: '1440', step: '1' }],
  ['maxDrivingMin', 'most driving in minutes (optional)', { type: 'number', min: '1', max: '1440', step: '1' }],
  ['maxDistanceKm', 'longest route in km (optional)', { inputmode: 'decimal' }],
  ['break', 'break (optional, e.g. 12:00-14:00 30: 30 min between 12:00 and 14:00)', { spellcheck: 'false' }],
];
export const REASONS = {
  capacity: 'No vehicle has room left for its demand',
  shift: 'No vehicle can reach it within its shift',
  allowedVehicles: 'None of its allowed vehicles can take it',
  unreachable: 'No road reaches it from the vehicles',
  timeWindows: 'Every one of its time windows closes before a vehicle can get there',
  routeLimit: 'A vehicle could take it only beyond its route limits (duration, driving time or distance)',
  priority: 'Left out for stops of higher priority: no room or time remained for it',
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
    const { vehicles, stops, shipments } = sampleFleet();
    body.replaceChildren();
    for (const vehicle of vehicles) addVehicle(vehicle);
    $('plans-stops').value = toJson(stops);
    $('plans-shipments').value = toJson(shipments);
    if (!$('plans-departure').value) $('plans-departure').value = parisTomorrowAt(8, 0);
    status.textContent = `Sample loaded: ${vehicles.length} vans, ${stops.length} stops and ${shipments.length} shipments (a pickup and a delivery each).`;
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
      ...parseShipmentsJson($('plans-shipments').value),
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

/** Draws the answer of /api/v1/plans: totals, the unassigned stops, the map and one schedule per vehicle. */
export function renderPlan(request, plan) {
  const inputs = planInputs(request);
  const vehicles = new Map(
    request.vehicles.map((v, i) => [v.id, { ...v, colour: ROUTE_COLOURS[i % ROUTE_COLOURS.length] }]),
  );
  const visitsOf = new Map(plan.routes.map((route) => [route, routeVisits(route, inputs)]));

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
    return {
      vehicleId: route.vehicleId,
      colour: vehicle.colour,
      start: vehicle.start,
      end: vehicle.end,
      ...(route.geometry ? { line: decodePolyline(route.geometry) } : {}),
      stops: visitsOf
        .get(route)
        .filter((v) => v.order !== null)
        .map((v) => ({
          id: v.id,
          order: v.order,
          kind: v.type === 'stop' ? undefined : v.type,
          ...v.place,
          late: Boolean(v.late),
          label: `${route.vehicleId} ${v.order}. ${v.type === 'stop' ? '' : `${STEP_NAMES[v.type] ?? v.type} of `}${v.id}${v.arrival ? `, arrives ${parisTimeUp(v.arrival)}` : ''}${v.late ? `, late by ${v.late.retardMin} min` : ''}`,
        })),
    };
  });
  const unassignedPoints = plan.unassigned.flatMap((u) => {
    const shipment = inputs.shipments.get(u.id);
    if (!shipment) return [{ ...inputs.stops.get(u.id), id: u.id, label: `${u.id}: not assigned (${u.reason})` }];
    return [
      ['pickup', '▲'],
      ['delivery', '▼'],
    ].map(([end, symbol]) => ({
      ...shipment[end],
      id: u.id,
      symbol,
      label: `${end === 'pickup' ? 'Pickup' : 'Delivery'} of ${u.id}: not assigned (${u.reason})`,
    }));
  });
  renderFleetMap($('plans-map'), { routes: mapRoutes, unassigned: unassignedPoints });

  const schedules = $('plans-schedules');
  schedules.replaceChildren();
  for (const route of plan.routes)
    schedules.append(routeSchedule(route, vehicles.get(route.vehicleId) ?? {}, visitsOf.get(route)));
  $('plans-result').hidden = false;
}
