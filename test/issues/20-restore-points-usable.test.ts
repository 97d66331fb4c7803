// Issue 20 §4: a workspace proposal recorded a restore point (`<time>-<suffix>`) that `git-blinder restore list` did
// not show and `restore apply` answered "No restore point" to, so after an approved propose_discard the work could
// only be recovered with raw git. Now both kinds (push_files points and working-tree points) are one catalog: the
// test approves every workspace kind that changes the tree or refs, then runs the built CLI's
// `restore apply <the id the proposal names>` and checks the tree, index and refs are back as they were.
// `npm run build` first (the CLI is the built one).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptUntil, RESTORE_KEEP_DAYS } from '../../src/core/index.js';
import { restoreCatalog } from '../../src/http/api/restore-points.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { runBuiltCli } from '../support/built-cli.js';
import { gitIn, makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let scratch: string;
let tree: string;
let remote: string;
let agent: Agent;
let gated: Agent;

const git = (...args: string[]) => repo.git('-C', tree, ...args);
const cli = (...args: string[]) =>
  runBuiltCli([...args, '--url', srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN } });

/** Everything a restore must put back: the head, each file's bytes, the index and worktree status, the branches. */
async function snapshot(): Promise<Record<string, string>> {
  const read = async (p: string) => readFile(join(tree, p), 'utf8').catch(() => '<absent>');
  return {
    head: (await git('rev-parse', 'HEAD')).trim(),
    status: await git('status', '--porcelain=v1', '-uall'),
    a: await read('app/a.ts'),
    b: await read('app/b.ts'),
    branches: await repo.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/'),
  };
}

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': 'a1\n', 'app/b.ts': 'b1\n', 'docs/d.md': 'd1\n' } }]);
  await repo.git('branch', 'work');
  await repo.git('branch', 'other');
  await repo.git('branch', 'base2');
  await repo.commit({ message: 'other side', branch: 'other', files: { 'app/o.ts': 'other\n' } });
  await repo.commit({ message: 'base moved', branch: 'base2', files: { 'app/z.ts': 'z\n' } });
  await repo.commit({ message: 'work of its own', branch: 'work', files: { 'app/w.ts': 'w\n' } });
  await repo.git('checkout', '-q', 'main');
  scratch = await mkdtemp(join(tmpdir(), 'gb-rp-'));
  tree = join(scratch, 'work');
  await repo.git('worktree', 'add', '-q', tree, 'work');
  // A local remote, so a push can be proposed and approved.
  remote = join(scratch, 'remote.git');
  await gitIn(scratch, ['clone', '-q', '--bare', repo.dir, remote]);
  await repo.git('remote', 'add', 'origin', remote);
  await repo.git('fetch', '-q', 'origin');
  await repo.git('branch', '-q', '--set-upstream-to=origin/work', 'work');
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['**'],
    write: ['app/**'],
    branches: ['work', 'other', 'base2'],
  });
  await srv.perimeter({
    id: 'gated',
    repo: repo.dir,
    read: ['docs/**'],
    write: ['docs/**'],
    approval: { push_files: 'required' },
  });
  agent = await srv.connect('/mcp/app/work');
  gated = await srv.connect('/mcp/gated');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Approves through the operator API and answers the restore point id the proposal names. */
async function approve(proposalId: string): Promise<string> {
  const r = await srv.api('POST', `/api/proposals/${proposalId}/approve`);
  expect(r.json.proposal?.status, JSON.stringify(r.json)).toBe('applied');
  const restore = r.json.proposal.restore as string;
  expect(restore).toMatch(/^[A-Za-z0-9][A-Za-z0-9-]*$/);
  return restore;
}

/** Proposes with `call`, approves, checks the tree changed, restores with the built CLI, checks it is back. */
async function roundTrip(tool: string, args: Record<string, unknown>, prepare?: () => Promise<void>): Promise<void> {
  // Each kind starts from a clean tree at the head the previous one restored.
  await git('checkout', '-q', '--', '.');
  await prepare?.();
  const before = await snapshot();
  const r = await agent.call(tool, { ...args, reason: `test ${tool}` });
  expect(r.isError, r.text).toBeFalsy();
  const id = await approve(r.structured.proposal_id as string);
  expect(await snapshot()).not.toEqual(before);

  const listed = await cli('restore', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  const rows = JSON.parse(listed.stdout).restore_points as { id: string; proposal: string | null; kind: string }[];
  expect(rows).toContainEqual(expect.objectContaining({ id, kind: 'tree', proposal: r.structured.proposal_id }));

  const applied = await cli('restore', 'apply', id);
  expect(applied.code, applied.stderr + applied.stdout).toBe(0);
  expect(applied.stdout).toContain('undo: git-blinder restore apply ');
  expect(await snapshot()).toEqual(before);
}

describe('every approved workspace kind can be restored with the id its proposal names', () => {
  it('commit: the head goes back and the committed work is uncommitted again', async () => {
    await roundTrip('propose_commit', { message: 'agent commit', paths: ['app/a.ts'] }, () =>
      writeFile(join(tree, 'app/a.ts'), 'committed work\n'),
    );
  });

  it('patch', async () => {
    const patch = 'diff --git a/app/b.ts b/app/b.ts\n--- a/app/b.ts\n+++ b/app/b.ts\n@@ -1 +1 @@\n-b1\n+b2\n';
    await roundTrip('propose_patch', { patch });
  });

  it('discard: the discarded work comes back', async () => {
    await roundTrip('propose_discard', { paths: ['app/a.ts'] }, () =>
      writeFile(join(tree, 'app/a.ts'), 'precious unsaved work\n'),
    );
  });

  it('merge', async () => {
    await roundTrip('propose_merge', { from: 'other' });
  });

  it('rebase', async () => {
    await roundTrip('propose_rebase', { onto: 'base2' });
  });

  it('reset --hard: the head and the work the reset threw away come back', async () => {
    const to = (await git('rev-parse', 'HEAD~1')).trim();
    await roundTrip('propose_reset', { mode: 'hard', to }, () =>
      writeFile(join(tree, 'app/b.ts'), 'lost to the reset\n'),
    );
  });

  it('branch: the created branch is gone again', async () => {
    await roundTrip('propose_branch', { name: 'feature-x', from: 'work' });
  });

  it("plan: every step is undone, each step's stash included", async () => {
    await roundTrip(
      'propose_plan',
      {
        steps: [
          { kind: 'commit', message: 'step one', paths: ['app/a.ts'] },
          { kind: 'commit', message: 'step two', paths: ['app/b.ts'] },
          { kind: 'branch', name: 'plan-made', from: 'work' },
        ],
      },
      async () => {
        await writeFile(join(tree, 'app/a.ts'), 'plan a\n');
        await writeFile(join(tree, 'app/b.ts'), 'plan b\n');
      },
    );
  });

  it('push changes no local tree and names no restore point (a remote is never rewound)', async () => {
    await git('checkout', '-q', '--', '.');
    await writeFile(join(tree, 'app/a.ts'), 'to ship\n');
    await git('commit', '-q', '-am', 'to ship');
    const before = await snapshot();
    const r = await agent.call('propose_push', { reason: 'ship' });
    expect(r.isError, r.text).toBeFalsy();
    const out = await srv.api('POST', `/api/proposals/${r.structured.proposal_id}/approve`);
    expect(out.json.proposal.status, JSON.stringify(out.json)).toBe('applied');
    expect(out.json.proposal.restore).toBeUndefined();
    expect(await snapshot()).toEqual(before);
    expect((await gitIn(remote, ['rev-parse', 'refs/heads/work'])).toString().trim()).toBe(before.head);
  });
});

describe('one catalog for both kinds', () => {
  it('a push_files point is listed and applied by the id its proposal names, with the same CLI', async () => {
    const before = (await repo.git('rev-parse', 'main')).trim();
    const r = await gated.call('push_files', { message: 'docs', files: [{ path: 'docs/d.md', content: 'd2\n' }] });
    expect(r.structured?.status, r.text).toBe('pending');
    const id = await approve(r.structured.proposal_id as string);
    expect(id).toBe(r.structured.proposal_id);
    const listed = await cli('restore', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s.*main\\s+${id}\\s+push_files`));
    expect(listed.stdout).toContain(`retention: each point is kept ${RESTORE_KEEP_DAYS} days after it was taken`);
    const applied = await cli('restore', 'apply', id);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect((await repo.git('rev-parse', 'main')).trim()).toBe(before);
  });

  it('lists what each point keeps and until when; an unknown id is refused', async () => {
    const listed = JSON.parse((await cli('restore', 'list', '--json')).stdout);
    expect(listed.retention).toEqual({ keep_days: RESTORE_KEEP_DAYS, rule: expect.stringContaining('TTL') });
    const discard = listed.restore_points.find((p: { op: string }) => p.op === 'discard');
    expect(discard).toMatchObject({
      kind: 'tree',
      branch: 'work',
      stash: ['app/a.ts'],
      head: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(Date.parse(discard.kept_until) - Date.parse(discard.taken_at)).toBe(RESTORE_KEEP_DAYS * 86_400_000);
    const none = await cli('restore', 'apply', '20990101T000000000Z-00000000');
    expect(none.code).not.toBe(0);
    expect(none.stderr + none.stdout).toContain('No restore point');
  });
});

describe('retention', () => {
  it('is never shorter than the proposal TTL', () => {
    const taken = '2026-01-01T00:00:00.000Z';
    expect(keptUntil({ takenAt: taken, proposalExpiresAt: null })).toBe('2026-01-31T00:00:00.000Z');
    expect(keptUntil({ takenAt: taken, proposalExpiresAt: '2026-03-01T00:00:00.000Z' })).toBe(
      '2026-03-01T00:00:00.000Z',
    );
    expect(keptUntil({ takenAt: null, proposalExpiresAt: null })).toBeNull();
  });

  it('prunes only points past their time, both kinds', async () => {
    const catalog = restoreCatalog({
      perimeters: () => srv.store.list(),
      upstreamFor: srv.upstreamFor,
      writers: createWorkTreeWriters({ timeoutMs: 30_000 }),
      proposals: srv.proposals,
    });
    const all = await catalog.list();
    if (!all.ok) throw new Error(all.error.message);
    expect(all.value.length).toBeGreaterThan(5);
    const now = await catalog.prune(Date.now());
    expect(now).toEqual({ ok: true, value: [] });
    const later = await catalog.prune(Date.now() + (RESTORE_KEEP_DAYS + 1) * 86_400_000);
    if (!later.ok) throw new Error(later.error.message);
    // Every point with a known time goes; a push point always has one through its proposal.
    expect(later.value.sort()).toEqual(
      all.value
        .filter((r) => r.kept_until !== null)
        .map((r) => r.id)
        .sort(),
    );
    expect(later.value.length).toBeGreaterThan(5);
    const left = await catalog.list();
    expect(left.ok && left.value.every((r) => r.kept_until === null)).toBe(true);
  });
});
