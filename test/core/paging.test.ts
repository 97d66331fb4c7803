// Byte-bounded pages (issue 11 item 6) and the JSON byte count they rely on.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonStringBytes, pageOf } from '../../src/core/index.js';

describe('pageOf', () => {
  const sizes = [40, 40, 40, 100, 10, 10];
  it('fills each page greedily within the budget and names the next one', () => {
    expect(pageOf(sizes, 100, 1)).toEqual({ ok: true, value: { start: 0, end: 2, next: 2 } });
    expect(pageOf(sizes, 100, 2)).toEqual({ ok: true, value: { start: 2, end: 3, next: 3 } });
    expect(pageOf(sizes, 100, 3)).toEqual({ ok: true, value: { start: 3, end: 4, next: 4 } });
    expect(pageOf(sizes, 100, 4)).toEqual({ ok: true, value: { start: 4, end: 6 } });
  });
  it('puts an item over the budget alone on its page, so paging always moves on', () => {
    expect(pageOf([500, 1, 1], 100, 1)).toEqual({ ok: true, value: { start: 0, end: 1, next: 2 } });
    expect(pageOf([500, 1, 1], 100, 2)).toEqual({ ok: true, value: { start: 1, end: 3 } });
  });
  it('answers page 1 of an empty list, refuses a page past the end with the page count', () => {
    expect(pageOf([], 100, 1)).toEqual({ ok: true, value: { start: 0, end: 0 } });
    expect(pageOf([], 100, 2)).toMatchObject({ ok: false, message: 'page 2 is past the end: this answer has 1 page.' });
    expect(pageOf(sizes, 100, 9)).toMatchObject({
      ok: false,
      message: 'page 9 is past the end: this answer has 4 pages.',
    });
  });
  it('serves everything on one page with an unbounded budget', () => {
    expect(pageOf(sizes, Number.POSITIVE_INFINITY, 1)).toEqual({ ok: true, value: { start: 0, end: 6 } });
  });
});

describe('jsonStringBytes', () => {
  it('counts exactly what JSON.stringify encodes as UTF-8', () => {
    const samples = [
      '',
      'a',
      'src/a.ts',
      'a"b',
      'x\\y',
      '\n\t\r\b\f',
      '\u0001\u001f\u007f',
      'é',
      '中文',
      '😀',
      '\ud800',
      '\udc00x',
      'a\u2028b',
    ];
    for (const s of samples) expect(jsonStringBytes(s), JSON.stringify(s)).toBe(Buffer.byteLength(JSON.stringify(s)));
  });

  it('agrees with JSON.stringify on any string, plain ASCII or not', () => {
    const anyString = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
      fc.string({ unit: fc.constantFrom('a', '/', '"', '\\', ' ', '~', '\x7f', '\x1f', 'é', '\ud800') }),
    );
    fc.assert(
      fc.property(anyString, (s) => jsonStringBytes(s) === Buffer.byteLength(JSON.stringify(s))),
      { numRuns: 2000 },
    );
  });
});
