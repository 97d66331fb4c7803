// Canonical JSON: the one byte form that is hashed and signed. Writer and verifier both call this, so they agree by
// construction; the rules are written down in index.ts for anyone writing a verifier in another language.

/** Compares keys by UTF-8 byte order (the default sort is UTF-16 order, which differs above U+FFFF). */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Serialises a JSON value with object keys sorted recursively by UTF-8 byte order, arrays in order, no whitespace.
 * Numbers and strings are printed by JSON.stringify, which round-trips every value a JavaScript writer can emit.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    // undefined, functions and symbols have no JSON form; callers pass values that came out of JSON.parse.
    if (s === undefined) throw new TypeError('canonicalJson: value has no JSON form');
    return s;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort(byUtf8);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** Round-trips a caller's value through JSON so what is hashed is exactly what a reader will parse back. */
export function toJsonValue(value: unknown): unknown {
  const s = JSON.stringify(value);
  return s === undefined ? null : (JSON.parse(s) as unknown);
}
