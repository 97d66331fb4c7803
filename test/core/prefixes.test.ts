import { describe, expect, it } from 'vitest';
import { historyPrefixes } from '../../src/core/index.js';

describe('historyPrefixes', () => {
  it.each([
    // [globs, prefixes, exact, unprefixed]
    [[], [], true, []],
    [['infra/**'], ['infra'], true, []],
    [['README.md'], ['README.md'], true, []],
    [['docs/*.md'], ['docs'], false, []],
    [['src/**/*.ts'], ['src'], false, []],
    [['a/b/c/**'], ['a/b/c'], true, []],
    [['infra/**', 'docs/*.md'], ['docs', 'infra'], false, []],
    [['infra/**', 'README.md'], ['README.md', 'infra'], true, []],
    // nested prefixes collapse to the outer one, whose exactness is what counts
    [['infra/**', 'infra/modules/**'], ['infra'], true, []],
    [['infra/**', 'infra/*.tf'], ['infra'], true, []],
    [['docs/*.md', 'docs/api/**'], ['docs'], false, []],
    // duplicates collapse; exactness of a duplicate is "any of them exact"
    [['infra/**', 'infra/**'], ['infra'], true, []],
    [['infra/*.tf', 'infra/**'], ['infra'], true, []],
    // prefix look-alikes are distinct prefixes
    [['infra/**', 'infra2/**', 'infra-old/**'], ['infra', 'infra-old', 'infra2'], true, []],
    // no static prefix: the whole repository, never exact
    [['**/*.md'], [''], false, ['**/*.md']],
    [['**'], [''], false, ['**']],
    [['*.md'], [''], false, ['*.md']],
    [['infra/**', '**/*.md'], [''], false, ['**/*.md']],
    [['{a,b}*/x'], [''], false, ['{a,b}*/x']],
    // braces are expanded before prefixes are taken
    [['{infra,docs}/**'], ['docs', 'infra'], true, []],
    [['src/{lib,test}/*.ts'], ['src/lib', 'src/test'], false, []],
    [['a/{b,c/{d,e}}/**'], ['a/b', 'a/c/d', 'a/c/e'], true, []],
    [['{infra/**,*.md}'], [''], false, ['{infra/**,*.md}']],
    [['{1..3}/x'], ['1/x', '2/x', '3/x'], true, []],
    // magic anywhere in a segment stops the prefix
    [['infra/[ab]/x'], ['infra'], false, []],
    [['infra/a?/x'], ['infra'], false, []],
    [['infra/@(a|b)/x'], ['infra'], false, []],
    [['.github/**'], ['.github'], true, []],
    // a literal file prefix is exact for that file only: other globs below it make it inexact
    [['a'], ['a'], true, []],
    [['a', 'a/*.md'], ['a'], false, []],
    [['a', 'a/b'], ['a'], false, []],
    [['a', 'a/b/**'], ['a'], false, []],
    [['a', 'a/**'], ['a'], true, []],
    [['a/b', 'a/**'], ['a'], true, []],
    [['a/**', 'a'], ['a'], true, []],
  ] as [string[], string[], boolean, string[]][])('%j → %j exact=%s', (globs, prefixes, exact, unprefixed) => {
    expect(historyPrefixes(globs)).toEqual({ prefixes, exact, unprefixed });
  });

  it('returns sorted, disjoint prefixes', () => {
    const { prefixes } = historyPrefixes(['z/**', 'a/b/*.md', 'a/**', 'm/n/o', 'm/n/**', 'a-b/**']);
    expect(prefixes).toEqual(['a', 'a-b', 'm/n', 'z']);
    for (const p of prefixes) {
      for (const q of prefixes) {
        if (p !== q) expect(q === p || q.startsWith(`${p}/`)).toBe(false);
      }
    }
  });
});
