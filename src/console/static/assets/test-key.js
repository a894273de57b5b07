// "Get a free test key": POST /console/api/test-keys {email} → {key}, shown once.
import { callApi, clearError, showError } from './api.js';
import { setKey } from './key-state.js';

function curlExample(key) {
  return [
    `curl -s ${location.origin}/api/v1/optimize \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d '{"start": {"latitude": 48.8566, "longitude": 2.3522},`,
    '       "stops": [',
    '         {"id": "a", "latitude": 48.8606, "longitude": 2.3376, "deadline": "10:30"},',
    '         {"id": "b", "latitude": 48.8530, "longitude": 2.3499, "serviceSeconds": 120},',
    '         {"id": "c", "latitude": 48.8738, "longitude": 2.2950}',
    "       ]}'",
  ].join('\n');
}

async function copy(text, status, what) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = `${what} copied to the clipboard.`;
  } catch {
    status.textContent = `Copying is not allowed here: select the ${what.toLowerCase()} and copy it by hand.`;
  }
}

export function initTestKey({ onKeyCreated }) {
  const form = document.getElementById('test-key-form');
  const email = document.getElementById('test-key-email');
  const error = document.getElementById('test-key-error');
  const result = document.getElementById('test-key-result');
  const value = document.getElementById('test-key-value');
  const curl = document.getElementById('test-key-curl');
  const status = document.getElementById('test-key-copy-status');
  const submit = form.querySelector('button[type="submit"]');

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearError(error);
    email.removeAttribute('aria-invalid');
    const address = email.value.trim();
    if (!address || !email.checkValidity()) {
      email.setAttribute('aria-invalid', 'true');
      showError(error, new Error('Enter a valid e-mail address, e.g. name@example.com.'));
      email.focus();
      return;
    }
    submit.disabled = true;
    try {
      const { body } = await callApi('/console/api/test-keys', { method: 'POST', body: { email: address } });
      value.value = body.key;
      curl.textContent = curlExample(body.key);
      status.textContent = '';
      result.hidden = false;
      setKey(body.key);
      value.focus();
      value.select();
      onKeyCreated?.(body.key);
    } catch (err) {
      if (err.code === 'invalid_request') email.setAttribute('aria-invalid', 'true');
      showError(error, err, 'The test key could not be created:');
    } finally {
      submit.disabled = false;
    }
  });

  document.getElementById('test-key-copy').addEventListener('click', () => copy(value.value, status, 'Key'));
  document
    .getElementById('test-key-curl-copy')
    .addEventListener('click', () => copy(curl.textContent ?? '', status, 'Command'));
}
