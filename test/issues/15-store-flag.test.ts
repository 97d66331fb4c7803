// Issue 15: the shared-store flag is checked before anything starts, and its value (which may carry a password) is
// never echoed; a database that cannot be reached stops the start naming host and database only.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBuiltCli } from '../support/built-cli.js';
import { snapshot } from '../support/cli-process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gb-store-flag-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('refuses a store URL that is not postgres:// with exit 2, from the flag or the variable, without echoing it', async () => {
  const state = join(dir, 'a');
  const flag = await runBuiltCli([
    'serve',
    '--port',
    '0',
    '--state-dir',
    state,
    '--store',
    'mysql://gb:hunter2pw@db/x',
  ]);
  expect(flag.code).toBe(2);
  expect(flag.stderr).toMatch(/--store must be a postgres:\/\//);
  expect(flag.stderr + flag.stdout).not.toContain('hunter2pw');
  const env = await runBuiltCli(['serve', '--port', '0', '--state-dir', state], {
    env: { GIT_BLINDER_STORE: 'not a url hunter2pw' },
  });
  expect(env.code).toBe(2);
  expect(env.stderr + env.stdout).not.toContain('hunter2pw');
  expect(await snapshot(state)).toBeUndefined(); // nothing written
  // The same holds for the older secret flags, which commander used to quote back.
  const token = await runBuiltCli(['serve', '--port', '0', '--state-dir', state], {
    env: { GITHUB_TOKEN: 'ghp_hunter2pw with space' },
  });
  expect(token.code).toBe(2);
  expect(token.stderr).not.toContain('hunter2pw');
});

it('stops the start when the database cannot be reached, naming host and database but never the password', async () => {
  const state = join(dir, 'b');
  // A URL with a password comes from the environment (issue 20: never on the command line).
  const r = await runBuiltCli(['serve', '--port', '0', '--state-dir', state, '--open-perimeters'], {
    env: { GIT_BLINDER_STORE: 'postgres://gb:hunter2pw@127.0.0.1:1/gitblinder' },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('postgres://127.0.0.1:1/gitblinder');
  expect(r.stderr + r.stdout).not.toContain('hunter2pw');
  expect(r.stdout).not.toContain('listening on');
});
