export const PACK_IDS = ['pack_2k', 'pack_10k', 'pack_50k', 'pack_250k'] as const;
export type PackId = (typeof PACK_IDS)[number];

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

export interface CheckoutRequest {
  email: string;
  packId: PackId;
}
