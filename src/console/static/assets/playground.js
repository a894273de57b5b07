// The route playground: stops as a table, CSV or JSON → POST /api/v1/optimize → map, schedule, totals.
import { clearError, showError } from './api.js';
import {
  count,
  duration,
  parisDateTime,
  parisDay,
  parisTime,
  parisTimeUp,
  parisTimeWithSeconds,
  parisTomorrowAt,
  TIME_INPUT,
} from './format.js';
import { departureFields, runOnSubmit, term } from './playground-run.js';
import { decodePolyline, renderRouteMap } from './route-map.js';
import { isAddressStop, parseCsv, parseJson, sampleStops, stopFromCells, toCsv, toJson } from './stops.js';

const $ = (id) => document.getElementById(id);

function cellInput(value, label, attributes = {}) {
  const input = document.createElement('input');
  input.type = attributes.type ?? 'text';
  input.value = value === undefined || value === null ? '' : String(value);
  input.setAttribute('aria-label', label);
  for (const [k, v] of Object.entries(attributes)) if (k !== 'type') input.setAttribute(k, v);
  const td = document.createElement('td');
  td.append(input);
  return td;
}

export function initPlayground({ onResult }) {
  const body = $('stops-body');
  const textPanel = $('stops-text-panel');
  const tablePanel = $('stops-table-panel');
  const text = $('stops-text');
  const textLabel = $('stops-text-label');
  const textHint = $('stops-text-hint');
  const error = $('playground-error');
  const status = $('run-status');
  const runButton = $('run');
  let mode = 'table';

  function addRow(stop = {}) {
    const tr = document.createElement('tr');
    const n = body.rows.length + 1;
    tr.append(
      cellInput(stop.id, `Stop ${n} id`, { maxlength: '100', spellcheck: 'false' }),
      cellInput(stop.latitude, `Stop ${n} latitude`, { inputmode: 'decimal' }),
      cellInput(stop.longitude, `Stop ${n} longitude`, { inputmode: 'decimal' }),
      cellInput(stop.deadline, `Stop ${n} deadline (Paris time, optional)`, TIME_INPUT),
      cellInput(stop.serviceSeconds, `Stop ${n} service time in seconds (optional)`, {
        type: 'number',
        min: '0',
        max: '3600',
        step: '1',
      }),
    );
    const td = document.createElement('td');
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'small icon';
    remove.textContent = '✕';
    remove.setAttribute('aria-label', `Remove stop ${n}`);
    remove.addEventListener('click', () => {
      const next = tr.nextElementSibling ?? tr.previousElementSibling;
      tr.remove();
      renumber();
      (next?.querySelector('input') ?? $('add-stop')).focus();
    });
    td.append(remove);
    tr.append(td);
    body.append(tr);
    return tr;
  }

  function renumber() {
    [...body.rows].forEach((tr, i) => {
      const labels = [
        'id',
        'latitude',
        'longitude',
        'deadline (Paris time, optional)',
        'service time in seconds (optional)',
      ];
      tr.querySelectorAll('input').forEach((input, j) =>
        input.setAttribute('aria-label', `Stop ${i + 1} ${labels[j]}`),
      );
      tr.querySelector('button')?.setAttribute('aria-label', `Remove stop ${i + 1}`);
    });
  }

  function readTable() {
    const stops = [];
    [...body.rows].forEach((tr, i) => {
      const cells = [...tr.querySelectorAll('input')].map((input) => input.value.trim());
      if (cells.every((c) => c === '')) return;
      stops.push(stopFromCells(cells, `Stop ${i + 1}`));
    });
    return stops;
  }

  function writeTable(stops) {
    const address = stops.find(isAddressStop);
    if (address)
      throw new Error(`stop "${address.id}" is an address: the table takes coordinates, keep addresses in JSON`);
    body.replaceChildren();
    for (const stop of stops) addRow(stop);
    if (stops.length === 0) {
      addRow();
      addRow();
    }
  }

  function readStops() {
    if (mode === 'table') return readTable();
    return mode === 'csv' ? parseCsv(text.value) : parseJson(text.value);
  }

  function showMode(next, stops) {
    // fill the new form first: one that cannot hold these stops (addresses in the table) throws and changes nothing
    if (next === 'table') writeTable(stops);
    else text.value = next === 'csv' ? toCsv(stops) : toJson(stops);
    mode = next;
    tablePanel.hidden = next !== 'table';
    textPanel.hidden = next === 'table';
    if (next !== 'table') {
      textLabel.textContent = next === 'csv' ? 'Stops as CSV' : "Stops as JSON (the API's stops array)";
      textHint.textContent =
        next === 'csv'
          ? 'One stop per line: id,latitude,longitude[,deadline][,serviceSeconds]; deadline as HH:MM (Paris time). A header line is optional.'
          : 'An array of stops: [{"id": "a", "latitude": 48.86, "longitude": 2.34, "deadline": "10:30", "serviceSeconds": 120}, …]; ' +
            'with a live key a stop may be an address: {"id": "b", "street": "1 rue de Rivoli", "postalCode": "75004", "city": "Paris"}.';
    }
  }

  for (const radio of document.querySelectorAll('input[name="stops-mode"]')) {
    radio.addEventListener('change', () => {
      if (!radio.checked || radio.value === mode) return;
      try {
        const stops = readStops();
        clearError(error);
        showMode(radio.value, stops);
      } catch (err) {
        showError(error, err, 'Fix the stops first:');
        $(`mode-${mode}`).checked = true;
      }
    });
  }

  $('add-stop').addEventListener('click', () => addRow().querySelector('input').focus());
  $('clear-stops').addEventListener('click', () => {
    clearError(error);
    showMode(mode, []);
  });
  $('sample').addEventListener('click', () => {
    clearError(error);
    if (!$('departure').value) $('departure').value = parisTomorrowAt(8, 0);
    showMode(mode, sampleStops(10));
    status.textContent = 'Sample loaded: 10 stops around Paris.';
  });
  $('end-same').addEventListener('click', () => {
    $('end-lat').value = $('start-lat').value;
    $('end-lon').value = $('start-lon').value;
  });

  function point(latId, lonId, what, optional) {
    const lat = $(latId).value.trim();
    const lon = $(lonId).value.trim();
    $(latId).removeAttribute('aria-invalid');
    $(lonId).removeAttribute('aria-invalid');
    if (optional && lat === '' && lon === '') return undefined;
    const bad = (id) => {
      $(id).setAttribute('aria-invalid', 'true');
      $(id).focus();
    };
    if (lat === '' || !Number.isFinite(Number(lat))) {
      bad(latId);
      throw new Error(`${what} latitude must be a number.`);
    }
    if (lon === '' || !Number.isFinite(Number(lon))) {
      bad(lonId);
      throw new Error(`${what} longitude must be a number.`);
    }
    return { latitude: Number(lat), longitude: Number(lon) };
  }

  runOnSubmit($('playground-form'), {
    path: '/api/v1/optimize',
    button: runButton,
    status,
    error,
    busy: 'Optimizing…',
    failure: 'The route could not be optimized:',
    buildRequest: () => {
      const start = point('start-lat', 'start-lon', 'Start', false);
      const end = point('end-lat', 'end-lon', 'End', true);
      const stops = readStops();
      return {
        start,
        ...(end ? { end } : {}),
        stops,
        ...departureFields($('departure'), $('avoid-tolls')),
        geometry: true,
      };
    },
    render: (request, route) => {
      renderResult(request, route);
      onResult?.(route);
      return `Route optimized: ${route.order.length} stops.`;
    },
  });

  showMode('table', []);
}

/** Draws the answer of /api/v1/optimize: totals, the map and the schedule. */
export function renderResult(request, route) {
  const inputs = new Map(request.stops.map((s) => [s.id, s]));
  const arrivals = new Map((route.schedule ?? []).map((e) => [e.colisId, e.arrivee]));
  const late = new Map((route.lateStops ?? []).map((l) => [l.colisId, l]));
  const departDay = route.departAt ? parisDay(route.departAt) : null;
  const dayNote = (iso) => (departDay && parisDay(iso) !== departDay ? ' (+1 day)' : '');
  const waypoints = [...route.waypoints].sort((a, b) => a.order - b.order);
  renderWarnings(route.warnings ?? []);
  $('playground-result')
    .querySelector('.result-grid')
    .classList.toggle(
      'with-addresses',
      waypoints.some((w) => w.geocoding),
    );

  const totals = $('totals');
  totals.replaceChildren();
  term(totals, 'Distance', `${route.totalDistanceKm.toFixed(2)} km`);
  term(totals, 'Duration', duration(route.estimatedTimeMin));
  term(totals, 'Departure', route.departAt ? parisDateTime(route.departAt) : '—', 'Paris time');
  term(
    totals,
    'Return',
    route.returnAt ? `${parisTime(route.returnAt)}${dayNote(route.returnAt)}` : '—',
    route.returnAt ? 'at the end point' : 'no end point sent',
  );
  term(totals, 'Late stops', String(late.size), late.size ? 'arrive after their deadline' : 'every deadline is met');
  term(
    totals,
    'Charged',
    `${count(route.stopsCharged)} stops`,
    route.sandbox ? 'test key: the sandbox is free' : 'live key',
  );
  if (route.sandbox)
    term(totals, 'Left today', `${count(route.sandboxStopsRemainingToday)} stops`, 'sandbox daily quota');
  else if (typeof route.stopsBalance === 'number')
    term(totals, 'Balance', `${count(route.stopsBalance)} stops`, 'after this call');

  const mapStops = waypoints.map((w) => {
    const input = inputs.get(w.id) ?? {};
    const arrival = arrivals.get(w.id);
    const lateness = late.get(w.id);
    return {
      id: w.id,
      order: w.order,
      latitude: w.latitude ?? input.latitude,
      longitude: w.longitude ?? input.longitude,
      late: Boolean(lateness),
      label: `${w.order}. ${w.id}${arrival ? `, arrives ${parisTimeUp(arrival)}` : ''}${lateness ? `, late by ${lateness.retardMin} min` : ''}`,
    };
  });
  renderRouteMap($('route-map'), {
    start: request.start,
    end: request.end,
    stops: mapStops,
    ...(route.geometry ? { line: decodePolyline(route.geometry) } : {}),
  });

  const tbody = $('schedule-table').querySelector('tbody');
  tbody.replaceChildren();
  for (const w of waypoints) {
    const input = inputs.get(w.id) ?? {};
    const arrival = arrivals.get(w.id);
    const lateness = late.get(w.id);
    const tr = document.createElement('tr');
    if (lateness) tr.className = 'late';
    const cells = [
      String(w.order),
      w.id,
      arrival ? `${parisTimeUp(arrival)}${dayNote(arrival)}` : '—',
      input.deadline ?? '—',
      input.serviceSeconds ? duration(input.serviceSeconds / 60) : '—',
    ];
    for (const [i, value] of cells.entries()) {
      const cell = document.createElement(i === 1 ? 'th' : 'td');
      if (i === 1) cell.scope = 'row';
      if (i === 2 && arrival) cell.title = `${parisTimeWithSeconds(arrival)}, rounded up to the minute`;
      cell.textContent = value;
      tr.append(cell);
    }
    const statusCell = document.createElement('td');
    const badge = document.createElement('span');
    badge.className = lateness ? 'badge late' : 'badge ok';
    badge.textContent = lateness ? `Late by ${lateness.retardMin} min` : input.deadline ? 'On time' : 'No deadline';
    statusCell.append(badge);
    tr.append(statusCell, locatedCell(w.geocoding));
    tbody.append(tr);
  }
  $('playground-result').hidden = false;
}

const PRECISION_NAMES = {
  housenumber: 'House number',
  street: 'Street',
  locality: 'Locality',
  municipality: 'Commune only',
};

/** Where an address stop was placed: its precision (a badge, amber when coarser than the street) and what the geocoder matched. */
function locatedCell(geocoding) {
  const td = document.createElement('td');
  if (!geocoding) {
    td.textContent = 'As sent';
    return td;
  }
  const badge = document.createElement('span');
  const coarse = geocoding.precision === 'locality' || geocoding.precision === 'municipality';
  badge.className = coarse ? 'badge imprecise' : 'badge ok';
  badge.textContent = PRECISION_NAMES[geocoding.precision] ?? geocoding.precision;
  const small = document.createElement('small');
  small.className = 'located-label';
  small.textContent = `${geocoding.label} (${geocoding.provider})`;
  td.append(badge, small);
  return td;
}

/** The answer's warnings (stops placed coarser than their street), above the schedule; hidden when there are none. */
function renderWarnings(warnings) {
  const box = $('route-warnings');
  const list = box.querySelector('ul');
  list.replaceChildren();
  for (const w of warnings) {
    const li = document.createElement('li');
    li.textContent = w.message;
    li.dataset.code = w.code;
    list.append(li);
  }
  box.hidden = warnings.length === 0;
}
