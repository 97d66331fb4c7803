// Issue 10: perimeters loaded from --config got no key and no hint, so agents got 404 and the operator did not know
// why. The choice: `serve` issues a key only for the zero-config `local` perimeter; for every other perimeter without
// a key it prints the one command that issues one (no secret lands in a start-up log nobody asked for), and
// `perimeter create` ends with the same next step.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, startServer, waitForText, type ServerProcess } from '../support/cli-process.js';

let repo: GitDir;
let tmp: string;
let config: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n', 'src/x.ts': 'x\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i10-hint-'));
  config = join(tmp, 'perimeters.yaml');
  await writeFile(
    config,
    `perimeters:\n  docs:\n    repo: ${repo.dir}\n    read: ["docs/**"]\n  code:\n    repo: ${repo.dir}\n    read: ["src/**"]\n`,
  );
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

const env = () => childEnv({ HOME: tmp });
const hint = (id: string) => `git-blinder perimeter key issue ${id}`;

it('prints the key command for each config perimeter without a key, and stops once it has one', async () => {
  const state = join(tmp, 'state');
  const first = await startServer(['--config', config, '--state-dir', state], { cwd: tmp, env: env() });
  servers.push(first);
  const out = await waitForText(() => first.output().stdout, hint('code'));
  expect(out).toContain(hint('docs'));
  expect(out).toContain(hint('code'));
  expect(out).not.toContain('gbk_');
  const issued = await runCli(['perimeter', 'key', 'issue', 'docs', '--url', first.url, '--state-dir', state], {
    cwd: tmp,
    env: env(),
  });
  expect(issued.code).toBe(0);
  await first.stop();

  const second = await startServer(['--config', config, '--state-dir', state], { cwd: tmp, env: env() });
  servers.push(second);
  expect(await waitForText(() => second.output().stdout, hint('code'))).not.toContain(hint('docs'));

  const made = await runCli(
    [
      'perimeter',
      'create',
      'extra',
      '--repo',
      repo.dir,
      '--read',
      'docs/**',
      '--url',
      second.url,
      '--state-dir',
      state,
    ],
    { cwd: tmp, env: env() },
  );
  expect(made.code).toBe(0);
  expect(made.stdout.trimEnd().split('\n').at(-1)).toContain(hint('extra'));
  await second.stop();
});

it('prints no key hint when perimeters are open', async () => {
  const s = await startServer(['--config', config, '--state-dir', join(tmp, 'open'), '--open-perimeters'], {
    cwd: tmp,
    env: env(),
  });
  servers.push(s);
  expect(s.output().stdout).not.toContain('perimeter key issue');
  await s.stop();
});
