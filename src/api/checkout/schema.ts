import { PACK_IDS } from '../../payments/packs.js';

export type { CheckoutRequest } from '../../payments/types.js';

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
