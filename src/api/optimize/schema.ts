/**
 * OptimizeRequest exactly as the spec defines it, made of the Location and Stop every paid call takes
 * (src/calls/location-schema.ts). The same schema validates requests and feeds the OpenAPI document; its
 * TypeScript type is read from it (FromSchema).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { callOptionsProperties, locationJsonSchema, stopJsonSchema } from '../../calls/location-schema.js';

export const optimizeRequestSchema = {
  $id: 'OptimizeRequest',
  title: 'OptimizeRequest',
  description: 'A start, an optional end (return) point and 2 to 200 stops.',
  type: 'object',
  properties: {
    start: locationJsonSchema,
    end: locationJsonSchema,
    stops: {
      type: 'array',
      minItems: 2,
      maxItems: 200,
      items: stopJsonSchema,
      description: '2 to 200 stops; their ids are unique within the call.',
    },
    ...callOptionsProperties,
  },
  required: ['start', 'stops'],
  additionalProperties: false,
} as const;

export type OptimizeRequest = FromSchema<typeof optimizeRequestSchema>;
