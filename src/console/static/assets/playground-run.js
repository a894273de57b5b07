// What the route and fleet playgrounds share: one run (build the request, check the key, POST,
// render, say how it went), the departure fields, and a totals entry.
import { callApi, clearError, showError } from './api.js';
import { getKey } from './key-state.js';

/**
 * On submit: `buildRequest()` (a throw is shown and nothing is sent), the page's key, POST `path` (or
 * `send(request, key)`, which resolves with the answer's body), then `render(request, body)` returns the status
 * line. The button is disabled while it runs.
 */
export function runOnSubmit(form, { path, button, status, error, busy, failure, buildRequest, render, send }) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearError(error);
    let request;
    try {
      request = buildRequest();
    } catch (err) {
      showError(error, err);
      return;
    }
    const key = getKey();
    if (!key) {
      showError(error, new Error('Enter an API key under "My key", or create a free test key, first.'));
      return;
    }
    button.disabled = true;
    status.textContent = busy;
    try {
      const body = send ? await send(request, key) : (await callApi(path, { method: 'POST', key, body: request })).body;
      status.textContent = render(request, body);
    } catch (err) {
      status.textContent = '';
      showError(error, err, failure);
    } finally {
      button.disabled = false;
    }
  });
}

/** departureTime (Paris local, from a datetime-local input) and avoidTolls, when set. */
export function departureFields(departureInput, avoidTollsInput) {
  const fields = {};
  const departure = departureInput.value;
  if (departure) fields.departureTime = departure.length === 16 ? departure : departure.slice(0, 19);
  if (avoidTollsInput.checked) fields.avoidTolls = true;
  return fields;
}

/** One entry of a totals list: a name, a value and an optional note under it. */
export function term(list, name, value, note) {
  const div = document.createElement('div');
  const dt = document.createElement('dt');
  dt.textContent = name;
  const dd = document.createElement('dd');
  dd.textContent = value;
  if (note) {
    const small = document.createElement('small');
    small.textContent = note;
    dd.append(small);
  }
  div.append(dt, dd);
  list.append(div);
}
