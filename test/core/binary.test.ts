import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, encodeBase64, serveContent, sniffBinary, SNIFF_BYTES } from '../../src/core/binary.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array(b);

describe('sniffBinary', () => {
  const text: [string, Uint8Array][] = [
    ['empty', bytes()],
    ['ASCII', utf8('hello\nworld\n')],
    ['multi-byte UTF-8', utf8('naïve café — 日本語 😀')],
    ['UTF-8 BOM', bytes(0xef, 0xbb, 0xbf, 0x61)],
    ['control characters other than NUL', bytes(0x01, 0x1b, 0x7f, 0x0a)],
    ['NUL after the first 8000 bytes', new Uint8Array([...new Uint8Array(SNIFF_BYTES).fill(0x61), 0x00])],
  ];
  const binary: [string, Uint8Array][] = [
    ['NUL first', bytes(0x00, 0x61)],
    ['PNG header', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00)],
    ['NUL at byte 7999', new Uint8Array(SNIFF_BYTES).fill(0x61).map((b, i) => (i === SNIFF_BYTES - 1 ? 0 : b))],
    ['UTF-16LE with BOM', bytes(0xff, 0xfe, 0x61, 0x00)],
    ['Latin-1 é', bytes(0x63, 0x61, 0x66, 0xe9)],
    ['lone continuation byte', bytes(0x80)],
    ['truncated multi-byte character at the end', utf8('😀').subarray(0, 3)],
    ['overlong encoding of "/"', bytes(0xc0, 0xaf)],
    ['UTF-8 encoded surrogate', bytes(0xed, 0xa0, 0x80)],
    ['invalid UTF-8 far past the sniff window', new Uint8Array([...new Uint8Array(20_000).fill(0x61), 0xff])],
  ];
  it.each(text)('%s is text', (_n, b) => expect(sniffBinary(b)).toBe(false));
  it.each(binary)('%s is binary', (_n, b) => expect(sniffBinary(b)).toBe(true));
});

describe('serveContent', () => {
  it('serves text as text, keeping a BOM so a round trip is byte-exact', () => {
    const b = bytes(0xef, 0xbb, 0xbf, 0x68, 0x69);
    const served = serveContent(b, { allowBinary: false });
    expect(served).toEqual({ kind: 'text', text: '\uFEFFhi' });
    if (served.kind === 'text') expect(utf8(served.text)).toEqual(b);
  });

  it('serves binary as base64 when allowed', () => {
    expect(serveContent(bytes(0, 1, 2, 255), { allowBinary: true })).toEqual({ kind: 'base64', data: 'AAEC/w==' });
  });

  it('refuses binary otherwise, with a message that says what to do and echoes no content', () => {
    const served = serveContent(bytes(0x89, 0x50, 0x4e, 0x47, 0x00), { allowBinary: false });
    expect(served.kind).toBe('refused');
    if (served.kind === 'refused') {
      expect(served.message).toMatch(/binary/);
      expect(served.message).toMatch(/instead/);
      expect(served.message).not.toMatch(/PNG/);
    }
  });

  it('serves empty files as empty text', () => {
    expect(serveContent(bytes(), { allowBinary: false })).toEqual({ kind: 'text', text: '' });
  });
});

describe('encodeBase64', () => {
  it.each([
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg=='],
    ['fooba', 'Zm9vYmE='],
    ['foobar', 'Zm9vYmFy'],
  ])('RFC 4648 vector %j', (input, out) => expect(encodeBase64(utf8(input))).toBe(out));

  it('agrees with Buffer on arbitrary bytes, including lengths across the internal slice size', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 30_000 }), (b) => {
        expect(encodeBase64(b)).toBe(Buffer.from(b).toString('base64'));
      }),
      { numRuns: 60 },
    );
    for (const n of [12_287, 12_288, 12_289, 24_576, 24_577]) {
      const b = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 255);
      expect(encodeBase64(b)).toBe(Buffer.from(b).toString('base64'));
    }
  });

  it('respects a subarray view (offset and length), not the whole backing buffer', () => {
    const whole = bytes(1, 2, 3, 4, 5, 6);
    expect(encodeBase64(whole.subarray(2, 5))).toBe(Buffer.from([3, 4, 5]).toString('base64'));
  });
});

describe('properties', () => {
  it('any string encoded as UTF-8 without NUL is text and decodes back to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => {
        const clean = s.replaceAll('\u0000', '');
        const b = utf8(clean);
        expect(sniffBinary(b)).toBe(false);
        expect(decodeUtf8(b)).toBe(clean);
      }),
    );
  });

  it('serveContent never loses bytes: text re-encodes to the input, base64 decodes to it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 500 }), (b) => {
        const served = serveContent(b, { allowBinary: true });
        if (served.kind === 'text') expect(utf8(served.text)).toEqual(b);
        else if (served.kind === 'base64') expect(new Uint8Array(Buffer.from(served.data, 'base64'))).toEqual(b);
        else expect.unreachable('binary is allowed');
      }),
    );
  });

  it('a NUL in the sniff window always means binary', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ maxLength: 100 }), (a, z) => {
        expect(sniffBinary(utf8(`${a}\u0000${z}`))).toBe(true);
      }),
    );
  });
});
