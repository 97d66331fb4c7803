// Canonical JSON: the one byte form that is hashed and signed. Writer and verifier both call this, so they agree by
// construction; the rules are written down in index.ts for anyone writing a verifier in another language.

/** Compares keys by UTF-8 byte order (the default sort is UTF-16 order, which differs above U+FFFF). */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

// Without surrogates (characters above U+FFFF) UTF-16 order is code point order, which is UTF-8 byte order; the
// default sort is then exact and far cheaper than encoding every key on every comparison.
const SURROGATE = /[\uD800-\uDFFF]/;
function sortKeys(keys: string[]): string[] {
  return keys.some((k) => SURROGATE.test(k)) ? keys.sort(byUtf8) : keys.sort();
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
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i === 0 ? '' : ',') + canonicalJson(v === undefined ? null : v);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  for (const k of sortKeys(Object.keys(obj))) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
  }
  return `${out}}`;
}

/** Round-trips a caller's value through JSON so what is hashed is exactly what a reader will parse back. */
export function toJsonValue(value: unknown): unknown {
  const s = JSON.stringify(value);
  return s === undefined ? null : (JSON.parse(s) as unknown);
}
