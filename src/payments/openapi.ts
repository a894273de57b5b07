/** OpenAPI path items of the payment extensions, merged into the document by app.ts. */
import { PACK_IDS } from '../api/checkout/schema.js';

const errorBody = (codes: string[]): object => ({
  type: 'object',
  properties: { error: { type: 'string', enum: codes }, message: { type: 'string' } },
  required: ['error', 'message'],
});

export const paymentOpenApiPaths: Record<string, object> = {
  '/api/v1/packs': {
    get: {
      summary: 'List the prepaid packs (extension)',
      description: 'Stop counts, prices (in the smallest unit of the currency) and currency of each pack sold through POST /api/v1/checkout. No key is required.',
      operationId: 'listPacks',
      security: [],
      responses: {
        200: {
          description: 'The packs.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  packs: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        id: { type: 'string', enum: [...PACK_IDS] },
                        stops: { type: 'integer', minimum: 1 },
                        priceCents: { type: 'integer', minimum: 0 },
                        currency: { type: 'string', description: 'ISO 4217 code, lower case.' },
                      },
                      required: ['id', 'stops', 'priceCents', 'currency'],
                    },
                  },
                },
                required: ['packs'],
              },
            },
          },
        },
      },
    },
  },
  '/api/v1/webhooks/stripe': {
    post: {
      summary: 'Stripe webhook (for Stripe only)',
      description: 'Receives checkout.session.completed (fulfilled when payment_status is "paid") and checkout.session.async_payment_succeeded. '
        + 'The Stripe-Signature header is verified on the raw body with STRIPE_WEBHOOK_SECRET. A paid session credits the most recent active live key '
        + 'of its e-mail address, or creates one, and e-mails it. Replayed events and other events of the same session credit nothing. Other events are acknowledged and ignored.',
      operationId: 'stripeWebhook',
      security: [],
      parameters: [{ name: 'Stripe-Signature', in: 'header', required: true, schema: { type: 'string' } }],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A Stripe Event object.' } } } },
      responses: {
        200: {
          description: 'Event received.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  received: { const: true },
                  result: { type: 'string', enum: ['credited', 'duplicate', 'ignored'] },
                  createdKey: { type: 'boolean' },
                  reason: { type: 'string' },
                },
                required: ['received', 'result'],
              },
            },
          },
        },
        400: { description: 'Missing or bad signature, or webhooks not configured. Nothing changed.', content: { 'application/json': { schema: errorBody(['invalid_signature', 'invalid_request']) } } },
      },
    },
  },
};
