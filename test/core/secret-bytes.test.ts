// Issue 9 item 11: the secret scanner skipped content with a NUL (a token in UTF-16 passed) and compressed content.
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressedFormat, scanBytesForSecrets, secretViews } from '../../src/core/index.js';

// Assembled at run time so this file itself does not look like a credential.
const TOKEN = ['ghp', '_', 'R4nd0mL00kingT0kenValue1234567890abcd'].join('');
const text = `# config\nuser: ci\ntoken_value: none\ngithub: ${TOKEN}\n`;
const utf16le = (s: string) => new Uint8Array(Buffer.from(s, 'utf16le'));
const utf16be = (s: string) => new Uint8Array(Buffer.from(s, 'utf16le').swap16());
const withBom = (bom: number[], b: Uint8Array) => new Uint8Array([...bom, ...b]);
const scan = (bytes: Uint8Array, allowCompressed = false) =>
  scanBytesForSecrets([{ path: 'f', bytes }], { allowCompressed });

describe('secret scanning of non-UTF-8 content', () => {
  it.each([
    ['UTF-8', new Uint8Array(Buffer.from(text))],
    ['UTF-16LE without BOM', utf16le(text)],
    ['UTF-16LE with BOM', withBom([0xff, 0xfe], utf16le(text))],
    ['UTF-16BE without BOM', utf16be(text)],
    ['UTF-16BE with BOM', withBom([0xfe, 0xff], utf16be(text))],
    ['UTF-16LE at an odd offset', new Uint8Array([0x41, ...utf16le(text)])],
    ['UTF-32LE', new Uint8Array(Buffer.from([...text].flatMap((c) => [c.charCodeAt(0), 0, 0, 0])))],
    ['NUL-padded text', new Uint8Array(Buffer.from(text.replace(/:/g, ':\u0000')))],
    ['a token inside a binary blob', new Uint8Array([0, 1, 2, 0xff, ...Buffer.from(`\n${TOKEN}\n`), 0, 0x90])],
  ])('finds the token in %s, on its line', (_name, bytes) => {
    const r = scan(bytes);
    expect(r.compressed).toEqual([]);
    expect(r.findings.map((f) => f.kind)).toContain('github_token');
    if (_name !== 'a token inside a binary blob')
      expect(r.findings.find((f) => f.kind === 'github_token')?.line).toBe(4);
  });

  it('refuses compressed content it cannot read, whatever the format, unless compressed content is allowed', () => {
    expect(scan(new Uint8Array(gzipSync(text))).compressed).toEqual([{ path: 'f', format: 'gzip' }]);
    expect(scan(new Uint8Array(deflateSync(text))).compressed).toEqual([{ path: 'f', format: 'zlib' }]);
    const polyglot = new Uint8Array([
      0x89,
      0x50,
      0x4e,
      0x47,
      0,
      1,
      2,
      3,
      0x50,
      0x4b,
      0x05,
      0x06,
      ...new Array(18).fill(0),
    ]);
    expect(compressedFormat(polyglot, false)).toBe('zip');
    expect(compressedFormat(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0]), false)).toBe('zstd');
    expect(compressedFormat(new Uint8Array([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), false)).toBe('xz');
    const allowed = scan(new Uint8Array(gzipSync(text)), true);
    expect(allowed.compressed).toEqual([]);
  });

  it('does not call ordinary text compressed, nor find anything in clean binary', () => {
    for (const t of ['x^2 + y^2', 'hZ: header', 'BZh is a word', 'PK is a name']) {
      expect(compressedFormat(new Uint8Array(Buffer.from(t)), true)).toBeUndefined();
    }
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    expect(scan(png)).toEqual({ findings: [], compressed: [] });
    expect(secretViews(new Uint8Array(Buffer.from('plain\n')))).toEqual(['plain\n']);
  });
});
