import { Router } from '@koa/router';
import type { AppState } from '../../http/state.js';
import { buildOpenApiDocument, type PathItems } from './document.js';

export function openApiRouter({
  publicBaseUrl,
  extraPaths,
}: {
  publicBaseUrl: string;
  extraPaths?: PathItems;
}): Router<AppState> {
  const document = buildOpenApiDocument(publicBaseUrl, extraPaths);
  const router = new Router<AppState>();
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
