// "Buy stops": the packs from GET /api/v1/packs, then POST /api/v1/checkout → the payment page.
import { callApi, clearError, showError } from './api.js';
import { count, money } from './format.js';

function packCard(pack, checked) {
  const wrapper = document.createElement('div');
  wrapper.className = 'pack';
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = 'packId';
  input.value = pack.id;
  input.id = `pack-${pack.id}`;
  input.checked = checked;
  const label = document.createElement('label');
  label.htmlFor = input.id;
  const stops = document.createElement('span');
  stops.className = 'stops';
  stops.textContent = `${count(pack.stops)} stops`;
  const price = document.createElement('span');
  price.className = 'price';
  price.textContent = money(pack.priceCents, pack.currency);
  const unit = document.createElement('span');
  unit.className = 'unit';
  unit.textContent = `${money(Math.round((pack.priceCents * 1000) / pack.stops), pack.currency)} per 1,000 stops`;
  label.append(stops, price, unit);
  wrapper.append(input, label);
  return wrapper;
}

export function initBuy() {
  const form = document.getElementById('buy-form');
  const fieldset = document.getElementById('packs-fieldset');
  const packs = document.getElementById('packs');
  const packsError = document.getElementById('packs-error');
  const email = document.getElementById('buy-email');
  const submit = document.getElementById('buy-submit');
  const error = document.getElementById('buy-error');

  const off = document.getElementById('payments-off');

  /** Payments off: no pack form, a note saying how to turn payments on instead. */
  async function paymentsEnabled() {
    try {
      const { body } = await callApi('/console/api/payments');
      return Boolean(body && body.enabled);
    } catch {
      return true; // cannot tell: show the packs; checkout itself answers 503 if payments are off
    }
  }

  async function load() {
    if (!(await paymentsEnabled())) {
      form.hidden = true;
      off.hidden = false;
      return;
    }
    form.hidden = false;
    try {
      const { body } = await callApi('/api/v1/packs');
      const list = body && Array.isArray(body.packs) ? body.packs : [];
      if (list.length === 0) throw new Error('No packs are on sale on this server.');
      packs.replaceChildren(...list.map((pack, i) => packCard(pack, i === 0)));
      fieldset.disabled = false;
      submit.disabled = false;
      clearError(packsError);
    } catch (err) {
      packs.replaceChildren();
      const p = document.createElement('p');
      p.className = 'hint';
      p.textContent = 'No packs to show.';
      packs.append(p);
      showError(packsError, err, 'The packs could not be loaded:');
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearError(error);
    email.removeAttribute('aria-invalid');
    const selected = form.querySelector('input[name="packId"]:checked');
    if (!selected) {
      showError(error, new Error('Choose a pack.'));
      return;
    }
    if (!email.value.trim() || !email.checkValidity()) {
      email.setAttribute('aria-invalid', 'true');
      showError(error, new Error('Enter the e-mail address the live key should be sent to.'));
      email.focus();
      return;
    }
    submit.disabled = true;
    try {
      const { body } = await callApi('/api/v1/checkout', {
        method: 'POST',
        body: { email: email.value.trim(), packId: selected.value },
      });
      const url = new URL(body.url, location.href);
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new Error('The payment link is not a web address.');
      location.assign(url.href);
    } catch (err) {
      showError(error, err, 'The payment page could not be opened:');
      submit.disabled = false;
    }
  });

  void load();
}
