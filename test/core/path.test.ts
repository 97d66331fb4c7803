import { describe, expect, it } from 'vitest';
import { isWithin, MAX_PATH_LENGTH, MAX_SEGMENT_LENGTH, normalizePath, parentOf } from '../../src/core/index.js';

// Every input here must be refused, never repaired: a repaired path is one the policy and the upstream could read differently.
const REJECTED: [label: string, input: unknown][] = [
  // not a string
  ['undefined', undefined],
  ['null', null],
  ['number', 42],
  ['array', ['a', 'b']],
  ['object with toString', { toString: () => 'infra/x' }],
  // traversal
  ['dot-dot', '..'],
  ['dot', '.'],
  ['leading dot-dot', '../etc/passwd'],
  ['inner dot-dot', 'a/../b'],
  ['climbing out of a readable dir', 'docs/../infra/secret'],
  ['trailing dot-dot', 'a/..'],
  ['leading dot', './a'],
  ['trailing dot', 'a/.'],
  ['inner dot', 'a/./b'],
  // absolute and drive letters
  ['absolute', '/etc/passwd'],
  ['root slash', '/'],
  ['double leading slash', '//server/share'],
  ['drive letter with backslash', 'C:\\Windows'],
  ['drive letter with slash', 'C:/Windows'],
  ['drive-relative', 'c:foo'],
  // backslashes
  ['backslash separator', 'infra\\secret'],
  ['backslash traversal', '..\\infra'],
  ['lone backslash', '\\'],
  ['UNC', '\\\\server\\share'],
  // control characters
  ['NUL', 'a\0b'],
  ['NUL suffix', 'docs/readme.md\0.png'],
  ['newline', 'a\nb'],
  ['carriage return', 'a\rb'],
  ['tab', 'a\tb'],
  ['escape', 'a\x1bb'],
  ['DEL', 'a\x7fb'],
  ['C1 control (NEL)', 'a\u0085b'],
  ['line separator', 'a\u2028b'],
  ['paragraph separator', 'a\u2029b'],
  // invisible and bidi
  ['zero-width space', 'infra\u200b/x'],
  ['zero-width non-joiner', 'in\u200cfra/x'],
  ['zero-width joiner', 'in\u200dfra/x'],
  ['word joiner', 'in\u2060fra/x'],
  ['BOM / zero-width no-break space', '\ufeffinfra/x'],
  ['soft hyphen', 'in\u00adfra/x'],
  ['right-to-left override', 'docs/\u202egpj.exe'],
  ['left-to-right embedding', 'docs/\u202ax'],
  ['first strong isolate', 'docs/\u2068x\u2069'],
  ['left-to-right mark', 'docs/\u200ex'],
  ['right-to-left mark', 'docs/\u200fx'],
  ['arabic letter mark', 'docs/\u061cx'],
  ['tag character', 'docs/x\u{e0041}'],
  // a lone surrogate cannot be sent to git byte-for-byte: UTF-8 encoding turns it into U+FFFD
  ['lone high surrogate', 'docs/x\ud800'],
  ['lone low surrogate', 'docs/\udc00x'],
  // empty segments and trailing slash
  ['double slash', 'a//b'],
  ['trailing slash', 'infra/'],
  ['trailing double slash', 'infra//'],
  // percent-encoded separators, dots and NUL
  ['encoded slash', 'docs%2F..%2Finfra'],
  ['encoded slash lower case', 'docs%2f..%2finfra'],
  ['encoded backslash', 'docs%5Cx'],
  ['encoded backslash lower case', 'docs%5cx'],
  ['encoded dot-dot', '%2e%2e/infra'],
  ['encoded dot-dot upper case', '%2E%2E/infra'],
  ['encoded NUL', 'a%00b'],
  // overlong
  ['path over the limit', 'a/'.repeat(MAX_PATH_LENGTH / 2) + 'b'],
  ['segment over the limit', 'x'.repeat(MAX_SEGMENT_LENGTH + 1)],
  ['deep segment over the limit', `a/b/${'x'.repeat(MAX_SEGMENT_LENGTH + 1)}/c`],
];

// Accepted paths come back unchanged: look-alikes are legal names, they simply are other files.
const ACCEPTED: [label: string, input: string][] = [
  ['root', ''],
  ['top-level file', 'README.md'],
  ['nested', 'infra/prod/main.tf'],
  ['dotfile', '.env'],
  ['nested dotfile', 'infra/.secret'],
  ['dot-dot inside a name', 'a..b/c'],
  ['leading dots in a name', '...'],
  ['triple-dot segment', 'a/.../b'],
  ['dotted name', '.github/workflows/ci.yml'],
  ['upper case', 'Infra/x'],
  ['fullwidth solidus (one segment)', 'infra\uff0fsecret'],
  ['fullwidth i', '\uff49nfra/x'],
  ['cyrillic i', '\u0456nfra/x'],
  ['combining character', 'infra\u0301/x'],
  ['decomposed accent', 'cafe\u0301/menu'],
  ['emoji (surrogate pair)', 'docs/\u{1f600}.md'],
  ['space', 'my docs/a b.md'],
  ['glob star literally', 'infra/*.tf'],
  ['glob class literally', '[a]'],
  ['braces literally', '{a,b}'],
  ['question mark', 'what?'],
  ['hash and bang', '#notes/!x'],
  ['percent that is not a separator', '100%/done'],
  ['percent-encoded letter', 'a%41b'],
  ['colon not at a drive position', 'ab:c/d:e'],
  ['leading dash', '-rf'],
  ['tilde', '~/x'],
  ['path at the limit', 'a/'.repeat(MAX_PATH_LENGTH / 2 - 1) + 'bb'],
  ['segment at the limit', 'x'.repeat(MAX_SEGMENT_LENGTH)],
];

describe('normalizePath', () => {
  it.each(REJECTED)('rejects %s', (_label, input) => {
    const r = normalizePath(input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('invalid_path');
      expect(r.message.length).toBeGreaterThan(0);
    }
  });

  it.each(ACCEPTED)('accepts %s unchanged', (_label, input) => {
    expect(normalizePath(input)).toEqual({ ok: true, value: input });
  });

  it('keeps the limits where the table assumes them', () => {
    expect(('a/'.repeat(MAX_PATH_LENGTH / 2 - 1) + 'bb').length).toBe(MAX_PATH_LENGTH);
    expect(('a/'.repeat(MAX_PATH_LENGTH / 2) + 'b').length).toBe(MAX_PATH_LENGTH + 1);
  });

  it('never echoes the input in its message (messages say what to fix, not what was sent)', () => {
    const r = normalizePath('../infra/secret');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).not.toContain('infra');
  });
});

describe('isWithin', () => {
  it.each([
    ['infra/x', 'infra', true],
    ['infra', 'infra', true],
    ['infra/a/b', 'infra/a', true],
    ['anything', '', true],
    ['', '', true],
    ['infra2/x', 'infra', false],
    ['infra.bak/x', 'infra', false],
    ['infra-old', 'infra', false],
    ['infrastructure/x', 'infra', false],
    ['infr', 'infra', false],
    ['', 'infra', false],
    ['Infra/x', 'infra', false],
  ])('%j within %j is %s', (path, dir, expected) => {
    expect(isWithin(path, dir)).toBe(expected);
  });
});

describe('parentOf', () => {
  it.each([
    ['README.md', ''],
    ['a/b', 'a'],
    ['a/b/c.txt', 'a/b'],
    ['', ''],
  ])('parent of %j is %j', (path, parent) => {
    expect(parentOf(path)).toBe(parent);
  });
});
