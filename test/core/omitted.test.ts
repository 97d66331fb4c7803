// omitted_count never depends on a path the perimeter may write but not read (issue 9 item 3), and directory ids
// never reach an agent (issue 9 item 2).
import { describe, expect, it } from 'vitest';
import { filterCommit } from '../../src/core/filter.js';
import { agentEntry } from '../../src/core/ids.js';
import type { CommitDetail, CommitFile } from '../../src/core/model.js';
import { scopeOf } from '../../src/core/scope.js';

const who = { name: 'a', email: 'a@x', date: '2026-01-01T00:00:00Z' };
const commit = (files: CommitFile[]): CommitDetail => ({
  sha: 'c'.repeat(40),
  message: 'm',
  author: who,
  committer: who,
  parents: [],
  files,
});
const mine: CommitFile = { path: 'app/a.ts', status: 'modified', additions: 1, deletions: 1 };
const scope = scopeOf({ read: ['app/**'], write: ['app/**', 'drop/**'] });

describe('filterCommit and write-only paths', () => {
  it('answers the same whether a write-only file changed or not', () => {
    const withDrop = filterCommit(
      commit([mine, { path: 'drop/x', status: 'removed', additions: 0, deletions: 3 }]),
      scope,
    );
    const without = filterCommit(commit([mine]), scope);
    expect(withDrop).toEqual(without);
    expect(withDrop.kind === 'visible' && withDrop.omitted_count).toBe(0);
  });

  it('still counts files outside both read and write', () => {
    const v = filterCommit(commit([mine, { path: 'secret/k', status: 'modified', additions: 1, deletions: 1 }]), scope);
    expect(v.kind === 'visible' && v.omitted_count).toBe(1);
  });

  it('a commit touching only write-only paths is invisible, like an empty one', () => {
    expect(filterCommit(commit([{ path: 'drop/x', status: 'added', additions: 1, deletions: 0 }]), scope)).toEqual({
      kind: 'invisible',
    });
    expect(filterCommit(commit([]), scope)).toEqual({ kind: 'invisible' });
  });
});

describe('agentEntry', () => {
  it('drops the tree id of a directory and keeps blob ids', () => {
    expect(agentEntry({ path: 'app', type: 'dir', sha: 't'.repeat(40) })).toEqual({ path: 'app', type: 'dir' });
    expect(agentEntry({ path: 'app/a', type: 'file', sha: 'b'.repeat(40), size: 3 })).toEqual({
      path: 'app/a',
      type: 'file',
      sha: 'b'.repeat(40),
      size: 3,
    });
  });
});
