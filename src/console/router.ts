/**
 * The web console (`/console`) and the API reference (`/docs`), served by the
 * API process itself: static files from `src/console/static/`, swagger-ui-dist's
 * files (both found through assets.ts), and the console's one API call, POST /console/api/test-keys.
 * Nothing is fetched from outside: both pages work offline.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { assetPath } from '../assets.js';
import { compileValidator } from '../http/validate.js';
import type { AppContext, AppState } from '../http/state.js';
import type { ConsoleTestKeys } from './test-keys.js';
import type { CheckoutSessionStatus } from '../payments/sessions.js';

/** What the console asks about payments: on or off, and the state of a checkout session. */
export interface ConsolePayments {
  readonly enabled: boolean;
  status(sessionId: string): Promise<CheckoutSessionStatus>;
}

export const STATIC_DIR = assetPath('console');

/** Console pages: our own files only, no inline script or style. */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'";

/** Swagger UI sets inline styles on its elements, so /docs allows inline styles (never inline scripts). */
export function docsCsp(publicBaseUrl: string): string {
  let connect = "'self'";
  try {
    // "Try it out" calls the document's server, the public base URL, which may be another origin than the page's.
    connect += ` ${new URL(publicBaseUrl).origin}`;
  } catch {
    /* config already validated it */
  }
  return (
    `default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src ${connect}; ` +
    "form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"
  );
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface StaticFile {
  body: Buffer;
  type: string;
}

/** Reads a fixed set of files once; only these names can ever be served (no path from the URL touches the disk). */
function loadFiles(dir: string, names: string[]): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of names) {
    const type = CONTENT_TYPES[extname(name)];
    if (!type) continue;
    files.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return files;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => statSync(join(dir, name)).isFile());
}

function serve(
  ctx: AppContext,
  file: StaticFile | undefined,
  { csp, cacheControl }: { csp: string; cacheControl: string },
): void {
  if (!file) return; // falls through to the 404 Error body
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', cacheControl);
  ctx.type = file.type;
  ctx.body = file.body;
}

const validateTestKeyRequest = compileValidator<{ email: string }>({
  $id: 'ConsoleTestKeyRequest',
  type: 'object',
  properties: { email: { type: 'string', format: 'email', maxLength: 254, 'x-message': 'must be an e-mail address' } },
  required: ['email'],
  additionalProperties: false,
});

/**
 * GET /console (and /console/), /console/checkout/success, /console/checkout/cancel: the pages;
 * GET /console/assets/<file>: their scripts, styles and images;
 * POST /console/api/test-keys {email} → 201 {key}: a free test key, limited per client address and per e-mail;
 * GET /console/api/payments → {enabled}: whether the console offers packs;
 * GET /console/api/checkout-sessions/<id> → {state, …}: what the success page says after a payment.
 */
export function consoleRouter({
  testKeys,
  payments,
  body,
  staticDir = STATIC_DIR,
}: {
  testKeys: ConsoleTestKeys;
  payments?: ConsolePayments;
  body: Middleware<AppState>;
  staticDir?: string;
}): Router<AppState> {
  const pages = loadFiles(staticDir, ['index.html', 'checkout-success.html', 'checkout-cancel.html']);
  const assetsDir = join(staticDir, 'assets');
  const assets = loadFiles(assetsDir, listFiles(assetsDir));
  const page =
    (name: string): Middleware<AppState> =>
    (ctx) =>
      serve(ctx, pages.get(name), { csp: CONSOLE_CSP, cacheControl: 'no-cache' });

  const router = new Router<AppState>();
  router.get('/console', page('index.html'));
  router.get('/console/', page('index.html'));
  router.get('/console/checkout/success', page('checkout-success.html'));
  router.get('/console/checkout/cancel', page('checkout-cancel.html'));
  router.get('/console/assets/:file', (ctx) =>
    serve(ctx, assets.get(ctx.params.file ?? ''), { csp: CONSOLE_CSP, cacheControl: 'no-cache' }),
  );

  router.post('/console/api/test-keys', body, async (ctx) => {
    const { email } = validateTestKeyRequest(ctx.request.body ?? null);
    const { key } = await testKeys.issue(email, ctx.ip);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    ctx.status = 201;
    ctx.body = { key };
  });

  const apiHeaders = (ctx: AppContext): void => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  };
  router.get('/console/api/payments', (ctx) => {
    apiHeaders(ctx);
    ctx.body = { enabled: payments?.enabled ?? false };
  });
  router.get('/console/api/checkout-sessions/:id', async (ctx) => {
    apiHeaders(ctx);
    ctx.body = payments ? await payments.status(ctx.params.id ?? '') : { state: 'unknown' };
  });
  return router;
}

const SWAGGER_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

/** GET /docs: Swagger UI over GET /api/v1/openapi.json; its files under /docs/assets/. */
export function docsRouter({
  publicBaseUrl,
  staticDir = STATIC_DIR,
}: {
  publicBaseUrl: string;
  staticDir?: string;
}): Router<AppState> {
  const csp = docsCsp(publicBaseUrl);
  const swagger = loadFiles(assetPath('swagger-ui'), SWAGGER_FILES);
  // swagger-ui.css ends with a source-map comment; the map is not served, so drop the reference.
  const css = swagger.get('swagger-ui.css');
  if (css) css.body = Buffer.from(css.body.toString('utf8').replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, ''));
  const own = loadFiles(join(staticDir, 'docs'), listFiles(join(staticDir, 'docs')));
  const router = new Router<AppState>();
  const index: Middleware<AppState> = (ctx) => serve(ctx, own.get('index.html'), { csp, cacheControl: 'no-cache' });
  router.get('/docs', index);
  router.get('/docs/', index);
  router.get('/docs/assets/:file', (ctx) => {
    const name = ctx.params.file ?? '';
    const file = name === 'index.html' ? undefined : (own.get(name) ?? swagger.get(name));
    serve(ctx, file, { csp, cacheControl: swagger.has(name) ? 'public, max-age=86400' : 'no-cache' });
  });
  return router;
}
