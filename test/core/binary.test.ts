import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, sniffBinary, SNIFF_BYTES } from '../../src/core/binary.js';
import { scopeOf, UNRESTRICTED } from '../../src/core/scope.js';
import { serveRead } from '../../src/core/serve.js';

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

describe('serveRead', () => {
  const agentScope = scopeOf({ read: ['app/**'], write: [] });
  const policy = { scope: agentScope, allowBinary: false, judgeLinks: true };
  const file = (b: Uint8Array, symlink = false) => ({
    path: 'app/f',
    size: b.length,
    bytes: b,
    ...(symlink ? { symlink } : {}),
  });

  it('serves text as text, keeping a BOM so a round trip is byte-exact', () => {
    const b = bytes(0xef, 0xbb, 0xbf, 0x68, 0x69);
    const served = serveRead(file(b), policy);
    expect(served).toEqual({ kind: 'text', text: '\uFEFFhi', symlink: false });
    if (served.kind === 'text') expect(utf8(served.text)).toEqual(b);
  });

  it('serves binary as base64 when allowed', () => {
    expect(serveRead(file(bytes(0, 1, 2, 255)), { ...policy, allowBinary: true })).toEqual({
      kind: 'base64',
      bytes: bytes(0, 1, 2, 255),
      symlink: false,
    });
  });

  it('refuses binary otherwise, with a message that says what to do and echoes no content', () => {
    const served = serveRead(file(bytes(0x89, 0x50, 0x4e, 0x47, 0x00)), policy);
    expect(served.kind).toBe('refused');
    if (served.kind === 'refused') {
      expect(served.message).toMatch(/binary/);
      expect(served.message).toMatch(/Ask the operator/);
      expect(served.message).not.toMatch(/PNG/);
    }
  });

  it('serves empty files as empty text', () => {
    expect(serveRead(file(bytes()), policy)).toEqual({ kind: 'text', text: '', symlink: false });
  });

  it('serves a symlink only when its target is readable; the operator surface sees every link', () => {
    expect(serveRead(file(utf8('lib/x.ts'), true), policy)).toEqual({ kind: 'text', text: 'lib/x.ts', symlink: true });
    expect(serveRead(file(utf8('../secret/k'), true), policy)).toEqual({ kind: 'missing' });
    expect(serveRead(file(utf8('/etc/passwd'), true), policy)).toEqual({ kind: 'missing' });
    expect(serveRead(file(bytes(0xff, 0x2f), true), policy)).toEqual({ kind: 'missing' });
    expect(
      serveRead(file(utf8('/etc/passwd'), true), { scope: UNRESTRICTED, allowBinary: true, judgeLinks: false }).kind,
    ).toBe('text');
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

  it('serveRead never loses bytes: text re-encodes to the input, binary is handed back as is', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 500 }), (b) => {
        const served = serveRead(
          { path: 'f', size: b.length, bytes: b },
          { scope: UNRESTRICTED, allowBinary: true, judgeLinks: false },
        );
        if (served.kind === 'text') expect(utf8(served.text)).toEqual(b);
        else if (served.kind === 'base64') expect(served.bytes).toEqual(b);
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
