// Issue 13: `git-blinder worktree add|list <perimeter>` through /api against a real server and a real repository;
// the branch must be allowlisted, and an agent on the new worktree's branch gets the workspace tools.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient } from '../../src/cli/client.js';
import { defaultWorktreePath } from '../../src/cli/commands/worktree.js';
import { buildProgram } from '../../src/cli/program.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let scratch: string;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': '1\n' } }]);
  await repo.git('branch', 'feat');
  await repo.git('branch', 'unlisted');
  srv = await startTestServer({ workspace: createLocalWorkspace() });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: [], branches: ['main', 'feat'] });
  scratch = await mkdtemp(join(tmpdir(), 'gb-wtcli-'));
}, 30_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ out: string[]; err?: Error }> {
  const out: string[] = [];
  const program = buildProgram({
    out: (l) => out.push(l),
    err: (l) => out.push(l),
    env: {},
    version: 'test',
    serve: async () => undefined,
    stdio: async () => undefined,
    cwd: scratch,
    client: async (o) => apiClient(o.url, OPS_TOKEN),
  }).exitOverride();
  try {
    await program.parseAsync(['node', 'gb', ...args, '--url', srv.url]);
    return { out };
  } catch (err) {
    return { out, err: err as Error };
  }
}

it('adds a worktree for an allowlisted branch, lists it, and its agents get the workspace tools', async () => {
  const before = await srv.connect('/mcp/app/feat');
  expect((await before.client.listTools()).tools.map((t) => t.name)).not.toContain('workspace_status');
  const added = await cli('worktree', 'add', 'app', 'feat', '--path', 'feat-tree', '--json');
  expect(added.err).toBeUndefined();
  expect(JSON.parse(added.out.join('\n')).worktree).toMatchObject({
    branch: 'feat',
    path: join(scratch, 'feat-tree'),
    workspace_tools: true,
  });
  const listed = await cli('worktree', 'list', 'app');
  expect(listed.out.join('\n')).toMatch(/main[\s\S]*feat/);
  // New sessions see the tools once the short lookup cache has expired.
  await new Promise((r) => setTimeout(r, 2_100));
  const after = await srv.connect('/mcp/app/feat');
  expect((await after.client.listTools()).tools.map((t) => t.name)).toContain('workspace_status');
  expect((await after.call('workspace_status', {})).structured.clean).toBe(true);
});

it('refuses a branch that is not allowlisted, and answers an unknown perimeter as not found', async () => {
  const r = await cli('worktree', 'add', 'app', 'unlisted', '--path', join(scratch, 'x'));
  expect(r.err?.message ?? r.out.join('\n')).toMatch(/not allowlisted/);
  const api = await srv.api('POST', '/api/perimeters/nope/worktrees', { branch: 'feat', path: '/tmp/x' });
  expect(api.status).toBe(404);
  expect((await srv.api('GET', '/api/perimeters/app/worktrees', undefined, null)).status).toBe(401);
});

it('puts a default worktree beside the repository', () => {
  expect(defaultWorktreePath('/srv/repos/platform', 'feat/a b')).toBe('/srv/repos/platform-feat-a-b');
});
