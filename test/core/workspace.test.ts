// The workspace cuts (issue 13): every path, count and patch of a working tree is cut by the same scope, hidden
// entries change nothing an agent sees, and renames across the boundary read as the add or delete they look like.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePrivacy,
  cutDiff,
  cutIntegrity,
  cutPreflight,
  cutStatus,
  cutSubmodules,
  lonelySides,
  markerRegions,
  pageDiff,
  scopeOf,
  sideView,
  workingServable,
  withPrivacy,
  type RawDiffFile,
  type RawStatusEntry,
} from '../../src/core/index.js';

const scope = withPrivacy(scopeOf({ read: ['app/**', 'docs/**'], write: ['app/**', 'drop/**'] }), compilePrivacy());
const enc = (s: string) => new TextEncoder().encode(s);

describe('cutStatus', () => {
  it('keeps readable entries, drops hidden ones and recounts', () => {
    const v = cutStatus(
      [
        { kind: 'ordinary', path: 'app/a.ts', index: 'M', worktree: 'M' },
        { kind: 'ordinary', path: 'secret/k', index: 'M', worktree: '.' },
        { kind: 'untracked', path: 'app/.env' },
        { kind: 'untracked', path: 'app/new.ts' },
        { kind: 'unmerged', path: 'secret/c', index: 'U', worktree: 'U' },
        { kind: 'unmerged', path: 'app/c.ts', index: 'A', worktree: 'A' },
      ],
      scope,
    );
    expect(v).toEqual({
      clean: false,
      staged: [{ path: 'app/a.ts', change: 'modified' }],
      unstaged: [{ path: 'app/a.ts', change: 'modified' }],
      untracked: ['app/new.ts'],
      conflicted: [{ path: 'app/c.ts', kind: 'both_added' }],
      counts: { staged: 1, unstaged: 1, untracked: 1, conflicted: 1 },
    });
  });

  it('judges both sides of a rename: from hidden is an addition, to hidden a deletion, never naming the other side', () => {
    const entries: RawStatusEntry[] = [
      { kind: 'renamed', path: 'app/in.ts', from: 'secret/s.ts', index: 'R', worktree: 'M' },
      { kind: 'renamed', path: 'secret/out.ts', from: 'app/gone.ts', index: 'R', worktree: 'M' },
      { kind: 'renamed', path: 'app/b2.ts', from: 'app/b.ts', index: 'R', worktree: '.' },
      { kind: 'renamed', path: 'secret/copy', from: 'app/src.ts', index: 'C', worktree: '.' },
    ];
    const v = cutStatus(entries, scope);
    expect(v.staged).toEqual([
      { path: 'app/b2.ts', change: 'renamed', previous_path: 'app/b.ts' },
      { path: 'app/gone.ts', change: 'deleted' },
      { path: 'app/in.ts', change: 'added' },
    ]);
    expect(v.unstaged).toEqual([{ path: 'app/in.ts', change: 'modified' }]);
    expect(JSON.stringify(v)).not.toContain('secret');
  });

  it('drops collapsed untracked directories (their visibility would depend on what is hidden inside)', () => {
    expect(cutStatus([{ kind: 'untracked', path: 'app/dir/' }], scope).clean).toBe(true);
  });

  it('answers byte-identically with or without any set of hidden entries (property)', () => {
    const letter = fc.constantFrom('.', 'M', 'A', 'D', 'T', 'R' as const);
    const hiddenPath = fc.constantFrom('secret/a', 'app/.env', 'x/y/z.pem', 'drop/w');
    const visiblePath = fc.constantFrom('app/a', 'app/b', 'docs/r.md');
    const entry = (p: fc.Arbitrary<string>) =>
      fc.oneof(
        fc.record({ kind: fc.constant('ordinary' as const), path: p, index: letter, worktree: letter }),
        fc.record({ kind: fc.constant('untracked' as const), path: p }),
      );
    fc.assert(
      fc.property(
        fc.array(entry(visiblePath), { maxLength: 6 }),
        fc.array(entry(hiddenPath), { maxLength: 6 }),
        (vis, hid) => {
          const mixed = [...hid, ...vis].sort(() => 0);
          expect(JSON.stringify(cutStatus(mixed as RawStatusEntry[], scope))).toBe(
            JSON.stringify(cutStatus(vis as RawStatusEntry[], scope)),
          );
        },
      ),
    );
  });
});

const file = (over: Partial<RawDiffFile> & { path: string }): RawDiffFile => ({
  status: 'modified',
  additions: 1,
  deletions: 1,
  binary: false,
  patch: '@@ -1 +1 @@\n-a\n+b\n',
  ...over,
});

describe('cutDiff', () => {
  it('drops hidden files, counts them opaquely (not write-only ones) and recomputes totals', () => {
    const c = cutDiff(
      [
        file({ path: 'app/a' }),
        file({ path: 'secret/s', additions: 9 }),
        file({ path: 'drop/w' }),
        file({ path: 'docs/d', additions: 3, deletions: 0 }),
      ],
      scope,
    );
    expect(c.files.map((f) => f.path)).toEqual(['app/a', 'docs/d']);
    expect(c.omitted_count).toBe(1);
    expect(c.totals).toEqual({ files: 2, additions: 4, deletions: 1 });
  });

  it('counts unread paths as get_commit counts hidden files: a hidden pair once, write-only never, narrowed never (issue 19)', () => {
    const unread = [
      { path: 'secret/a' },
      { path: 'secret/b', from: 'secret/c' },
      { path: 'drop/w' },
      { path: 'secret/d', from: 'drop/x' },
    ];
    expect(cutDiff([file({ path: 'app/a' })], scope, '', undefined, unread).omitted_count).toBe(2);
    expect(cutDiff([file({ path: 'app/a' })], scope, 'app', undefined, unread).omitted_count).toBe(0);
  });

  it('shows a rename across the boundary as its visible side alone, with counts from its own bytes only', () => {
    const rename = file({
      path: 'app/in',
      previous_path: 'secret/s',
      status: 'renamed',
      additions: 1,
      deletions: 1,
      patch: '@@ -1 +1 @@\n-secret line\n+x\n',
    });
    const whole = new Map([['added:app/in', enc('x\ny\n')]]);
    expect(lonelySides([rename], scope)).toEqual(['added:app/in']);
    const c = cutDiff([rename], scope, '', whole);
    expect(c.files).toEqual([
      { path: 'app/in', status: 'added', additions: 2, deletions: 0, binary: false, patch: '@@ -0,0 +1,2 @@\n+x\n+y' },
    ]);
    expect(JSON.stringify(c)).not.toContain('secret');
    // Without the bytes, no counts are claimed and no patch is shown.
    expect(cutDiff([rename], scope).files[0]).toEqual({
      path: 'app/in',
      status: 'added',
      additions: 0,
      deletions: 0,
      binary: false,
    });
    const out = file({ path: 'secret/o', previous_path: 'app/gone', status: 'renamed' });
    expect(cutDiff([out], scope).files).toEqual([
      { path: 'app/gone', status: 'deleted', additions: 0, deletions: 0, binary: false },
    ]);
  });

  it('treats a link side whose target is hidden as absent', () => {
    const link = file({
      path: 'app/l',
      old_mode: '120000',
      new_mode: '120000',
      patch: '@@ -1 +1 @@\n-ok.ts\n\\ No newline at end of file\n+../secret/k\n\\ No newline at end of file\n',
    });
    const c = cutDiff([link], scope);
    expect(c.files).toEqual([
      {
        path: 'app/l',
        status: 'deleted',
        additions: 0,
        deletions: 1,
        binary: false,
        patch: '@@ -1 +0,0 @@\n-ok.ts\n\\ No newline at end of file',
      },
    ]);
    const hiddenOnly = file({
      path: 'app/l2',
      status: 'added',
      new_mode: '120000',
      patch: '@@ -0,0 +1 @@\n+../.env\n',
    });
    expect(cutDiff([hiddenOnly], scope)).toEqual(cutDiff([], scope));
  });

  it('narrows to a path after cutting, and pages whole files', () => {
    const files = ['app/a', 'app/b', 'docs/c', 'secret/x'].map((p) => file({ path: p }));
    expect(cutDiff(files, scope, 'app').files.map((f) => f.path)).toEqual(['app/a', 'app/b']);
    expect(cutDiff(files, scope, 'app').omitted_count).toBe(0);
    // No per-path oracle: narrowed to a hidden file, a changed one reads like an unchanged one.
    expect(cutDiff([file({ path: 'app/.env' })], scope, 'app/.env')).toEqual(cutDiff([], scope, 'app/.env'));
    expect(cutDiff(files, scope).omitted_count).toBe(1);
    const all = cutDiff(files, scope).files;
    const first = pageDiff(all, 0, 150);
    expect(first.files.length).toBe(1);
    expect(first.next_offset).toBe(1);
    expect(pageDiff(all, 2, 10_000)).toEqual({ files: [all[2]] });
  });
});

describe('conflicts', () => {
  it('lists readable conflicted paths and counts the others', () => {
    expect(cutPreflight(['app/b', 'secret/s', 'app/a', 'app/a', 'drop/w'], scope)).toEqual({
      status: 'conflicts',
      conflicts: ['app/a', 'app/b'],
      omitted_count: 1,
    });
    // A conflict only on a write-only path is no conflict here: nothing to list, nothing to count (issue 19).
    expect(cutPreflight(['drop/w'], scope)).toEqual({ status: 'clean', conflicts: [], omitted_count: 0 });
  });

  it('serves sides as text, flags binary, hides a link to a hidden target and cuts on a character', () => {
    const side = (s: string | Uint8Array, mode = '100644') => {
      const bytes = typeof s === 'string' ? enc(s) : s;
      return { sha: 'a'.repeat(40), mode, size: bytes.length, bytes, truncated: false, atPath: true };
    };
    expect(sideView('app/x', side('hello\n'), scope, 100)).toEqual({
      present: true,
      sha: 'a'.repeat(40),
      size: 6,
      binary: false,
      truncated: false,
      content: 'hello\n',
    });
    expect(sideView('app/x', side(new Uint8Array([0, 1, 2])), scope, 100)).toMatchObject({
      present: true,
      binary: true,
    });
    expect(sideView('app/x', side('../secret/k', '120000'), scope, 100)).toEqual({ present: false });
    expect(sideView('app/x', side('y.ts', '120000'), scope, 100)).toMatchObject({ present: true, content: 'y.ts' });
    expect(sideView('app/x', side('aé'), scope, 2)).toMatchObject({ content: 'a', truncated: true });
    expect(sideView('app/x', undefined, scope, 2)).toEqual({ present: false });
    // A stage git paired from another path (issue 19): absent, and the working file it was merged into too.
    expect(sideView('app/x', { ...side('hello\n'), atPath: false }, scope, 100)).toEqual({ present: false });
    expect(workingServable([side('a'), undefined, { ...side('b'), atPath: false }])).toBe(false);
    expect(workingServable([side('a'), undefined, side('b')])).toBe(true);
  });

  it('finds marker regions', () => {
    expect(markerRegions('a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\nz\n<<<<<<< open\n')).toEqual([
      { start_line: 2, separator_line: 4, end_line: 6 },
    ]);
  });
});

describe('submodules and integrity', () => {
  it('keeps readable submodules with their state', () => {
    expect(
      cutSubmodules(
        [
          { path: 'secret/m', recorded: 'a', checked_out: 'b' },
          { path: 'app/m', recorded: 'a', checked_out: 'b' },
          { path: 'app/n', recorded: 'a', checked_out: null },
        ],
        scope,
      ),
    ).toEqual([
      { path: 'app/m', recorded: 'a', checked_out: 'b', state: 'drifted' },
      { path: 'app/n', recorded: 'a', checked_out: null, state: 'uninitialized' },
    ]);
  });

  it('keeps readable differences; a link retargeted to a hidden file reads as a deletion', () => {
    const f = (sha: string, mode = '100644') => ({ mode, sha });
    expect(
      cutIntegrity(
        [
          { path: 'app/a', head: f('1'), worktree: f('2') },
          { path: 'app/x', head: f('1'), worktree: f('1', '100755') },
          { path: 'secret/s', head: f('1'), worktree: f('2') },
          { path: 'app/new', worktree: f('3') },
          {
            path: 'app/l',
            head: { ...f('4', '120000'), resolves_to: 'app/a' },
            worktree: { ...f('5', '120000'), resolves_to: 'secret/s' },
          },
          {
            path: 'app/l2',
            head: { ...f('4', '120000'), resolves_to: null },
            worktree: { ...f('5', '120000'), resolves_to: '.env' },
          },
        ],
        scope,
      ),
    ).toEqual([
      { path: 'app/a', change: 'modified', head_sha: '1', worktree_sha: '2' },
      { path: 'app/l', change: 'deleted', head_sha: '4' },
      { path: 'app/new', change: 'added', worktree_sha: '3' },
      { path: 'app/x', change: 'mode_changed', head_sha: '1', worktree_sha: '1' },
    ]);
  });
});
