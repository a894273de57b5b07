/**
 * What payments add to the OpenAPI document: the pack list (a path, merged by
 * app.ts) and the Stripe webhook (a `webhooks` entry: Stripe calls it, API
 * clients never do, so generated clients leave it out).
 */
import { PACK_IDS } from '../../payments/packs.js';
import { PACKS_EXAMPLES } from './examples.js';
import {
  defaultErrorResponse,
  errorResponse,
  json,
  payloadTooLargeResponse,
  ref,
  storageUnavailableResponse,
} from './parts.js';

const packList = {
  title: 'PackList',
  type: 'object',
  properties: {
    packs: {
      type: 'array',
      items: {
        title: 'Pack',
        type: 'object',
        properties: {
          id: { type: 'string', enum: [...PACK_IDS], description: 'The packId to send to POST /api/v1/checkout.' },
          stops: { type: 'integer', minimum: 1, description: 'Stops credited to the live key.' },
          priceCents: { type: 'integer', minimum: 0, description: 'Price in the smallest unit of the currency.' },
          currency: { type: 'string', description: 'ISO 4217 code, lower case.' },
        },
        required: ['id', 'stops', 'priceCents', 'currency'],
      },
    },
  },
  required: ['packs'],
};

export const paymentOpenApiPaths: Record<string, object> = {
  '/api/v1/packs': {
    get: {
      tags: ['Payments'],
      summary: 'List the prepaid packs (extension)',
      description:
        'Stop counts, prices (in the smallest unit of the currency) and currency of each pack sold through POST /api/v1/checkout. No key is required.',
      operationId: 'listPacks',
      security: [],
      parameters: [ref('parameters', 'X-Request-Id')],
      responses: {
        200: json('The packs.', packList, PACKS_EXAMPLES),
        default: defaultErrorResponse,
      },
    },
  },
};

const webhookAck = {
  type: 'object',
  properties: {
    received: { const: true },
    result: {
      type: 'string',
      enum: ['credited', 'duplicate', 'ignored'],
      description:
        'credited: a key was created or topped up; duplicate: this event or session was already fulfilled; ignored: not a paid checkout.',
    },
    createdKey: {
      type: 'boolean',
      description: 'credited: true when a new live key was created (false: an existing key was topped up).',
    },
    reason: { type: 'string', description: 'ignored: why.' },
  },
  required: ['received', 'result'],
};

/**
 * POST /api/v1/webhooks/stripe, as a webhook of the document. Tagged Payments, not with a tag of its
 * own: Swagger UI lists webhooks under their own "Webhooks" heading, and a "Webhooks" tag showed a
 * second, empty "Webhooks" group above it.
 */
export const stripeWebhookOpenApi: object = {
  post: {
    tags: ['Payments'],
    summary: 'Stripe checkout events (sent by Stripe to POST /api/v1/webhooks/stripe)',
    description:
      'Stripe delivers events to `POST /api/v1/webhooks/stripe`; API clients never call it. ' +
      'Handles checkout.session.completed (fulfilled when payment_status is "paid") and checkout.session.async_payment_succeeded. ' +
      'The Stripe-Signature header is verified on the raw body with STRIPE_WEBHOOK_SECRET. A paid session credits the most recent active live key ' +
      'of its e-mail address, or creates one, and e-mails it. Replayed events and other events of the same session credit nothing. Other events are acknowledged and ignored.',
    operationId: 'stripeWebhook',
    'x-endpoint': 'POST /api/v1/webhooks/stripe',
    security: [],
    parameters: [
      {
        name: 'Stripe-Signature',
        in: 'header',
        required: true,
        schema: { type: 'string' },
        description: "Stripe's signature of the raw body (t=…,v1=…).",
        examples: {
          stripe: {
            summary: 'As Stripe sends it',
            value: 't=1780293600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
          },
        },
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            description: 'A Stripe Event object.',
            properties: {
              id: { type: 'string' },
              object: { const: 'event' },
              type: { type: 'string' },
              data: { type: 'object' },
            },
            required: ['id', 'type', 'data'],
          },
          examples: {
            completed: {
              summary: 'checkout.session.completed (abridged)',
              value: {
                id: 'evt_1QxYz2AbCdEfGhIj',
                object: 'event',
                type: 'checkout.session.completed',
                data: {
                  object: {
                    id: 'cs_test_a1b2c3',
                    object: 'checkout.session',
                    payment_status: 'paid',
                    customer_email: 'dispatch@example.com',
                    metadata: { packId: 'pack_2k', stops: '2000', email: 'dispatch@example.com' },
                  },
                },
              },
            },
          },
        },
      },
    },
    responses: {
      200: json('Event received.', webhookAck, {
        credited: {
          summary: 'A new live key was created and e-mailed',
          value: { received: true, result: 'credited', createdKey: true },
        },
        duplicate: { summary: 'Already fulfilled', value: { received: true, result: 'duplicate' } },
        ignored: {
          summary: 'Not a paid checkout',
          value: { received: true, result: 'ignored', reason: 'event type not handled' },
        },
      }),
      400: errorResponse(
        'Missing or bad signature, webhooks not configured, or a body that is not JSON. Nothing changed.',
        ['invalid_signature', 'invalid_request'],
      ),
      413: payloadTooLargeResponse,
      503: storageUnavailableResponse,
      default: defaultErrorResponse,
    },
  },
};
