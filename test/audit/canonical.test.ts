import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/audit/index.js';

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order, prints compactly', () => {
    const input = { z: 1, a: { y: 2, b: 3 }, m: [{ z: 1, a: 2 }, 4] };
    expect(canonicalJson(input)).toBe('{"a":{"b":3,"y":2},"m":[{"a":2,"z":1},4],"z":1}');
  });

  it('orders keys by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FF61 sorts after U+1F600 in UTF-16 (0xFF61 > 0xD83D) but before it in UTF-8 (EF.. < F0..).
    expect(canonicalJson({ '\u{1F600}': 1, '\uFF61': 2 })).toBe('{"\uFF61":2,"\u{1F600}":1}');
  });

  it('escapes control characters and leaves "/" and non-ASCII raw', () => {
    expect(canonicalJson({ s: 'a/é\n\u0001' })).toBe('{"s":"a/é\\n\\u0001"}');
  });

  it('drops undefined properties like JSON.stringify', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});
