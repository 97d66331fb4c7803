// Issue 14, workspace half: an agent on a branch checked out in a linked worktree proposes working-tree writes through
// a real MCP client; nothing touches the tree until a person approves, and the approval re-judges the tree as it is.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let linked: string;
let tree: string;
let agent: Agent;

const git = (...args: string[]) => repo.git('-C', tree, ...args);
const head = async () => (await git('rev-parse', 'HEAD')).trim();

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'app/a.ts': 'a1\n', 'app/b.ts': 'b1\n', 'ops/deploy.sh': 'echo\n' } },
  ]);
  await repo.git('branch', 'work');
  await repo.git('branch', 'other');
  await repo.git('branch', 'stray');
  await repo.git('branch', 'hid');
  await repo.commit({ message: 'hidden change', branch: 'hid', files: { 'app/.env': 'TOKEN=hidden\n' } });
  await repo.commit({ message: 'other side', branch: 'other', files: { 'app/o.ts': 'other\n' } });
  await repo.git('checkout', '-q', 'main');
  linked = await mkdtemp(join(tmpdir(), 'gb-wsp-'));
  tree = join(linked, 'work');
  await repo.git('worktree', 'add', '-q', tree, 'work');
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['**'],
    write: ['app/**'],
    branches: ['work', 'other', 'hid'],
  });
  await srv.perimeter({ id: 'peer', repo: repo.dir, read: ['**'], write: ['app/**'], branches: ['work'] });
  agent = await srv.connect('/mcp/app/work');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (linked) await rm(linked, { recursive: true, force: true });
});

const approve = async (id: string) => {
  const r = await srv.proposals!.approve(id, 'op');
  if (!r.ok) throw new Error(r.message);
  return r.value;
};

describe('workspace proposals', () => {
  it('lists the propose tools on the checked-out binding', async () => {
    const names = (await agent.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['propose_commit', 'propose_patch', 'propose_plan', 'proposal_status']),
    );
  });

  it('commit: proposed, nothing written; approved, the exact files land', async () => {
    await writeFile(join(tree, 'app/a.ts'), 'a2\n');
    await writeFile(join(tree, 'app/b.ts'), 'b-not-listed\n');
    const before = await head();
    const r = await agent.call('propose_commit', { message: 'agent commit', paths: ['app/a.ts'], reason: 'fix a' });
    expect(r.isError).toBeFalsy();
    expect(r.structured.status).toBe('pending');
    expect(await head()).toBe(before);
    const p = await approve(r.structured.proposal_id);
    expect(p.status).toBe('applied');
    expect(await git('show', 'HEAD:app/a.ts')).toBe('a2\n');
    expect(await git('show', 'HEAD:app/b.ts')).toBe('b1\n');
    expect(await git('log', '-1', '--format=%B')).toContain(`Git-Blinder-Proposal: ${r.structured.proposal_id}`);
    expect(p.status === 'applied' && p.restore).toBeTruthy();
    await git('checkout', '--', 'app/b.ts');
  });

  it('a path outside write is refused at once, nothing proposed', async () => {
    await writeFile(join(tree, 'ops/deploy.sh'), 'rm -rf /\n');
    const n = (await srv.proposals!.list()).length;
    const r = await agent.call('propose_commit', { message: 'm', paths: ['ops/deploy.sh'], reason: 'x' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('outside this perimeter');
    const patch =
      'diff --git a/ops/deploy.sh b/ops/deploy.sh\n--- a/ops/deploy.sh\n+++ b/ops/deploy.sh\n@@ -1 +1 @@\n-echo\n+evil\n';
    await git('checkout', '--', 'ops/deploy.sh');
    const p = await agent.call('propose_patch', { patch, reason: 'x' });
    expect(p.isError).toBe(true);
    expect(p.text).toContain('outside this perimeter');
    expect((await srv.proposals!.list()).length).toBe(n);
  });

  it('a credential in the committed file is refused at once', async () => {
    await writeFile(join(tree, 'app/key.ts'), `export const k = "ghp_${'a1B2c3D4e5'.repeat(3)}abcdef";\n`);
    const r = await agent.call('propose_commit', { message: 'm', paths: ['app/key.ts'], reason: 'x' });
    expect(r.isError).toBe(true);
    await rm(join(tree, 'app/key.ts'));
  });

  it('patch: applied on approve; rejected never applied', async () => {
    const patch = 'diff --git a/app/b.ts b/app/b.ts\n--- a/app/b.ts\n+++ b/app/b.ts\n@@ -1 +1 @@\n-b1\n+b2\n';
    const rejected = await agent.call('propose_patch', { patch, reason: 'b2' });
    expect((await srv.proposals!.reject(rejected.structured.proposal_id, 'op', 'no')).ok).toBe(true);
    expect(await readFile(join(tree, 'app/b.ts'), 'utf8')).toBe('b1\n');
    const r = await agent.call('propose_patch', { patch, reason: 'b2', idempotency_key: 'k1' });
    const again = await agent.call('propose_patch', { patch, reason: 'b2', idempotency_key: 'k1' });
    expect(again.structured.proposal_id).toBe(r.structured.proposal_id);
    expect((await approve(r.structured.proposal_id)).status).toBe('applied');
    expect(await readFile(join(tree, 'app/b.ts'), 'utf8')).toBe('b2\n');
    await git('checkout', '--', 'app/b.ts');
  });

  it('a tree that changed after the proposal fails stale, nothing written', async () => {
    await writeFile(join(tree, 'app/a.ts'), 'a3\n');
    const r = await agent.call('propose_commit', { message: 'm', paths: ['app/a.ts'], reason: 'x' });
    await writeFile(join(tree, 'app/a.ts'), 'a3-changed-after-review\n');
    const before = await head();
    const p = await approve(r.structured.proposal_id);
    expect(p.status).toBe('failed');
    expect(p.status === 'failed' && p.reason).toMatch(/^stale/);
    expect(await head()).toBe(before);
    await git('checkout', '--', 'app/a.ts');
  });

  it('merge, branch (allowlisted on approval), discard, reset', async () => {
    const m = await agent.call('propose_merge', { from: 'other', reason: 'sync' });
    expect((await approve(m.structured.proposal_id)).status).toBe('applied');
    expect(await git('show', 'HEAD:app/o.ts')).toBe('other\n');
    const off = await agent.call('propose_merge', { from: 'stray', reason: 'x' });
    expect(off.isError).toBe(true);
    expect(off.text).toContain('not a branch of this perimeter');

    const b = await agent.call('propose_branch', { name: 'feature-x', from: 'work', reason: 'new work' });
    expect((await approve(b.structured.proposal_id)).status).toBe('applied');
    expect((await repo.git('rev-parse', 'feature-x')).trim()).toBe(await head());
    expect(srv.store.get('app')?.branches).toContain('feature-x');

    await writeFile(join(tree, 'app/a.ts'), 'throw me away\n');
    const d = await agent.call('propose_discard', { paths: ['app/a.ts'], reason: 'oops' });
    expect((await approve(d.structured.proposal_id)).status).toBe('applied');
    expect(await readFile(join(tree, 'app/a.ts'), 'utf8')).not.toBe('throw me away\n');

    const target = (await git('rev-parse', 'HEAD~1')).trim();
    const rs = await agent.call('propose_reset', { mode: 'hard', to: target, reason: 'undo merge' });
    expect((await approve(rs.structured.proposal_id)).status).toBe('applied');
    expect(await head()).toBe(target);
  });

  it('a plan stops at the first failure', async () => {
    await writeFile(join(tree, 'app/a.ts'), 'plan\n');
    const before = await head();
    const r = await agent.call('propose_plan', {
      steps: [
        { kind: 'commit', message: 'step one', paths: ['app/a.ts'] },
        { kind: 'commit', message: 'nothing to commit', paths: ['app/b.ts'] },
        { kind: 'branch', name: 'never', from: 'work' },
      ],
      reason: 'two commits',
    });
    expect(r.isError).toBeFalsy();
    const p = await approve(r.structured.proposal_id);
    expect(p.status).toBe('failed');
    expect(p.status === 'failed' && p.reason).toContain('step 2');
    expect((await git('log', '-1', '--format=%s')).trim()).toBe('step one');
    expect((await git('rev-parse', 'HEAD~1')).trim()).toBe(before);
    expect(await repo.git('branch', '--list', 'never')).toBe('');
  });

  it('a hidden file reads like a missing one (commit and patch)', async () => {
    await writeFile(join(tree, 'app/.env'), 'TOKEN=hunter2\n');
    const seen = await agent.call('propose_commit', { message: 'm', paths: ['app/.env'], reason: 'x' });
    const none = await agent.call('propose_commit', { message: 'm', paths: ['app/.nope.env'], reason: 'x' });
    expect(seen.isError).toBe(true);
    expect(seen.text.replace('app/.env', 'P')).toBe(none.text.replace('app/.nope.env', 'P'));
    const patch = (p: string) =>
      `diff --git a/${p} b/${p}\nnew file mode 100644\n--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+x\n`;
    const hp = await agent.call('propose_patch', { patch: patch('app/.env'), reason: 'x' });
    const np = await agent.call('propose_patch', { patch: patch('app/.nope.env'), reason: 'x' });
    expect(hp.isError).toBe(true);
    expect(hp.text.replace('app/.env', 'P')).toBe(np.text.replace('app/.nope.env', 'P'));
    await rm(join(tree, 'app/.env'));
    // Issue 19: what a merge would do to a hidden file is judged at approval, in the operator's view; the agent's
    // answer is the one a branch without the hidden change gets.
    const merge = await agent.call('propose_merge', { from: 'hid', reason: 'x' });
    expect(merge.isError).toBeFalsy();
    expect(merge.text).not.toContain('.env');
    const applied = await approve(merge.structured.proposal_id);
    expect(applied.status).toBe('failed');
    expect(applied.status === 'failed' && applied.reason).toContain("outside this perimeter's window");
  });

  it('another perimeter cannot see the proposal', async () => {
    await writeFile(join(tree, 'app/b.ts'), 'b3\n');
    const r = await agent.call('propose_commit', { message: 'm', paths: ['app/b.ts'], reason: 'x' });
    const peer = await srv.connect('/mcp/peer/work');
    const seen = await peer.call('proposal_status', { proposal_id: r.structured.proposal_id });
    const unknown = await peer.call('proposal_status', { proposal_id: 'p' + 'a'.repeat(24) });
    expect(seen.isError).toBe(true);
    expect(seen.text.replace(r.structured.proposal_id, 'ID')).toBe(unknown.text.replace('p' + 'a'.repeat(24), 'ID'));
  });
});
