/**
 * Text normalisation shared by the embedded gazetteer, the geocode cache key and the build script.
 *
 * normaliseName("Saint-Étienne") === normaliseName("ST ETIENNE") === "saint etienne"
 *   - lower case, accents removed (NFD + strip combining marks), œ → oe, æ → ae, ß → ss
 *   - hyphens, apostrophes (' ’ ʼ `), dots, commas, slashes and other punctuation become spaces
 *   - runs of spaces collapse; leading/trailing spaces are trimmed
 *   - the abbreviations "st" → "saint", "ste" → "sainte" (whole words only)
 *   - a trailing "cedex" (with or without a number) is removed: "Paris Cedex 04" → "paris"
 */
import type { Address } from './types.js';

const WORD_EXPANSIONS: Record<string, string> = {
  st: 'saint',
  ste: 'sainte',
  sts: 'saints',
  stes: 'saintes',
};

export function normaliseText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/œ/g, 'oe')
    .replace(/æ/g, 'ae')
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export function normaliseName(s: string): string {
  const words = normaliseText(s)
    .split(' ')
    .filter((w) => w.length > 0)
    .map((w) => WORD_EXPANSIONS[w] ?? w);
  // "cedex", "cedex 4", "cedex 04" at the end of a city line carries no place information.
  const cedex = words.lastIndexOf('cedex');
  if (cedex > 0 && words.slice(cedex + 1).every((w) => /^\d+$/.test(w))) words.length = cedex;
  return words.join(' ');
}

/**
 * Postal code as 5 digits: spaces removed; a 4-digit code (a spreadsheet dropped the leading
 * zero, "1000" for "01000") is left-padded. Anything else is returned trimmed and will match nothing.
 */
export function normalisePostalCode(s: string): string {
  const compact = s.replace(/\s+/g, '');
  if (/^\d{4}$/.test(compact)) return `0${compact}`;
  return compact;
}

/** Cache key of an address: normalised street | postal code | normalised city. */
export function normaliseAddressKey(a: Address): string {
  return `${normaliseName(a.street)}|${normalisePostalCode(a.postalCode)}|${normaliseName(a.city)}`;
}
