// Writes: one atomic commit through the Git Data API, CAS on the branch head, safe rebuilds on a moved head,
// conflicts refused, concurrent writers from this process and from another both landing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
const BASE = [{ message: 'initial', files: { 'README.md': 'hello\n', 'src/a.ts': 'a\n', 'secret/hidden.txt': 'h\n' } }];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('commitFiles', () => {
  it('writes, deletes, ignores missing and directory deletes, records author and committer', async () => {
    const { name, git } = await h.repo(BASE);
    const u = h.upstream();
    const before = await git.head();
    const mark = h.mark();
    const w = await u.commitFiles(name, 'main', {
      message: 'agent edit',
      files: [
        { path: 'src/deep/new file.ts', content: 'new\n', encoding: 'utf-8' },
        { path: 'bin/data', content: Buffer.from([0, 1, 255]).toString('base64'), encoding: 'base64' },
      ],
      deletes: ['README.md', 'no/such/file.txt', 'secret'],
      author: { name: 'Agent', email: 'agent@example.test' },
    });
    const blob = async (path: string) => (await git.git('rev-parse', `main:${path}`)).trim();
    expect(w).toEqual({
      ok: true,
      value: {
        sha: await git.head(),
        branch: 'main',
        parent: before,
        retries: 0,
        // What landed, as git itself names it (deletes are not listed).
        files: [
          { path: 'src/deep/new file.ts', sha: await blob('src/deep/new file.ts'), size: 4 },
          { path: 'bin/data', sha: await blob('bin/data'), size: 3 },
        ],
      },
    });
    // Exactly one PATCH, never forced; no PATCH carried force: true.
    const patches = mark().filter((r) => r.method === 'PATCH');
    expect(patches).toHaveLength(1);
    expect((await git.git('ls-tree', '-r', '--name-only', 'main')).trim().split('\n').sort()).toEqual(
      ['bin/data', 'secret/hidden.txt', 'src/a.ts', 'src/deep/new file.ts'].sort(),
    );
    expect((await git.git('show', 'main:bin/data')).length).toBeGreaterThan(0);
    expect((await git.git('log', '-1', '--format=%an <%ae>|%cn <%ce>|%P', 'main')).trim()).toBe(
      `Agent <agent@example.test>|git-blinder <git-blinder@localhost>|${before}`,
    );
  });

  it('always commits, even when the tree does not change', async () => {
    const { name, git } = await h.repo(BASE);
    const u = h.upstream();
    const before = await git.head();
    const w = await u.commitFiles(name, 'main', {
      message: 'noop',
      files: [{ path: 'README.md', content: 'hello\n', encoding: 'utf-8' }],
      deletes: ['gone.txt'],
    });
    expect(w.ok && w.value.parent).toBe(before);
    expect(w.ok && w.value.sha).not.toBe(before);
    expect((await git.git('rev-parse', 'main^{tree}')).trim()).toBe(
      (await git.git('rev-parse', `${before}^{tree}`)).trim(),
    );
  });

  it('refuses unknown branches, empty branch names and bad paths without creating anything', async () => {
    const { name } = await h.repo(BASE);
    const u = h.upstream();
    const mark = h.mark();
    const missing = await u.commitFiles(name, 'nope', {
      message: 'x',
      files: [{ path: 'a', content: 'a', encoding: 'utf-8' }],
      deletes: [],
    });
    expect(!missing.ok && missing.error.code).toBe('not_found');
    const empty = await u.commitFiles(name, '', {
      message: 'x',
      files: [{ path: 'a', content: 'a', encoding: 'utf-8' }],
      deletes: [],
    });
    expect(!empty.ok && empty.error.code).toBe('not_found');
    expect(mark().filter((r) => r.method !== 'GET')).toEqual([]);
    for (const path of ['../x', '/abs', 'a//b', '.git/config', '']) {
      const bad = await u.commitFiles(name, 'main', {
        message: 'x',
        files: [{ path, content: 'a', encoding: 'utf-8' }],
        deletes: [],
      });
      expect(!bad.ok && bad.error.code).toBe('invalid');
    }
  });

  it('rebuilds on a head that moved without touching our paths', async () => {
    const { name, git } = await h.repo(BASE);
    const u = h.upstream();
    h.emulator.faults.moveRefBeforeUpdate({
      repo: name,
      branch: 'main',
      files: { 'other.txt': 'theirs\n' },
      message: 'their push',
    });
    const w = await u.commitFiles(name, 'main', {
      message: 'ours',
      files: [{ path: 'src/a.ts', content: 'ours\n', encoding: 'utf-8' }],
      deletes: [],
    });
    expect(w.ok && w.value.retries).toBe(1);
    const log = (await git.git('log', '--format=%s', 'main')).trim().split('\n');
    expect(log).toEqual(['ours', 'their push', 'initial']);
    expect(w.ok && w.value.parent).toBe((await git.git('rev-parse', 'main~1')).trim());
    expect(await git.git('show', 'main:other.txt')).toBe('theirs\n');
    expect(await git.git('show', 'main:src/a.ts')).toBe('ours\n');
  });

  it('refuses with conflict when the moved head changed one of our paths, and writes nothing', async () => {
    const { name, git } = await h.repo(BASE);
    const u = h.upstream();
    h.emulator.faults.moveRefBeforeUpdate({
      repo: name,
      branch: 'main',
      files: { 'src/a.ts': 'theirs\n' },
      message: 'their push',
    });
    const w = await u.commitFiles(name, 'main', {
      message: 'ours',
      files: [{ path: 'src/a.ts', content: 'ours\n', encoding: 'utf-8' }],
      deletes: [],
    });
    expect(!w.ok && w.error.code).toBe('conflict');
    expect(!w.ok && w.error.message).toMatch(/moved.*nothing was written/);
    expect((await git.git('log', '--format=%s', 'main')).trim().split('\n')).toEqual(['their push', 'initial']);
    // A delete of a path the other push touched is a conflict too.
    h.emulator.faults.moveRefBeforeUpdate({ repo: name, branch: 'main', files: { 'README.md': 'changed\n' } });
    const d = await u.commitFiles(name, 'main', { message: 'del', files: [], deletes: ['README.md'] });
    expect(!d.ok && d.error.code).toBe('conflict');
  });

  it('retries a write through 5xx answers and lands exactly one commit', async () => {
    const { name, git } = await h.repo(BASE);
    const u = h.upstream();
    const before = await git.head();
    h.emulator.faults.serverError({ status: 502, count: 2 });
    const w = await u.commitFiles(name, 'main', {
      message: 'through errors',
      files: [{ path: 'x.txt', content: 'x\n', encoding: 'utf-8' }],
      deletes: [],
    });
    expect(w.ok && w.value.parent).toBe(before);
    expect((await git.git('log', '--format=%s', 'main')).trim().split('\n')).toEqual(['through errors', 'initial']);
  });

  it('lands concurrent writes to one branch from this process and from another', async () => {
    const { name, git } = await h.repo(BASE);
    const a = h.upstream();
    const b = h.upstream();
    const write = (u: typeof a, i: number) =>
      u.commitFiles(name, 'main', {
        message: `w${i}`,
        files: [{ path: `w/${i}.txt`, content: `${i}\n`, encoding: 'utf-8' }],
        deletes: [],
      });
    const results = await Promise.all([write(a, 0), write(b, 1), write(a, 2), write(b, 3)]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true]);
    expect((await git.git('ls-tree', '--name-only', 'main', 'w/')).trim().split('\n').sort()).toEqual([
      'w/0.txt',
      'w/1.txt',
      'w/2.txt',
      'w/3.txt',
    ]);
    // Linear history: every write is a commit whose parent is the previous head (no lost commit, no force).
    expect((await git.git('rev-list', '--count', 'main')).trim()).toBe('5');
    expect((await git.git('rev-list', '--merges', 'main')).trim()).toBe('');
  }, 90_000);
});
