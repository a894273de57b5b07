// Calls to the service's API from the console, and how their errors are shown.

/** An answer that is not 2xx, or no answer at all (status 0). */
export class ApiFailure extends Error {
  constructor(status, code, message, body = null, retryAfter = null) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
    this.code = code;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/**
 * fetch + JSON with the service's conventions: `Authorization: Bearer <key>` when a key is
 * given (and any `headers`); a non-2xx answer throws ApiFailure carrying the Error body's `error` and `message`.
 */
export async function callApi(path, { method = 'GET', key, body, headers: extra = {} } = {}) {
  const headers = { Accept: 'application/json', ...extra };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers.Authorization = `Bearer ${key}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiFailure(
      0,
      'network_error',
      `The service could not be reached (${err instanceof Error ? err.message : String(err)}).`,
    );
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const code = data && typeof data.error === 'string' ? data.error : `http_${response.status}`;
    const message =
      data && typeof data.message === 'string' ? data.message : response.statusText || 'The request failed.';
    throw new ApiFailure(response.status, code, message, data, response.headers.get('Retry-After'));
  }
  return { status: response.status, body: data, headers: response.headers };
}

/** Fills an error box (role="alert") with "HTTP status · code: message", plus the retry delay when there is one. */
export function showError(box, err, prefix = '') {
  box.replaceChildren();
  if (prefix) box.append(document.createTextNode(`${prefix} `));
  if (err instanceof ApiFailure) {
    if (err.status) {
      const status = document.createElement('strong');
      status.textContent = `${err.status}`;
      box.append(status, document.createTextNode(' '));
    }
    const code = document.createElement('code');
    code.className = 'error-code';
    code.textContent = err.code;
    const message = document.createElement('span');
    message.className = 'error-message';
    message.textContent = err.message;
    box.append(code, document.createTextNode(': '), message);
    if (err.retryAfter && /^\d+$/.test(err.retryAfter)) {
      box.append(document.createTextNode(` (retry in ${formatSeconds(Number(err.retryAfter))})`));
    }
    if (err.body && typeof err.body.required === 'number' && typeof err.body.balance === 'number') {
      box.append(document.createTextNode(` Needed ${err.body.required} stops, balance ${err.body.balance}.`));
    }
  } else {
    const message = document.createElement('span');
    message.className = 'error-message';
    message.textContent = err instanceof Error ? err.message : String(err);
    box.append(message);
  }
  box.hidden = false;
}

export function clearError(box) {
  box.replaceChildren();
  box.hidden = true;
}

function formatSeconds(total) {
  if (total < 60) return `${total} s`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.ceil((total % 3600) / 60);
  return hours > 0 ? `${hours} h ${String(minutes).padStart(2, '0')} min` : `${minutes} min`;
}
