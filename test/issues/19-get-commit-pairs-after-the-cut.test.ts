// Issue 19, classes 8 and 5 on get_commit: git (and GitHub) pair renames over the whole tree before the perimeter
// cut, so a visible delete paired with a hidden add moved in the file list and changed its counts, and a visible
// rename whose source git paired with a hidden exact copy (git pairs exact copies destination by destination) instead read as a delete and an add; and a
// readable-path link to a hidden target was still listed (0/0). Twins that differ only in hidden files (and in such a
// link) must get the same answer, on both upstreams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';
import { unfence } from '../support/fence.js';
import type { CommitSpec } from '../support/gitdir.js';

const Z = Array.from({ length: 12 }, (_, i) => `zline ${i}\n`).join('');
const Y = Array.from({ length: 9 }, (_, i) => `yline ${i}\n`).join('');

const base: CommitSpec = {
  message: 'init',
  files: {
    'app/a.ts': 'a\n',
    'app/m.ts': 'm\n',
    'app/old.txt': Y,
    'app/z.txt': Z,
    'app/t.txt': 't1\nt2\nt3\n',
    'secret/key.txt': 'k\n',
    'secret/other.txt': 'o\n',
  },
};
/** What both twins change in view: a modified file, a delete, a rename app/old.txt -> app/new.txt. */
const visible = { 'app/a.ts': 'a2\n', 'app/z.txt': null, 'app/old.txt': null, 'app/new.txt': Y } as const;

// Twin A: the deleted app/z.txt reappears hidden (git pairs it as a rename, listed where the hidden add sorts), a hidden exact copy of
// app/old.txt that sorts before app/new.txt steals app/old.txt's pairing, and a readable link names a hidden file.
const twinA: CommitSpec[] = [
  base,
  {
    message: 'change',
    files: {
      ...visible,
      'a-secret/zz.txt': Z,
      'a-secret/old.txt': Y,
      'app/hl': { symlink: '../secret/key.txt' },
      'app/t.txt': { symlink: '../secret/key.txt' },
      'secret/other.txt': { symlink: 'key.txt' },
    },
  },
];
// Twin B: the same visible change; its hidden change shares nothing with the visible files.
// Where twin A turns app/t.txt into a link to a hidden file, twin B deletes it: to the agent both are a deletion.
// Twin A's hidden secret/other.txt becomes a link (a type change: two patch sections locally, which used to cost every
// visible file its patch); twin B only edits it.
const twinB: CommitSpec[] = [
  base,
  { message: 'change', files: { ...visible, 'secret/other.txt': 'o2\n', 'app/t.txt': null } },
];

type Answer = { isError?: boolean; text: string; structured: Record<string, unknown> };

/** The answer without what twins may differ in: commit ids, dates, and omitted_count (SPEC §4.11). */
function comparable(r: Answer): string {
  const { sha: _sha, author: _a, committer: _c, omitted_count: _o, ...rest } = r.structured;
  const text = unfence(r.text)
    .replace(/^commit .*\n/, '')
    .replace(/^Author: .*\n/m, '')
    .replace(/^\d+ other files omitted(?:; |\n)/m, '');
  return JSON.stringify({ isError: r.isError ?? false, text, structured: rest });
}

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let a: Served;
  let b: Served;
  beforeAll(async () => {
    a = await serveBoth(kind, twinA);
    b = await serveBoth(kind, twinB);
    for (const s of [a, b]) await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**'], write: [] });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const commitOf = async (s: Served, page?: number): Promise<Answer> => {
    const agent = await s.srv.connect('/mcp/p');
    const r = await agent.call('get_commit', { sha: await s.head(), ...(page ? { files_page: page } : {}) });
    return r as Answer;
  };

  it('twins that differ only in hidden rename partners and a hidden-target link get the same commit', async () => {
    const [ra, rb] = [await commitOf(a), await commitOf(b)];
    expect(ra.isError, ra.text).toBeUndefined();
    expect(comparable(ra)).toBe(comparable(rb));
  });

  it('every rename reads as its delete and its add, in path order, with whole-file counts', async () => {
    const r = await commitOf(a);
    const files = r.structured.files as {
      path: string;
      status: string;
      additions: number;
      deletions: number;
      previous_path?: string;
    }[];
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['app/a.ts', 'modified', 1, 1],
      ['app/new.txt', 'added', 9, 0],
      ['app/old.txt', 'removed', 0, 9],
      ['app/t.txt', 'removed', 0, 3],
      ['app/z.txt', 'removed', 0, 12],
    ]);
    expect(files.some((f) => f.previous_path !== undefined)).toBe(false);
    expect(r.structured.stats).toEqual({ additions: 10, deletions: 25, total: 35 });
    expect(JSON.stringify(r)).not.toContain('secret');
    expect(r.text).not.toContain('app/hl');
  });
});
