// Issue 25, "a perimeter removed from --config stays served": removing `docs` from the YAML and restarting still
// announced and served it, and its old key still read. Now the store records where each perimeter came from; a start
// whose config no longer declares a config perimeter removes it with its keys and says so on stderr; perimeters made
// at runtime are kept; `perimeter list` says which is which. (Both stores keep the origin: test/state/state.contract.ts.)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, startServer, waitForText, type ServerProcess } from '../support/cli-process.js';

let repo: GitDir;
let tmp: string;
let config: string;
let state: string;
const OPS = 'issue25-ops-token-0123456789abcdef01234';
const servers: ServerProcess[] = [];

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n', 'src/x.ts': 'x\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i25-config-'));
  config = join(tmp, 'perimeters.yaml');
  state = join(tmp, 'state');
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

const env = () => childEnv({ HOME: tmp, GIT_BLINDER_OPS_TOKEN: OPS });
const start = async () => {
  const s = await startServer(['--config', config, '--state-dir', state], { cwd: tmp, env: env() });
  servers.push(s);
  return s;
};
const cli = (s: ServerProcess, args: string[]) => runCli([...args, '--url', s.url], { cwd: tmp, env: env() });
const yaml = (ids: string[]) =>
  `perimeters:\n${ids.map((id) => `  ${id}:\n    repo: ${repo.dir}\n    read: ["docs/**"]\n`).join('')}`;
/** What an agent holding `key` gets on `/mcp/<id>`: 200 with its tools, or the 404 of an unknown perimeter. */
const agentStatus = async (s: ServerProcess, id: string, key: string) =>
  (await fetch(`${s.url}/mcp/${id}`, { headers: { authorization: `Bearer ${key}` } })).status;

it('removes a config perimeter the config dropped (and its keys), keeps runtime ones, and says which is which', async () => {
  await writeFile(config, yaml(['docs', 'code']));
  const first = await start();
  const issued = await cli(first, ['perimeter', 'key', 'issue', 'docs', '--json']);
  expect(issued.code, issued.stderr).toBe(0);
  const docsKey = (JSON.parse(issued.stdout) as { key: string }).key;
  const made = await cli(first, ['perimeter', 'create', 'extra', '--repo', repo.dir, '--read', 'docs/**']);
  expect(made.code, made.stderr).toBe(0);
  const extraKey = (
    JSON.parse((await cli(first, ['perimeter', 'key', 'issue', 'extra', '--json'])).stdout) as { key: string }
  ).key;
  expect(await agentStatus(first, 'docs', docsKey)).toBe(200);
  const listed = await cli(first, ['perimeter', 'list']);
  expect(listed.stdout).toMatch(/^docs\s+config\s/m);
  expect(listed.stdout).toMatch(/^extra\s+runtime\s/m);
  await first.stop();

  await writeFile(config, yaml(['code']));
  const second = await start();
  // Said on stderr, naming the perimeter, the config and the keys that stopped working.
  expect(await waitForText(() => second.output().stderr, 'note: perimeter docs')).toContain(
    `note: perimeter docs (${repo.dir}) is no longer in ${config}; removed it and its 1 agent key(s)`,
  );
  expect(second.output().stderr).not.toContain('perimeter extra');
  expect(second.output().stdout).not.toMatch(/\(docs →/);
  expect(await agentStatus(second, 'docs', docsKey)).toBe(404);
  expect(await agentStatus(second, 'extra', extraKey)).toBe(200);
  const after = await cli(second, ['perimeter', 'list']);
  expect(after.stdout).not.toMatch(/^docs\s/m);
  expect(after.stdout).toMatch(/^code\s+config\s/m);
  expect(after.stdout).toMatch(/^extra\s+runtime\s/m);
  await second.stop();

  // A runtime perimeter the config comes to declare becomes a config one (and goes when the config drops it).
  await writeFile(config, yaml(['code', 'extra']));
  const third = await start();
  expect((await cli(third, ['perimeter', 'list'])).stdout).toMatch(/^extra\s+config\s/m);
  expect(await agentStatus(third, 'extra', extraKey)).toBe(200); // same repository: its keys are kept
  await third.stop();
  await writeFile(config, yaml(['code']));
  const fourth = await start();
  await waitForText(() => fourth.output().stderr, 'note: perimeter extra');
  expect(await agentStatus(fourth, 'extra', extraKey)).toBe(404);
  await fourth.stop();
}, 120_000);
