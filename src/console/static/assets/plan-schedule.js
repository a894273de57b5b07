// The schedule of one fleet route: a row per stop, pickup, delivery and break (the answer's steps between
// the start and the end), with arrival, service start, departure, load on board after it, window and status.
import { duration, parisDay, parisTime, parisTimeUp } from './format.js';
import { STEP_NAMES, windowText } from './plan-visits.js';

function cell(tr, text, header = false) {
  const c = document.createElement(header ? 'th' : 'td');
  if (header) c.scope = 'row';
  c.textContent = text;
  tr.append(c);
  return c;
}

const loadText = (load) => (load?.length ? load.join(' / ') : '—');

function badge(text, className) {
  const td = document.createElement('td');
  const span = document.createElement('span');
  span.className = `badge ${className}`;
  span.textContent = text;
  td.append(span);
  return td;
}

/** A break's length: the vehicle's durationSeconds as sent, else the step's span. */
function breakMinutes(step, vehicleBreak) {
  if (vehicleBreak?.durationSeconds !== undefined) return Math.round(vehicleBreak.durationSeconds / 60);
  const from = step.serviceStart ?? step.arrival;
  return from && step.departure ? Math.round((Date.parse(step.departure) - Date.parse(from)) / 60_000) : 0;
}

/**
 * @param route a route of the answer
 * @param vehicle the request's vehicle plus its `colour`
 * @param visits routeVisits(route, …)
 */
export function routeSchedule(route, vehicle, visits) {
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
  const time = (iso, format = parisTimeUp) =>
    iso ? `${format(iso)}${departDay && parisDay(iso) !== departDay ? ' (+1 day)' : ''}` : '—';
  const start = route.steps?.find((s) => s.type === 'start');
  const p = document.createElement('p');
  p.className = 'hint';
  p.textContent = `Leaves ${time(route.departAt, parisTime)}${start?.load?.length ? ` with ${loadText(start.load)} on board` : ''}${route.returnAt ? `, back ${time(route.returnAt, parisTime)}` : ', ends at its last stop'} (Paris time).`;

  const table = document.createElement('table');
  table.className = 'plan-schedule';
  const caption = document.createElement('caption');
  caption.className = 'visually-hidden';
  caption.textContent = `Schedule of ${route.vehicleId}`;
  const head = document.createElement('thead');
  head.innerHTML =
    '<tr><th scope="col">#</th><th scope="col">Id</th><th scope="col">Type</th><th scope="col">Arrival</th><th scope="col">Service starts</th><th scope="col">Departs</th><th scope="col">Load after</th><th scope="col">Window</th><th scope="col">Status</th></tr>';
  const tbody = document.createElement('tbody');
  const breaks = new Map((vehicle.breaks ?? []).map((b) => [b.id, b]));
  for (const visit of visits) {
    const tr = document.createElement('tr');
    tr.dataset.type = visit.type;
    if (visit.late) tr.className = 'late';
    const isBreak = visit.order === null;
    const number = cell(tr, isBreak ? '' : String(visit.order));
    if (isBreak) {
      // a pause sign drawn in CSS: not every system font has ⏸
      const icon = document.createElement('span');
      icon.className = 'pause-icon';
      icon.setAttribute('role', 'img');
      icon.setAttribute('aria-label', 'Break');
      number.append(icon);
    }
    cell(tr, visit.id, true);
    cell(tr, STEP_NAMES[visit.type] ?? visit.type);
    cell(tr, time(visit.arrival));
    cell(tr, visit.serviceStart ? time(visit.serviceStart) : 'On arrival');
    cell(tr, time(visit.departure));
    cell(tr, loadText(visit.load));
    if (isBreak) {
      const window = breaks.get(visit.id)?.window;
      cell(tr, window ? `${window.start}–${window.end}` : '—');
      tr.append(badge(`${breakMinutes(visit, breaks.get(visit.id))} min break`, 'break'));
    } else {
      cell(tr, windowText(visit.input));
      const late = visit.late;
      tr.append(
        badge(
          late ? `Late by ${late.retardMin} min` : visit.input.deadline ? 'On time' : 'No deadline',
          late ? 'late' : 'ok',
        ),
      );
    }
    tbody.append(tr);
  }
  table.append(caption, head, tbody);
  const scroll = document.createElement('div');
  scroll.className = 'table-scroll';
  scroll.append(table);
  section.append(h, p, scroll);
  return section;
}
