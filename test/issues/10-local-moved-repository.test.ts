// Issue 10: `serve` started in another repository with the same state dir silently moved `local` there and dropped
// its keys. It still follows the repository it is started in (that is the zero-config promise), but says so on stderr,
// naming the old and the new repository and the keys that stopped working.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, startServer, waitForText } from '../support/cli-process.js';

let a: GitDir;
let b: GitDir;
let tmp: string;

beforeAll(async () => {
  a = await makeRepo([{ message: 'a', files: { 'a.md': 'a\n' } }]);
  b = await makeRepo([{ message: 'b', files: { 'b.md': 'b\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i10-moved-'));
});

afterAll(async () => {
  await a?.cleanup();
  await b?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

it('says that local moved from one repository to another and that its key was revoked', async () => {
  const state = join(tmp, 'state');
  const env = childEnv({ HOME: tmp });
  const first = await startServer(['--state-dir', state], { cwd: a.dir, env });
  await waitForText(() => first.output().stdout, 'agent key for local');
  await first.stop();

  // Same repository again: nothing to say.
  const again = await startServer(['--state-dir', state], { cwd: a.dir, env });
  await again.stop();
  expect(again.output().stderr).not.toContain('moved');

  const moved = await startServer(['--state-dir', state], { cwd: b.dir, env });
  await waitForText(() => moved.output().stdout, 'agent key for local');
  await moved.stop();
  const err = moved.output().stderr;
  expect(err).toContain(`perimeter local moved from ${a.dir} to ${b.dir}`);
  expect(err).toContain('its 1 agent key(s) were revoked');
  expect(moved.output().stdout).toMatch(/agent key for local/);
});
