import { describe, expect, it } from 'vitest';
import {
  filterCommit,
  linkKey,
  wholeKey,
  filterTree,
  scopeOf,
  statsOf,
  touchesReadable,
  type CommitDetail,
  type CommitFile,
  type CommitSummary,
  type TreeEntry,
} from '../../src/core/index.js';

const scope = scopeOf({ read: ['infra/**', 'docs/*.md'], write: [] });

const file = (path: string): TreeEntry => ({ path, type: 'file', sha: `sha-${path}`, size: 1 });
const dir = (path: string): TreeEntry => ({ path, type: 'dir', sha: `tree-${path}` });

// A recursive listing from the root, dirs before their contents as git ls-tree -r -t gives them.
const TREE: TreeEntry[] = [
  file('.env'),
  file('README.md'),
  dir('docs'),
  file('docs/a.md'),
  file('docs/b.txt'),
  dir('docs/private'),
  file('docs/private/c.md'),
  dir('infra'),
  file('infra/.secret'),
  dir('infra/modules'),
  dir('infra/modules/vpc'),
  file('infra/modules/vpc/main.tf'),
  { path: 'infra/link', type: 'symlink', sha: 'l', size: 3 },
  { path: 'infra/sub', type: 'submodule', sha: 'c' },
  dir('infra2'),
  file('infra2/x'),
  dir('src'),
  dir('src/deep'),
  file('src/deep/secret.ts'),
];

const paths = (entries: TreeEntry[]): string[] => entries.map((e) => e.path);

describe('filterTree', () => {
  it('recursive from the root: readable files and only directories with a readable descendant', () => {
    expect(paths(filterTree(TREE, scope, '', true))).toEqual([
      'docs',
      'docs/a.md',
      'infra',
      'infra/.secret',
      'infra/modules',
      'infra/modules/vpc',
      'infra/modules/vpc/main.tf',
      'infra/link',
      'infra/sub',
    ]);
  });

  it('non-recursive from the root: direct children, directories judged on their whole subtree', () => {
    expect(paths(filterTree(TREE, scope, '', false))).toEqual(['docs', 'infra']);
  });

  it('non-recursive below a directory', () => {
    expect(paths(filterTree(TREE, scope, 'infra', false))).toEqual([
      'infra/.secret',
      'infra/modules',
      'infra/link',
      'infra/sub',
    ]);
    expect(paths(filterTree(TREE, scope, 'infra/modules', false))).toEqual(['infra/modules/vpc']);
  });

  it('a directory holding only hidden files is absent, however deep', () => {
    expect(paths(filterTree(TREE, scope, 'docs', true))).toEqual(['docs/a.md']);
    expect(filterTree(TREE, scope, 'src', true)).toEqual([]);
    expect(filterTree(TREE, scope, 'src', false)).toEqual([]);
  });

  it('does not show the base itself nor anything outside it', () => {
    const out = paths(filterTree(TREE, scope, 'infra', true));
    expect(out).not.toContain('infra');
    expect(out.every((p) => p.startsWith('infra/'))).toBe(true);
  });

  it('a sibling whose name extends the base is outside it', () => {
    const s = scopeOf({ read: ['**'], write: [] });
    expect(paths(filterTree(TREE, s, 'infra', false))).not.toContain('infra2');
    expect(paths(filterTree(TREE, s, 'infra', true)).some((p) => p.startsWith('infra2'))).toBe(false);
  });

  it('dotfiles are visible under ** by design', () => {
    const s = scopeOf({ read: ['**'], write: [] });
    expect(paths(filterTree(TREE, s, '', false))).toEqual(['.env', 'README.md', 'docs', 'infra', 'infra2', 'src']);
  });

  it('an empty scope shows nothing', () => {
    expect(filterTree(TREE, scopeOf({ read: [], write: [] }), '', true)).toEqual([]);
  });

  it('keeps entries unchanged (same objects, same order)', () => {
    const out = filterTree(TREE, scope, '', true);
    for (const e of out) expect(TREE).toContain(e);
  });
});

const PERSON = { name: 'A', email: 'a@example.com', date: '2024-01-01T00:00:00Z' };
function commit(files: CommitFile[]): CommitDetail {
  return { sha: 'c1', message: 'msg', author: PERSON, committer: PERSON, parents: ['p'], files };
}
const mod = (path: string, additions = 1, deletions = 1): CommitFile => ({
  path,
  status: 'modified',
  additions,
  deletions,
  patch: `@@ patch of ${path}`,
});

describe('filterCommit', () => {
  it('a commit touching only hidden files is invisible', () => {
    expect(filterCommit(commit([mod('src/a.ts'), mod('.env'), mod('docs/private/x.md')]), scope)).toEqual({
      kind: 'invisible',
    });
  });

  it('a commit with no files at all is invisible', () => {
    expect(filterCommit(commit([]), scope)).toEqual({ kind: 'invisible' });
  });

  it('keeps readable files, counts exactly the hidden ones and recomputes stats', () => {
    const v = filterCommit(
      commit([mod('infra/a', 3, 1), mod('src/a', 100, 50), mod('docs/x.md', 2, 0), mod('.env', 7, 7)]),
      scope,
    );
    expect(v.kind).toBe('visible');
    if (v.kind !== 'visible') return;
    // In path order, as git lists changes without rename pairing.
    expect(v.commit.files.map((f) => f.path)).toEqual(['docs/x.md', 'infra/a']);
    expect(v.omitted_count).toBe(2);
    expect(v.stats).toEqual({ additions: 5, deletions: 1, total: 6 });
    expect(v.commit.sha).toBe('c1');
    expect(JSON.stringify(v)).not.toContain('src/a');
    expect(JSON.stringify(v)).not.toContain('.env');
  });

  it('omitted_count is zero when everything is readable', () => {
    const v = filterCommit(commit([mod('infra/a')]), scope);
    expect(v).toMatchObject({ kind: 'visible', omitted_count: 0 });
  });

  it('a rename inside the scope reads as its delete and its add (issue 19: the pairing may depend on hidden files)', () => {
    const f: CommitFile = {
      path: 'infra/b',
      previous_path: 'infra/a',
      status: 'renamed',
      additions: 1,
      deletions: 1,
      patch: 'p',
    };
    const whole = new Map([
      [wholeKey('removed', 'infra/a'), { additions: 0, deletions: 4, patch: '-x' }],
      [wholeKey('added', 'infra/b'), { additions: 4, deletions: 0, patch: '+x' }],
    ]);
    const v = filterCommit(commit([f]), scope, whole);
    expect(v).toMatchObject({ kind: 'visible', omitted_count: 0 });
    if (v.kind === 'visible')
      expect(v.commit.files).toEqual([
        { path: 'infra/a', status: 'removed', additions: 0, deletions: 4, patch: '-x' },
        { path: 'infra/b', status: 'added', additions: 4, deletions: 0, patch: '+x' },
      ]);
  });

  it('a side that is a link to a hidden target is absent: the change reads as its other side, or not at all', () => {
    const whole = new Map([[wholeKey('removed', 'infra/l'), { additions: 0, deletions: 1, patch: '-ok' }]]);
    const bad = new Set([linkKey('new', 'infra/l'), linkKey('new', 'infra/n')]);
    const v = filterCommit(
      commit([
        mod('infra/l'),
        { path: 'infra/n', status: 'added', additions: 1, deletions: 0, patch: '+../src/x' },
        mod('infra/a'),
      ]),
      scope,
      whole,
      bad,
    );
    // The bad link counts like any hidden file (this scope writes nothing).
    expect(v).toMatchObject({ kind: 'visible', omitted_count: 1 });
    if (v.kind === 'visible')
      expect(v.commit.files).toEqual([
        mod('infra/a'),
        { path: 'infra/l', status: 'removed', additions: 0, deletions: 1, patch: '-ok' },
      ]);
  });

  it('a rename from hidden to visible shows as an add, without the hidden path or the patch', () => {
    const v = filterCommit(
      commit([
        {
          path: 'infra/new.tf',
          previous_path: 'src/secret.tf',
          status: 'renamed',
          additions: 2,
          deletions: 5,
          patch: '-secret line',
        },
      ]),
      scope,
    );
    expect(v.kind).toBe('visible');
    if (v.kind !== 'visible') return;
    expect(v.commit.files).toEqual([{ path: 'infra/new.tf', status: 'added', additions: 2, deletions: 0 }]);
    expect(JSON.stringify(v)).not.toContain('src/secret.tf');
    expect(JSON.stringify(v)).not.toContain('secret line');
    expect(v.stats).toEqual({ additions: 2, deletions: 0, total: 2 });
  });

  it('a rename from visible to hidden shows as a removal of the visible path, without the hidden path or the patch', () => {
    const v = filterCommit(
      commit([
        {
          path: 'src/moved.tf',
          previous_path: 'infra/old.tf',
          status: 'renamed',
          additions: 4,
          deletions: 3,
          patch: '+new secret',
        },
      ]),
      scope,
    );
    expect(v.kind).toBe('visible');
    if (v.kind !== 'visible') return;
    expect(v.commit.files).toEqual([{ path: 'infra/old.tf', status: 'removed', additions: 0, deletions: 3 }]);
    expect(JSON.stringify(v)).not.toContain('src/moved.tf');
    expect(JSON.stringify(v)).not.toContain('new secret');
  });

  it('a copy from hidden to visible shows as an add without the source', () => {
    const v = filterCommit(
      commit([
        {
          path: 'docs/copy.md',
          previous_path: 'src/orig.md',
          status: 'copied',
          additions: 0,
          deletions: 0,
          patch: 'x',
        },
      ]),
      scope,
    );
    expect(v).toMatchObject({ kind: 'visible', commit: { files: [{ path: 'docs/copy.md', status: 'added' }] } });
    expect(JSON.stringify(v)).not.toContain('src/orig.md');
  });

  it('a copy from visible to hidden changes nothing visible: the commit is invisible', () => {
    const v = filterCommit(
      commit([{ path: 'src/copy.tf', previous_path: 'infra/orig.tf', status: 'copied', additions: 0, deletions: 0 }]),
      scope,
    );
    expect(v).toEqual({ kind: 'invisible' });
  });

  it('a rename entirely outside the scope is omitted and counted as its two sides', () => {
    const v = filterCommit(
      commit([
        mod('infra/a'),
        { path: 'src/b', previous_path: 'src/a', status: 'renamed', additions: 0, deletions: 0 },
      ]),
      scope,
    );
    expect(v).toMatchObject({ kind: 'visible', omitted_count: 2 });
  });

  it('carries no upstream field beyond the header and the cut files', () => {
    const upstream = {
      ...commit([mod('infra/a', 1, 0), mod('src/b', 90, 9)]),
      stats: { additions: 91, deletions: 9, total: 100 },
    };
    const v = filterCommit(upstream, scope);
    expect(v.kind).toBe('visible');
    if (v.kind !== 'visible') return;
    expect(Object.keys(v.commit).sort()).toEqual(['author', 'committer', 'files', 'message', 'parents', 'sha']);
    expect(v.stats).toEqual({ additions: 1, deletions: 0, total: 1 });
  });

  it('does not modify its input', () => {
    const input = commit([mod('infra/a'), mod('src/b')]);
    const copy = structuredClone(input);
    filterCommit(input, scope);
    expect(input).toEqual(copy);
  });
});

describe('statsOf', () => {
  it('sums additions and deletions', () => {
    expect(statsOf([mod('a', 1, 2), mod('b', 3, 4)])).toEqual({ additions: 4, deletions: 6, total: 10 });
    expect(statsOf([])).toEqual({ additions: 0, deletions: 0, total: 0 });
  });
});

describe('touchesReadable', () => {
  const summary = (files?: string[]): CommitSummary => ({
    sha: 's',
    message: 'm',
    author: PERSON,
    committer: PERSON,
    parents: [],
    ...(files ? { files } : {}),
  });
  it.each([
    [['infra/a'], true],
    [['src/a', 'docs/b.md'], true],
    [['src/a', '.env', 'infra2/x'], false],
    [[], false],
  ])('%j → %s', (files, expected) => {
    expect(touchesReadable(summary(files), scope)).toBe(expected);
  });
  it('is unknown when the upstream gave no paths', () => {
    expect(touchesReadable(summary(), scope)).toBeUndefined();
  });
});
