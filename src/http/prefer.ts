/** The `Prefer` request header (RFC 7240) as asynchronous plans read it. */

/**
 * True when `Prefer` asks for `respond-async`: preferences are comma-separated (the header may also be sent
 * several times, which Node joins with ", "), names are case-insensitive, and a preference may carry
 * parameters after `;` or a value after `=`.
 */
export function prefersRespondAsync(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const values = Array.isArray(header) ? header : [header];
  return values
    .flatMap((v) => v.split(','))
    .some((preference) => preference.split(/[;=]/, 1)[0]!.trim().toLowerCase() === 'respond-async');
}
