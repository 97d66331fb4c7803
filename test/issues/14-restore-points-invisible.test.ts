// Issue 14: restore points live under refs/git-blinder/restore/ and hold what a discard or reset would lose (content
// of any path, hidden ones included). No read of the local upstream may reach them: a restore ref answers exactly as
// a restore ref that never existed, on every method that takes a ref, and no branch listing shows one.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

describe('issue 14: restore points are not reachable through the local upstream', () => {
  let g: GitDir;
  let up: Upstream;
  let id: string;
  beforeAll(async () => {
    g = await makeRepo([{ message: 'root', files: { 'a.txt': 'a\n', 'secret/.env': 'TOKEN=old\n' } }]);
    await writeFile(join(g.dir, 'secret/.env'), 'TOKEN=captured-by-the-restore-point\n');
    const writers = createWorkTreeWriters();
    const w = await writers.open(g.dir, 'main');
    if (!w.ok || !w.value) throw new Error('main is not checked out');
    const r = await w.value.apply({ kind: 'discard', paths: ['secret/.env'] });
    if (!r.ok || r.value.kind !== 'applied' || !r.value.restorePoint) throw new Error('discard did not apply');
    id = r.value.restorePoint;
    // The point really holds the discarded content (so reaching it would leak).
    expect(await g.git('show', `refs/git-blinder/restore/${id}:secret/.env`)).toContain(
      'captured-by-the-restore-point',
    );
    up = createLocalGitUpstream({ repos: [g.dir] });
  });
  afterAll(async () => {
    await up.close();
    await g.cleanup();
  });

  // Same length, never existed: every answer must match after the one name is swapped.
  const ghost = (real: string) => real.replace(/[0-9a-f]{8}$/, (h) => (h === '00000000' ? '11111111' : '00000000'));

  it('answers as for a restore ref that does not exist, on every ref-taking read', async () => {
    const same = async (call: (ref: string) => Promise<unknown>, prefix = 'refs/') => {
      const real = `${prefix}git-blinder/restore/${id}`;
      const fake = ghost(real);
      const a = JSON.stringify(await call(real))
        .split(real)
        .join('<ref>');
      const b = JSON.stringify(await call(fake))
        .split(fake)
        .join('<ref>');
      expect(a).toBe(b);
      expect(a).toContain('"ok":false');
      expect(a).not.toContain('captured-by-the-restore-point');
    };
    await same((ref) => up.getCommit(g.dir, ref));
    await same((ref) => up.readFiles(g.dir, ref, ['secret/.env']));
    await same((ref) => up.getTree(g.dir, ref, ''));
    await same((ref) => up.compare(g.dir, 'main', ref));
    await same((ref) => up.listCommits(g.dir, ref, { paths: [''], skip: 0, limit: 5 }));
    await same((ref) => up.branchHead(g.dir, ref));
    // The short form: git's DWIM would try refs/<name>; the upstream never does.
    await same((ref) => up.getCommit(g.dir, ref), '');
    await same((ref) => up.readFiles(g.dir, ref, ['secret/.env']), '');
  });

  it('lists no restore point among branches', async () => {
    const branches = await up.listBranches(g.dir);
    expect(branches.ok && branches.value.map((b) => b.name)).toEqual(['main']);
  });
});
