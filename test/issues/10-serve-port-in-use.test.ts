// Issue 10 (blocker): `serve` on a port already in use printed "listening on …" and an agent key, then exited 0
// without serving — express's app.listen() hands the bind error to its callback as if it were success. Expected: the
// "already in use" message, a non-zero exit, and nothing written (no state file, no key, no ops token).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, snapshot, startServer } from '../support/cli-process.js';

let repo: GitDir;
let tmp: string;
let blocker: Server;
let port: number;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'a.md': 'a\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i10-port-'));
  blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  port = (blocker.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((r) => blocker?.close(r));
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

const env = () => childEnv({ HOME: tmp });

it('refuses a port in use: the message, exit 1, no announcement, no key, and a fresh state dir is not even created', async () => {
  const state = join(tmp, 'fresh');
  const r = await runCli(['serve', '--port', String(port), '--state-dir', state], { cwd: repo.dir, env: env() });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
  expect(r.stdout).not.toMatch(/listening|agent key|gbk_/);
  expect(await snapshot(state)).toBeUndefined();
});

it('leaves an existing state dir byte-for-byte as it was (perimeters, keys, ops token, lock)', async () => {
  const state = join(tmp, 'used');
  // A state dir whose `local` perimeter has no key yet: a start that got past the bind would issue one.
  const first = await startServer(['--state-dir', state, '--open-perimeters'], { cwd: repo.dir, env: env() });
  await first.stop();
  const before = await snapshot(state);
  expect(before?.['perimeters.json']).toBeDefined();
  const r = await runCli(['serve', '--port', String(port), '--state-dir', state], { cwd: repo.dir, env: env() });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('already in use');
  expect(r.stdout).toBe('');
  expect(await snapshot(state)).toEqual(before);
});
