import { describe, expect, it } from 'vitest';
import {
  compileGlobs,
  isLiteralSegment,
  normalizePath,
  scopeOf,
  UNRESTRICTED,
  validateGlob,
} from '../../src/core/index.js';

/** Reads through the same door decide() uses: a path must pass normalizePath before any glob sees it. */
function readable(globs: string[], path: string): boolean {
  const n = normalizePath(path);
  return n.ok && scopeOf({ read: globs, write: [] }).canRead(n.value);
}

const INFRA = ['infra/**'];

describe('scopeOf: reading against infra/**', () => {
  it.each([
    ['infra/main.tf'],
    ['infra/prod/deep/main.tf'],
    ['infra/.secret'],
    ['infra/.terraform/state'],
    ['infra/*.tf'],
    ['infra/[a]'],
    ['infra/{a,b}'],
    ['infra/#x'],
    ['infra/!x'],
    ['infra/a..b'],
    ['infra/\uff49'],
  ])('%j is readable', (path) => {
    expect(readable(INFRA, path)).toBe(true);
  });

  it.each([
    // traversal that would land in infra must not be accepted at all
    ['docs/../infra/main.tf'],
    ['./infra/main.tf'],
    ['infra/./main.tf'],
    ['infra/x/../../secret'],
    ['/infra/main.tf'],
    ['infra//main.tf'],
    ['infra\\main.tf'],
    ['infra%2Fmain.tf'],
    ['infra%2fmain.tf'],
    ['infra%5Cmain.tf'],
    ['%2e%2e/infra/main.tf'],
    ['C:/infra/main.tf'],
    ['infra/main.tf\0'],
    ['infra\u200b/main.tf'],
    ['\u202einfra/main.tf'],
    // look-alikes
    ['infra\uff0fmain.tf'],
    ['\uff49nfra/main.tf'],
    ['\u0456nfra/main.tf'],
    ['infra\u0301/main.tf'],
    ['i\u0307nfra/main.tf'],
    // prefix look-alikes
    ['infra2/x'],
    ['infra.bak/x'],
    ['infra-old'],
    ['infra-old/x'],
    ['infrastructure/x'],
    ['infr/x'],
    ['xinfra/x'],
    ['a/infra/x'],
    // case
    ['Infra/x'],
    ['INFRA/x'],
    // root and neighbours
    [''],
    ['.env'],
    ['README.md'],
  ])('%j is not readable', (path) => {
    expect(readable(INFRA, path)).toBe(false);
  });
});

describe('scopeOf: other glob shapes', () => {
  it.each([
    // dotfiles match ** by design
    [['**'], '.env', true],
    [['**'], 'a/.git-like/config', true],
    [['**'], '', false],
    [['*'], '.env', true],
    [['*'], 'a/b', false],
    [['**/*.md'], 'README.md', true],
    [['**/*.md'], 'a/b/.hidden.md', true],
    [['**/*.md'], 'a/b.md/c', false],
    [['**/*.md'], 'README.MD', false],
    [['docs/*.md'], 'docs/a.md', true],
    [['docs/*.md'], 'docs/sub/a.md', false],
    [['*.tf'], '*.tf', true],
    [['*.tf'], 'main.tf', true],
    // a file literally named "[a]" is not what the glob "[a]" means
    [['[a]'], 'a', true],
    [['[a]'], '[a]', false],
    [['[[]a]'], '[a]', true],
    [['{a,b}/x'], 'b/x', true],
    [['{a,b}/x'], '{a,b}/x', false],
    [['README.md'], 'README.md', true],
    [['README.md'], 'README.md/x', false],
    [['README.md'], 'readme.md', false],
    // `!` and `#` are literal (nonegate, nocomment)
    [['!secret/**'], 'public/x', false],
    [['!secret/**'], '!secret/x', true],
    [['#x'], '#x', true],
    [[], 'anything', false],
  ] as [string[], string, boolean][])('%j reads %j: %s', (globs, path, expected) => {
    expect(readable(globs, path)).toBe(expected);
  });
});

describe('scopeOf: listing and writing', () => {
  const scope = scopeOf({ read: ['infra/**', 'docs/*.md'], write: ['docs/**'] });

  it.each([
    ['', true],
    ['infra', true],
    ['infra/prod', true],
    ['docs', true],
    ['docs/sub', false],
    ['infra2', false],
    ['infrastructure', false],
    ['Infra', false],
    ['src', false],
  ])('canList(%j) is %s', (dir, expected) => {
    expect(scope.canList(dir)).toBe(expected);
  });

  it('writes are judged on the write globs alone', () => {
    expect(scope.canWrite('docs/sub/new.md')).toBe(true);
    expect(scope.canWrite('infra/main.tf')).toBe(false);
    expect(scope.canWrite('docs')).toBe(false); // `docs/**` is what lies below docs, not a file named docs
    expect(scope.canWrite('')).toBe(false);
    expect(scope.canWrite('docs2/x')).toBe(false);
  });

  it('the root is never a readable or writable file, even under **', () => {
    const all = scopeOf({ read: ['**'], write: ['**'] });
    expect(all.canRead('')).toBe(false);
    expect(all.canWrite('')).toBe(false);
    expect(all.canList('')).toBe(true);
  });

  it('UNRESTRICTED allows everything', () => {
    expect(UNRESTRICTED.canRead('x')).toBe(true);
    expect(UNRESTRICTED.canList('x')).toBe(true);
    expect(UNRESTRICTED.canWrite('x')).toBe(true);
  });

  it('an empty glob set can list the root (empty listing) and nothing else', () => {
    const none = compileGlobs([]);
    expect(none.couldContain('')).toBe(true);
    expect(none.couldContain('a')).toBe(false);
    expect(none.matches('a')).toBe(false);
  });
});

describe('validateGlob', () => {
  it.each([
    ['**'],
    ['infra/**'],
    ['**/*.md'],
    ['{a,b}/**'],
    ['src/{lib,test}/*.ts'],
    ['.github/**'],
    ['[a]'],
    ['{a..c}/x'],
  ])('accepts %j', (g) => {
    expect(validateGlob(g)).toEqual({ ok: true, value: g });
  });

  it.each([
    [''],
    [undefined],
    [7],
    ['/etc/**'],
    ['../**'],
    ['a/../b/**'],
    ['./a'],
    ['a//b'],
    ['a/'],
    ['a\\*'],
    ['a%2F**'],
    ['a\0'],
    // brace alternatives are paths too: each expansion must be a valid relative glob
    ['{..,x}/secret'],
    ['{/etc/passwd,x}'],
    ['{,a}/x'],
    ['a/{,b}'],
    ['a/{b/..,c}/x'],
    ['{a,./b}'],
  ])('rejects %j', (g) => {
    const r = validateGlob(g);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('invalid_glob');
  });
});

describe('isLiteralSegment', () => {
  it.each([
    ['infra', true],
    ['main.tf', true],
    ['.env', true],
    ['*', false],
    ['**', false],
    ['*.md', false],
    ['a?', false],
    ['[a]', false],
    ['{a,b}', false],
    ['@(a)', false],
    ['!(a)', false],
    ['+(a)', false],
  ])('%j literal: %s', (s, expected) => {
    expect(isLiteralSegment(s)).toBe(expected);
  });
});
