// Issue 11 item 1: on the local upstream, file reads, tree listings and ref resolution start no git process once a
// repository's readers run, list_commits starts one (git log) and get_commit at most one (the reachability check,
// once per (commit, head) pair and none for a commit a history page already listed from that head — issue 24).
// Counted with the real spawn counter of src/gitcli, which every git process git-blinder starts goes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCounts } from '../../src/gitcli/spawns.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

async function spawned<T>(fn: () => Promise<T>): Promise<{ n: number; by: Record<string, number>; value: T }> {
  const before = spawnCounts();
  const value = await fn();
  const after = spawnCounts();
  const by: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.byCommand))
    if (v !== (before.byCommand[k] ?? 0)) by[k] = v - (before.byCommand[k] ?? 0);
  return { n: after.total - before.total, by, value };
}

describe('issue 11: local reads without a process per call', () => {
  let g: GitDir;
  let up: Upstream;
  beforeAll(async () => {
    g = await makeRepo([
      { message: 'root', files: { 'a.txt': 'a\n', 'd/x.txt': 'x\n', 'd/e/y.txt': 'y\n', f: 'file\n' } },
      {
        message: 'side',
        files: { 'side.txt': 's\n', 'd/e/y.txt': 'y2\n', f: null, 'f/now-a-dir.txt': 'n\n' },
        branch: 'side',
      },
      { message: 'main work', files: { 'a.txt': 'a2\n' }, branch: 'main' },
    ]);
    await g.git('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
    await g.git('update-index', '--chmod=+x', 'a.txt');
    await g.git('commit', '-q', '-m', 'mode only');
    up = createLocalGitUpstream({ repos: [g.dir] });
    // Warm up: open the repository and start its readers (each starts once per repository, not per call).
    await up.readFiles(g.dir, 'main', ['a.txt']);
    await up.getCommit(g.dir, await g.head('main'));
  });
  afterAll(async () => {
    await up.close();
    await g.cleanup();
  });

  it('reads files, resolves refs and heads with no process', async () => {
    const r = await spawned(() => up.readFiles(g.dir, 'main', ['a.txt', 'd/e/y.txt', 'missing.txt', 'd']));
    expect(r.n).toBe(0);
    expect(r.value.ok && r.value.value.map((f) => f.ok)).toEqual([true, true, false, false]);
    const h = await spawned(() => up.branchHead(g.dir, 'side'));
    expect(h).toMatchObject({ n: 0, value: { ok: true, value: await g.head('side') } });
    const side = await g.head('side');
    const t = await spawned(() => up.readFiles(g.dir, side, ['side.txt']));
    expect(t.n).toBe(0);
  });

  it('lists a tree with one process the first time and none after', async () => {
    const first = await spawned(() => up.getTree(g.dir, 'main', 'd'));
    expect(first.n).toBeLessThanOrEqual(1);
    const again = await spawned(() => up.getTree(g.dir, 'main', 'd'));
    expect(again.n).toBe(0);
    expect(again.value).toEqual(first.value);
    const missing = await spawned(() => up.getTree(g.dir, 'main', 'a.txt'));
    expect(missing.n).toBe(0);
    expect(!missing.value.ok && missing.value.error.code).toBe('not_found');
  });

  it('lists commits with one process, merges included, with the files git reports', async () => {
    const page = await spawned(() => up.listCommits(g.dir, 'main', { paths: [''], skip: 0, limit: 10 }));
    expect(page.n).toBe(1);
    const commits = page.value.ok ? page.value.value.commits : [];
    const merge = commits.find((c) => c.parents.length > 1)!;
    const want = (await g.git('diff-tree', '-r', '--name-only', '--no-renames', '-z', merge.parents[0]!, merge.sha))
      .split('\0')
      .filter(Boolean);
    expect(merge.files).toEqual(want);
    expect(want).toEqual(expect.arrayContaining(['f', 'f/now-a-dir.txt', 'd/e/y.txt', 'side.txt']));
    expect(commits[0]?.files).toEqual(['a.txt']);
  });

  it('gets a commit with no process; reachability is one process per new (commit, head) pair, none after', async () => {
    const head = await g.head('main');
    const plain = await spawned(() => up.getCommit(g.dir, head));
    expect(plain.n).toBe(0);
    expect(plain.value.ok && plain.value.value.files.map((f) => [f.path, f.status])).toEqual([['a.txt', 'modified']]);
    // The head reaches itself: no process.
    const self = await spawned(() => up.getCommit(g.dir, head, 'main'));
    expect(self.n).toBe(0);
    expect(self.value).toEqual(plain.value);
    // A commit below the head, on an upstream that has walked no history yet: one merge-base, then none.
    const fresh = createLocalGitUpstream({ repos: [g.dir] });
    try {
      const side = await g.head('side');
      await fresh.getCommit(g.dir, side);
      const cold = await spawned(() => fresh.getCommit(g.dir, side, 'main'));
      expect(cold.by).toEqual({ 'merge-base': 1 });
      const again = await spawned(() => fresh.getCommit(g.dir, side, 'main'));
      expect(again.n).toBe(0);
      expect(again.value).toEqual(cold.value);
      // Its parent is reachable through it, and the commits a history page listed from the head are too.
      const parent = (await g.git('rev-parse', `${side}^`)).trim();
      expect((await spawned(() => fresh.getCommit(g.dir, parent, 'main'))).n).toBe(0);
      const page = await fresh.listCommits(g.dir, 'main', { paths: ['a.txt'], skip: 0, limit: 10 });
      const listed = page.ok ? page.value.commits.map((c) => c.sha) : [];
      expect(listed.length).toBeGreaterThan(1);
      for (const sha of listed) {
        const r = await spawned(() => fresh.getCommit(g.dir, sha, 'main'));
        expect(r).toMatchObject({ n: 0, value: { ok: true } });
      }
    } finally {
      await fresh.close();
    }
  });

  it('reads a hand-made commit header exactly as git log prints it (odd identities, multi-line headers)', async () => {
    const head = await g.head('main');
    const tree = (await g.git('rev-parse', `${head}^{tree}`)).trim();
    const raw = [
      `tree ${tree}`,
      `parent ${head}`,
      'author  Odd  Name   <odd@example.test> 1700000000 +0200',
      'committer <> 1700000001 -0130',
      'gpgsig -----BEGIN PGP SIGNATURE-----',
      ' not really',
      ' -----END PGP SIGNATURE-----',
      '',
      'subject line',
      '',
      'body with trailing lines',
      '',
      '',
    ].join('\n');
    const { execFile } = await import('node:child_process');
    const made = await new Promise<string>((resolve, reject) => {
      const c = execFile('git', ['-C', g.dir, 'hash-object', '-t', 'commit', '-w', '--stdin'], (e, out) =>
        e ? reject(e) : resolve(String(out).trim()),
      );
      c.stdin?.end(raw);
    });
    await g.git('update-ref', 'refs/heads/odd', made);
    const fromReader = await up.getCommit(g.dir, made);
    const fromLog = await up.listCommits(g.dir, 'refs/heads/odd', { paths: [''], skip: 0, limit: 1 });
    const logged = fromLog.ok ? fromLog.value.commits[0] : undefined;
    expect(fromReader.ok && fromReader.value).toMatchObject({
      sha: made,
      message: logged?.message,
      author: logged?.author,
      committer: logged?.committer,
      parents: [head],
    });
    expect(logged?.author.name).toBe(' Odd  Name');
  });
});
