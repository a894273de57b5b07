// The API key in use: kept in this page's memory only (never in localStorage, sessionStorage or cookies).
let currentKey = '';
const listeners = new Set();

export function getKey() {
  return currentKey;
}

export function setKey(key) {
  const next = (key ?? '').trim();
  if (next === currentKey) return;
  currentKey = next;
  for (const listener of listeners) listener(currentKey);
}

export function onKeyChange(listener) {
  listeners.add(listener);
}
