// Issue 10: a second `serve` on the same state dir started silently and the two overwrote each other's perimeters.
// Now the state dir is locked by a pid file: a second server is refused naming the holder, a lock left by a dead
// process is recovered, a clean shutdown removes it, and of two servers started at once exactly one wins.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, snapshot, startServer, type ServerProcess } from '../support/cli-process.js';

let repo: GitDir;
let tmp: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'a.md': 'a\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i10-lock-'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

const env = () => childEnv({ HOME: tmp });
const start = async (state: string) => {
  const s = await startServer(['--state-dir', state], { cwd: repo.dir, env: env() });
  servers.push(s);
  return s;
};

it('refuses a second server on a state dir in use, naming the holder, and writes nothing', async () => {
  const state = join(tmp, 'busy');
  const first = await start(state);
  expect((await readFile(join(state, 'serve.pid'), 'utf8')).trim()).toBe(String(first.child.pid));
  const before = await snapshot(state);
  const second = await runCli(['serve', '--port', '0', '--state-dir', state], { cwd: repo.dir, env: env() });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(`State dir ${state} is in use by process ${first.child.pid}`);
  expect(second.stdout).not.toMatch(/listening|gbk_/);
  expect(await snapshot(state)).toEqual(before);
  await first.stop();
  // A clean shutdown gives the dir up.
  expect(await snapshot(state)).not.toHaveProperty('serve.pid');
});

it('recovers a lock left by a process that is gone', async () => {
  const state = join(tmp, 'stale');
  await mkdir(state, { recursive: true });
  // A pid that certainly existed and certainly is dead now.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  await writeFile(join(state, 'serve.pid'), `${dead}\n`);
  const s = await start(state);
  expect((await readFile(join(state, 'serve.pid'), 'utf8')).trim()).toBe(String(s.child.pid));
  await s.stop();
});

it('lets exactly one of two servers started at the same moment on one state dir run', async () => {
  const state = join(tmp, 'race');
  const both = await Promise.allSettled([start(state), start(state)]);
  const won = both.filter((b) => b.status === 'fulfilled');
  const lost = both.filter((b): b is PromiseRejectedResult => b.status === 'rejected');
  expect(won).toHaveLength(1);
  expect(lost).toHaveLength(1);
  expect(String(lost[0]?.reason)).toMatch(/exited with 1[\s\S]*is in use by process \d+/);
});
