// Issue 13: the workspace tools inside a perimeter, on a real dirty working tree with out-of-scope changes mixed in
// (modified, staged, untracked .env, a conflicted hidden file, renames across the boundary), over real MCP clients.
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { makeRepo, type CommitSpec, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

const WS_TOOLS = [
  'workspace_brief',
  'workspace_status',
  'workspace_diff',
  'conflict_preflight',
  'conflict_read',
  'submodule_status',
  'scope_summary',
  'integrity_check',
];

let repo: GitDir;
let srv: TestServer;
let linked: string;
let agent: Agent;

const history: CommitSpec[] = [
  {
    message: 'init',
    files: {
      'app/a.ts': 'a1\n',
      'app/b.ts': 'b1\n',
      'app/c.txt': 'base\n',
      'app/out.ts': 'leaving the window\n',
      'secret/s.ts': 'carried\n',
      'secret/c.txt': 'base\n',
      'secret/k.txt': 'key\n',
    },
  },
  ...Array.from({ length: 28 }, (_, i): CommitSpec => ({
    message: `app: step ${i + 1} of the long road`,
    files: { 'app/a.ts': `a${i + 2}\n` },
  })),
];

beforeAll(async () => {
  repo = await makeRepo(history);
  // A branch that conflicts with main on a readable and on a hidden file, and two branches for linked worktrees.
  await repo.git('branch', 'other');
  await repo.commit({
    message: 'other side',
    branch: 'other',
    files: { 'app/c.txt': 'theirs\n', 'secret/c.txt': 'theirs\n' },
  });
  await repo.git('checkout', '-q', 'main');
  await repo.commit({ message: 'our side', files: { 'app/c.txt': 'ours\n', 'secret/c.txt': 'ours\n' } });
  await repo.git('branch', 'feat-a');
  await repo.git('branch', 'feat-b');
  await repo.git('branch', 'parked');
  // A merge in progress with both conflicts, then a dirty tree on top.
  await repo.git('merge', 'other').catch(() => undefined);
  await writeFile(join(repo.dir, 'app/a.ts'), 'a-on-disk\n');
  await writeFile(join(repo.dir, 'app/b.ts'), 'b-staged\n');
  await repo.git('add', 'app/b.ts');
  await writeFile(join(repo.dir, 'secret/k.txt'), 'key-changed\n');
  await repo.git('add', 'secret/k.txt');
  await writeFile(join(repo.dir, 'app/new.ts'), 'new\n');
  await writeFile(join(repo.dir, '.env'), 'TOKEN=hunter2\n');
  await writeFile(join(repo.dir, 'app/.env'), 'TOKEN=hunter3\n');
  await repo.git('mv', 'secret/s.ts', 'app/moved.ts');
  await repo.git('mv', 'app/out.ts', 'secret/out.ts');
  await symlink('../secret/k.txt', join(repo.dir, 'app/link-out'));
  linked = await mkdtemp(join(tmpdir(), 'gb-wt-'));
  await repo.git('worktree', 'add', '-q', join(linked, 'b'), 'feat-b');
  await writeFile(join(linked, 'b', 'app/a.ts'), 'only in feat-b\n');
  srv = await startTestServer({ workspace: createLocalWorkspace() });
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['app/**'],
    write: ['app/**'],
    branches: ['main', 'other', 'feat-a', 'feat-b'],
  });
  agent = await srv.connect('/mcp/app');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (linked) await rm(linked, { recursive: true, force: true });
});

const noSecrets = (text: string) => {
  for (const s of ['secret', '.env', 'hunter', 'key-changed']) expect(text).not.toContain(s);
};
const sameBytes = async (tool: string, args: (p: string) => Record<string, unknown>, paths: string[]) => {
  const answers = [];
  for (const p of paths)
    answers.push(
      JSON.stringify(await agent.call(tool, args(p)))
        .split(p)
        .join('P'),
    );
  expect(new Set(answers).size).toBe(1);
};

describe('exposure', () => {
  it('lists the workspace tools where the bound branch is checked out (main or linked), not elsewhere', async () => {
    expect((await agent.client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(WS_TOOLS));
    const b = await srv.connect('/mcp/app/feat-b');
    expect((await b.client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(WS_TOOLS));
    const a = await srv.connect('/mcp/app/feat-a');
    const names = (await a.client.listTools()).tools.map((t) => t.name);
    for (const t of WS_TOOLS) expect(names).not.toContain(t);
    const r = await a.call('workspace_status', {}).catch((e: Error) => ({ isError: true, text: e.message }));
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/not found|unknown tool/i);
  });
});

describe('each tool shows only the window', () => {
  it('workspace_status: readable entries, renames judged on both sides, counts after filtering', async () => {
    const r = await agent.call('workspace_status', {});
    expect(r.isError).toBeUndefined();
    noSecrets(r.text);
    const s = r.structured;
    expect(s.staged).toEqual(
      expect.arrayContaining([
        { path: 'app/b.ts', change: 'modified' },
        { path: 'app/moved.ts', change: 'added' },
        { path: 'app/out.ts', change: 'deleted' },
      ]),
    );
    expect(s.unstaged).toEqual(expect.arrayContaining([{ path: 'app/a.ts', change: 'modified' }]));
    // app/link-out points at a hidden file: absent, as get_tree and get_file read it (issue 19, class 5).
    expect(s.untracked).toEqual(['app/new.ts']);
    expect(s.conflicted).toEqual([{ path: 'app/c.txt', kind: 'both_modified' }]);
    expect(s.counts.conflicted).toBe(1);
    expect(s.counts.staged).toBe(s.staged.length);
  });

  it('workspace_diff: hidden files dropped and counted opaquely; a hidden path reads like a missing one', async () => {
    const r = await agent.call('workspace_diff', { staged: true });
    expect(r.isError).toBeUndefined();
    noSecrets(r.text);
    expect(r.structured.files.map((f: { path: string }) => f.path)).toEqual(
      expect.arrayContaining(['app/b.ts', 'app/moved.ts']),
    );
    const moved = r.structured.files.find((f: { path: string }) => f.path === 'app/moved.ts');
    expect(moved.status).toBe('added');
    expect(r.structured.totals.files).toBe(r.structured.files.length);
    const u = await agent.call('workspace_diff', {});
    expect(u.structured.files.map((f: { path: string }) => f.path)).toContain('app/a.ts');
    await sameBytes('workspace_diff', (p) => ({ path: p }), ['secret', 'secret/k.txt', 'app/.env', 'nodir']);
  });

  it('conflict_read: sides and markers of a readable conflict; a hidden conflicted file reads like a missing one', async () => {
    const r = await agent.call('conflict_read', { path: 'app/c.txt' });
    expect(r.isError).toBeUndefined();
    expect(r.structured.operation).toBe('merge');
    expect(r.structured.ours.content).toBe('ours\n');
    expect(r.structured.theirs.content).toBe('theirs\n');
    expect(r.structured.base.content).toBe('base\n');
    expect(r.structured.regions).toHaveLength(1);
    await sameBytes('conflict_read', (p) => ({ path: p }), ['secret/c.txt', 'app/none.txt']);
  });

  it('conflict_preflight: readable conflicts listed, hidden ones counted; an unlisted branch reads like a missing one', async () => {
    const r = await agent.call('conflict_preflight', { with: 'other' });
    expect(r.isError).toBeUndefined();
    expect(r.structured).toMatchObject({ status: 'conflicts', conflicts: ['app/c.txt'], omitted_count: 1 });
    noSecrets(r.text);
    await sameBytes('conflict_preflight', (p) => ({ with: p }), ['parked', 'no-such-branch', 'origin/main']);
    // A name git would read as an option never reaches it: refused by the schema, whatever branches exist.
    expect((await agent.call('conflict_preflight', { with: '--output=x' })).isError).toBe(true);
  });

  it('integrity_check: readable differences only; a link to a hidden file does not exist', async () => {
    const r = await agent.call('integrity_check', {});
    expect(r.isError).toBeUndefined();
    noSecrets(r.text);
    const paths = r.structured.entries.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['app/a.ts', 'app/new.ts']));
    expect(paths).not.toContain('app/link-out');
  });

  it('get_file source worktree: what is on disk now; a link out of the window reads as missing', async () => {
    expect((await agent.call('get_file', { path: 'app/a.ts', source: 'worktree' })).structured.content).toBe(
      'a-on-disk\n',
    );
    expect((await agent.call('get_file', { path: 'app/a.ts' })).structured.content).toBe('a29\n');
    const link = await agent.call('get_file', { path: 'app/link-out', source: 'worktree' });
    const none = await agent.call('get_file', { path: 'app/link-to-nowhere', source: 'worktree' });
    expect(JSON.stringify(link).split('app/link-out').join('P')).toBe(
      JSON.stringify(none).split('app/link-to-nowhere').join('P'),
    );
  });

  it('scope_summary and submodule_status stay inside the window', async () => {
    const r = await agent.call('scope_summary', { path: 'app' });
    expect(r.isError).toBeUndefined();
    noSecrets(r.text);
    expect(r.structured.working_tree.changed).toBeGreaterThan(0);
    expect(r.structured.owners).toBeNull();
    await sameBytes('scope_summary', (p) => ({ path: p }), ['secret', 'nodir']);
    expect((await agent.call('submodule_status', {})).structured).toEqual({ submodules: [], total: 0 });
  });

  it('workspace_brief: oriented in one call, within 2,400 characters on a 30-commit repository', async () => {
    const r = await agent.call('workspace_brief', {});
    expect(r.isError).toBeUndefined();
    noSecrets(r.text);
    expect(r.structured.operation).toBe('merge');
    expect(r.structured.working_tree.conflicted).toBe(1);
    expect(r.structured.recent_commits).toHaveLength(10);
    expect(JSON.stringify(r.structured).length).toBeLessThanOrEqual(2400);
  });
});

describe('a perimeter reading everything', () => {
  it('diffs the whole tree (no "" pathspec reaches git) and still hides privacy zones', async () => {
    await srv.perimeter({ id: 'all', repo: repo.dir, read: ['**'], write: [] });
    const all = await srv.connect('/mcp/all');
    const r = await all.call('workspace_diff', {});
    expect(r.isError).toBeUndefined();
    expect(r.structured.files.map((f: { path: string }) => f.path)).toContain('app/a.ts');
    expect(r.text).not.toContain('hunter');
    expect((await all.call('workspace_status', {})).structured.untracked).not.toContain('.env');
  });
});

describe('two agents, two worktrees of one repository', () => {
  it('each sees only its own working tree', async () => {
    const b = await srv.connect('/mcp/app/feat-b');
    const sb = await b.call('workspace_status', {});
    expect(sb.structured.unstaged).toEqual([{ path: 'app/a.ts', change: 'modified' }]);
    expect(sb.structured.counts).toEqual({ staged: 0, unstaged: 1, untracked: 0, conflicted: 0 });
    expect((await b.call('get_file', { path: 'app/a.ts', source: 'worktree' })).structured.content).toBe(
      'only in feat-b\n',
    );
    const sa = await agent.call('workspace_status', {});
    expect(sa.structured.counts).not.toEqual(sb.structured.counts);
    expect(sa.structured.conflicted).toEqual([{ path: 'app/c.txt', kind: 'both_modified' }]);
  });
});
