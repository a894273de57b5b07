// "My key": GET /api/v1/balance → the live balance, or the sandbox quotas of a test key.
import { callApi, clearError, showError } from './api.js';
import { count, fromNow, nextParisMidnight, parisDateTime } from './format.js';
import { getKey, onKeyChange, setKey } from './key-state.js';

function item(term, value, note) {
  const div = document.createElement('div');
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  if (note) {
    const small = document.createElement('small');
    small.textContent = note;
    dd.append(small);
  }
  div.append(dt, dd);
  return div;
}

function badge(text, kind) {
  const span = document.createElement('span');
  span.className = `badge ${kind}`;
  span.textContent = text;
  return span;
}

export function renderBalance(box, balance, now = new Date()) {
  const heading = document.createElement('p');
  const list = document.createElement('dl');
  list.className = 'quota-list';
  if (balance.sandbox) {
    heading.append(badge('Test key · sandbox', 'test'));
    const midnight = nextParisMidnight(now);
    list.append(
      item(
        'Stops left today',
        count(balance.sandboxStopsRemainingToday),
        `resets at midnight Paris time, ${parisDateTime(midnight)} (${fromNow(midnight, now)})`,
      ),
      item(
        'Calls left this minute',
        count(balance.sandboxCallsRemainingThisMinute),
        'rolling window: each call counts for 60 seconds',
      ),
    );
  } else {
    heading.append(badge('Live key', 'live'));
    list.append(item('Balance', `${count(balance.stopsBalance)} stops`, 'one stop is debited per stop sent'));
  }
  box.replaceChildren(heading, list);
  box.hidden = false;
}

export function initMyKey() {
  const form = document.getElementById('my-key-form');
  const input = document.getElementById('my-key-input');
  const show = document.getElementById('my-key-show');
  const error = document.getElementById('my-key-error');
  const result = document.getElementById('my-key-result');
  const submit = form.querySelector('button[type="submit"]');

  async function refresh({ quiet = false } = {}) {
    const key = getKey();
    if (!key) {
      if (!quiet) showError(error, new Error('Paste an API key first (svc_test_… or svc_live_…).'));
      return;
    }
    if (!quiet) submit.disabled = true;
    try {
      const { body } = await callApi('/api/v1/balance', { key });
      clearError(error);
      renderBalance(result, body);
    } catch (err) {
      result.hidden = true;
      showError(error, err, 'The balance could not be read:');
    } finally {
      submit.disabled = false;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearError(error);
    setKey(input.value);
    void refresh();
  });
  input.addEventListener('change', () => setKey(input.value));
  show.addEventListener('change', () => {
    input.type = show.checked ? 'text' : 'password';
  });
  onKeyChange((key) => {
    if (input.value.trim() !== key) input.value = key;
    result.hidden = true;
    clearError(error);
  });
  return { refresh };
}
