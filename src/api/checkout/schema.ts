import type { FromSchema } from 'json-schema-to-ts';
import { PACK_IDS } from '../../payments/packs.js';
import type { CheckoutRequest } from '../../payments/types.js';

export type { CheckoutRequest };

export const checkoutRequestSchema = {
  $id: 'CheckoutRequest',
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254, 'x-message': 'must be an e-mail address' },
    packId: { type: 'string', enum: [...PACK_IDS] },
  },
  required: ['email', 'packId'],
  additionalProperties: false,
} as const;

/** Payments declares the request it serves (it may not import the API); the build fails if this schema describes another. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
export type CheckoutSchemaDescribesCheckoutRequest = Holds<
  Same<FromSchema<typeof checkoutRequestSchema>, CheckoutRequest>
>;
