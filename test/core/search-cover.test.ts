// exactCover decides which bytes an agent's pattern may run on: the fewest literal pathspecs whose files are exactly
// the searchable ones, never a directory that also holds a hidden, oversized or linked entry.
import { describe, expect, it } from 'vitest';
import { exactCover, type TreeEntry } from '../../src/core/index.js';

const tree = (spec: Record<string, TreeEntry['type']>): TreeEntry[] =>
  Object.entries(spec).map(([path, type]) => ({ path, type, sha: '0'.repeat(40) }));

/** Every file a pathspec list reaches (literal: a path and everything below it). */
const reached = (entries: TreeEntry[], cover: string[]) =>
  entries
    .filter((e) => e.type !== 'dir' && cover.some((c) => c === '' || e.path === c || e.path.startsWith(`${c}/`)))
    .map((e) => e.path);

describe('exactCover', () => {
  const entries = tree({
    a: 'dir',
    'a/x.ts': 'file',
    'a/y.ts': 'file',
    'a/.env': 'file',
    'a/b': 'dir',
    'a/b/z.ts': 'file',
    c: 'dir',
    'c/l': 'symlink',
    'c/w.ts': 'file',
    'top.md': 'file',
  });

  it('is the whole tree only when every entry is searched', () => {
    expect(exactCover(entries, ['a/x.ts', 'a/y.ts', 'a/.env', 'a/b/z.ts', 'c/l', 'c/w.ts', 'top.md'], '')).toEqual([
      '',
    ]);
  });

  it('names a directory only when it holds nothing else, and reaches exactly the given files', () => {
    const files = ['a/x.ts', 'a/y.ts', 'a/b/z.ts', 'c/w.ts', 'top.md'];
    const cover = exactCover(entries, files, '');
    expect(cover).toEqual(['a/x.ts', 'a/y.ts', 'a/b', 'c/w.ts', 'top.md']);
    expect(reached(entries, cover).sort()).toEqual([...files].sort());
  });

  it('stays below `base`', () => {
    expect(exactCover(entries, ['a/x.ts', 'a/y.ts', 'a/.env', 'a/b/z.ts'], 'a')).toEqual(['a']);
    expect(exactCover(entries, ['a/b/z.ts'], 'a/b')).toEqual(['a/b']);
    expect(exactCover(entries, ['a/x.ts'], 'a')).toEqual(['a/x.ts']);
  });

  it('is empty for no files', () => {
    expect(exactCover(entries, [], '')).toEqual([]);
  });
});
