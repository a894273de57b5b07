/**
 * The size of the largest valid request of an endpoint, read from its JSON Schema: every array at its
 * maxItems, every string at its maxLength, every optional property present, the largest branch of a oneOf.
 * An authenticated route's body limit is this size (src/http/body.ts), so the limit never refuses a request
 * the schema accepts, and never accepts one much larger than the largest the schema could.
 *
 * Counted generously, as clients really write JSON:
 *   - a string character as one byte (ids and addresses are mostly ASCII; see docs/api.md "Limits" for the
 *     rest), a string with a pattern but no maxLength as the pattern's length (an anchored pattern without
 *     repetition never matches more characters than it has);
 *   - a number as 24 characters (the longest a double prints as: -1.2345678901234567e-308);
 *   - whitespace as a pretty printer with CRLF line ends and 4 spaces per level writes it: a line break and
 *     its indentation before every value and every closing bracket, a space after every colon;
 *   - except a table of numbers marked `'x-body-size': 'table'` (a travel matrix): a row per line, its
 *     numbers written compactly, each of at most TABLE_NUMBER_CHARS characters (a whole second or metre
 *     up to the schema's maximum with a few decimals: 1000000.1234). Counted pretty, one number a line, a
 *     full matrix would raise the limit tenfold for whitespace nobody sends.
 *   - an object marked `'x-body-size': {shared: [names]}` counts those array properties as alternatives (their
 *     items share one budget, as a plan's stops and shipments share its 1000 stops): the largest one full, plus
 *     the others empty.
 * A schema that bounds nothing (an array without maxItems, a string without maxLength or a bounded pattern,
 * an open object) throws: its largest valid request is infinite, so its limit must be chosen by hand.
 */

type Schema = Record<string, unknown>;

const NUMBER_CHARS = 24;
const TABLE_NUMBER_CHARS = 12;
const INDENT = 4;
const LINE_BREAK = 2;

/** Characters before a value at `depth` (0: the body itself, which starts on the first line). */
const lineBefore = (depth: number): number => (depth === 0 ? 0 : LINE_BREAK + INDENT * depth);

function patternLength(pattern: string | undefined, where: string): number {
  if (pattern === undefined) throw new Error(`${where} has no maxLength: its size has no bound`);
  // escapes count as the one character they match; any repetition (* + ? {n}) can match more than written
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || /[*+?{]/.test(pattern.replace(/\\./g, '')))
    throw new Error(`${where}: pattern ${pattern} does not bound the length of its strings; give it a maxLength`);
  return pattern.length;
}

function valueBytes(schema: Schema, depth: number, where: string): number {
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches) return Math.max(...branches.map((b) => valueBytes(b, depth, where)));
  switch (schema.type) {
    case 'object': {
      if (schema.additionalProperties !== false) throw new Error(`${where} is an open object: its size has no bound`);
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      // "{" and "}" on its own line; each property: its line, "key": value, and a comma
      let bytes = 2 + lineBefore(depth + 1) - INDENT;
      const property = (key: string, value: Schema) =>
        lineBefore(depth + 1) + JSON.stringify(key).length + 2 + valueBytes(value, depth + 1, key) + 1;
      // arrays that share one budget of items (a plan's stops and shipments): the largest of them full, the others empty
      const shared = ((schema['x-body-size'] as { shared?: string[] } | undefined)?.shared ?? []) as string[];
      for (const [key, value] of properties) if (!shared.includes(key)) bytes += property(key, value);
      const alone = properties.filter(([key]) => shared.includes(key)).map(([key, value]) => property(key, value));
      if (alone.length > 0) bytes += Math.max(...alone) + alone.length * (lineBefore(depth + 1) + 2 + 32);
      return bytes;
    }
    case 'array': {
      if (typeof schema.maxItems !== 'number') throw new Error(`${where} has no maxItems: its size has no bound`);
      if (schema['x-body-size'] === 'table') return tableBytes(schema, depth, where);
      const item = lineBefore(depth + 1) + valueBytes(schema.items as Schema, depth + 1, `${where}[]`) + 1;
      return 2 + lineBefore(depth + 1) - INDENT + schema.maxItems * item;
    }
    case 'string': {
      const length =
        typeof schema.maxLength === 'number'
          ? schema.maxLength
          : patternLength(schema.pattern as string | undefined, where);
      return 2 + length;
    }
    case 'number':
    case 'integer':
      return NUMBER_CHARS;
    case 'boolean':
      return 5;
    default:
      throw new Error(`${where}: cannot size a value of type ${JSON.stringify(schema.type)}`);
  }
}

/** A table of numbers: each row on its own line, `[n,n,…]` written compactly. */
function tableBytes(schema: Schema, depth: number, where: string): number {
  const row = schema.items as Schema;
  if (row.type !== 'array' || typeof row.maxItems !== 'number')
    throw new Error(`${where}: a table's rows are arrays with a maxItems`);
  const rowBytes = lineBefore(depth + 1) + 2 + row.maxItems * (TABLE_NUMBER_CHARS + 1);
  return 2 + lineBefore(depth + 1) - INDENT + (schema.maxItems as number) * rowBytes;
}

/** Bytes of the largest request `schema` accepts, written as described above. */
export function largestValidBodyBytes(schema: object): number {
  return valueBytes(schema as Schema, 0, 'body');
}
