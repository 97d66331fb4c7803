// The local adapter ends a repository's readers when it drops the repository (its git dir went away) and on close():
// checked against the real process table (/proc), not a flag.
import { readdir, readlink, rename } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

/** Live processes whose working directory is `dir` (the readers run in the git dir). */
async function processesIn(dir: string): Promise<number> {
  let n = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd === dir) n++;
  }
  return n;
}

async function eventually(fn: () => Promise<number>, want: number): Promise<number> {
  let got = await fn();
  for (let i = 0; i < 40 && got !== want; i++) {
    await new Promise((r) => setTimeout(r, 50));
    got = await fn();
  }
  return got;
}

describe.skipIf(process.platform !== 'linux')('reader lifecycle', () => {
  let g: GitDir;
  beforeAll(async () => {
    g = await makeRepo([{ message: 'one', files: { 'a.txt': 'a\n' } }], { bare: true });
  });
  afterAll(async () => {
    await g.cleanup();
  });

  it('ends the readers of a repository that went away, and all readers on close()', async () => {
    const up = createLocalGitUpstream({ repos: [g.dir] });
    await up.readFiles(g.dir, 'main', ['a.txt']);
    await up.getCommit(g.dir, await g.head('main'));
    expect(await eventually(() => processesIn(g.dir), 2)).toBe(2);
    const away = `${g.dir}-away`;
    await rename(g.dir, away);
    const gone = await up.readFiles(g.dir, 'main', ['a.txt']);
    expect(!gone.ok && gone.error.code).toBe('not_found');
    expect(await eventually(() => processesIn(away), 0)).toBe(0);
    await rename(away, g.dir);
    const back = await up.readFiles(g.dir, 'main', ['a.txt']);
    expect(back.ok && back.value[0]?.ok).toBe(true);
    expect(await eventually(() => processesIn(g.dir), 1)).toBe(1);
    await up.close();
    expect(await eventually(() => processesIn(g.dir), 0)).toBe(0);
  });
});
