/**
 * A fake Stripe API for tests: node:http on 127.0.0.1, port 0. Answers
 * POST /v1/checkout/sessions with the real Checkout Session object shape,
 * GET /v1/checkout/sessions/:id with a created session (or Stripe's 404
 * resource_missing), and records each form-encoded request. `mode` switches it
 * to 500 answers; tests change a session's status through `sessions`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeStripeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The decoded form body: `line_items[0][price_data][currency]` → `eur`. */
  form: Record<string, string>;
}

export interface FakeStripe {
  url: string;
  port: number;
  requests: FakeStripeRequest[];
  /** Sessions created so far, by id. */
  sessions: Map<string, Record<string, any>>;
  mode: 'ok' | 'error500';
  /** A Stripe Event for a created session, as Stripe would send it to the webhook. */
  event(type: string, sessionId: string, sessionChanges?: Record<string, unknown>): Record<string, any>;
  close(): Promise<void>;
}

const rid = (prefix: string, n = 24): string =>
  prefix + randomBytes(n).toString('base64url').replace(/[-_]/g, 'x').slice(0, n);

function sessionFrom(form: Record<string, string>): Record<string, any> {
  const id = rid('cs_test_a1', 56);
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    const m = /^metadata\[(.+)\]$/.exec(k);
    if (m) metadata[m[1]] = v;
  }
  const amount =
    Number(form['line_items[0][price_data][unit_amount]'] ?? 0) * Number(form['line_items[0][quantity]'] ?? 1);
  const created = Math.floor(Date.now() / 1000);
  return {
    id,
    object: 'checkout.session',
    adaptive_pricing: { enabled: true },
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, status: null },
    billing_address_collection: null,
    cancel_url: form.cancel_url ?? null,
    client_reference_id: form.client_reference_id ?? null,
    client_secret: null,
    consent: null,
    consent_collection: null,
    created,
    currency: form['line_items[0][price_data][currency]'] ?? null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: null,
    customer_creation: 'if_required',
    customer_details: form.customer_email
      ? { address: null, email: form.customer_email, name: null, phone: null, tax_exempt: 'none', tax_ids: null }
      : null,
    customer_email: form.customer_email ?? null,
    expires_at: created + 86_400,
    invoice: null,
    invoice_creation: { enabled: false, invoice_data: {} },
    livemode: false,
    locale: null,
    metadata,
    mode: form.mode ?? 'payment',
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: form.success_url ?? null,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
  };
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  const sessions = new Map<string, Record<string, any>>();
  const fake = { mode: 'ok' } as FakeStripe;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const path = (req.url ?? '').split('?')[0];
      requests.push({ method: req.method ?? '', path, headers: req.headers, form });
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': rid('req_', 14) });
        res.end(JSON.stringify(body));
      };
      if (fake.mode === 'error500') {
        send(500, { error: { type: 'api_error', message: 'Something went wrong on our end (fake).' } });
        return;
      }
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        if (!String(req.headers.authorization ?? '').startsWith('Bearer sk_')) {
          send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
          return;
        }
        const session = sessionFrom(form);
        sessions.set(session.id, session);
        send(200, session);
        return;
      }
      const retrieve = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && retrieve) {
        const session = sessions.get(decodeURIComponent(retrieve[1]));
        if (session) send(200, session);
        else
          send(404, {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              param: 'session',
              message: `No such checkout.session: '${retrieve[1]}'`,
            },
          });
        return;
      }
      send(404, {
        error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path}).` },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    sessions,
    event(type: string, sessionId: string, sessionChanges: Record<string, unknown> = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`fake Stripe: no session ${sessionId}`);
      return {
        id: rid('evt_1', 24),
        object: 'event',
        api_version: '2025-01-01',
        created: Math.floor(Date.now() / 1000),
        data: { object: { ...session, status: 'complete', ...sessionChanges } },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
