/** The prepaid packs: stop counts are fixed here, prices and currency come from the config. */
import type { PaymentsConfig } from '../config.js';

/** The packs on sale, in the order they are listed. */
export const PACK_IDS = ['pack_2k', 'pack_10k', 'pack_50k', 'pack_250k'] as const;
export type PackId = (typeof PACK_IDS)[number];

export const PACK_STOPS: Record<PackId, number> = {
  pack_2k: 2_000,
  pack_10k: 10_000,
  pack_50k: 50_000,
  pack_250k: 250_000,
};

export interface Pack {
  id: PackId;
  stops: number;
  priceCents: number;
  currency: string;
}

export function listPacks(payments: Pick<PaymentsConfig, 'currency' | 'packPrices'>): Pack[] {
  return PACK_IDS.map((id) => ({
    id,
    stops: PACK_STOPS[id],
    priceCents: payments.packPrices[id],
    currency: payments.currency,
  }));
}

export const isPackId = (value: unknown): value is PackId =>
  typeof value === 'string' && (PACK_IDS as readonly string[]).includes(value);

export const packName = (pack: Pick<Pack, 'stops'>): string =>
  `Route optimization: ${pack.stops.toLocaleString('en-US')} stops (prepaid)`;
