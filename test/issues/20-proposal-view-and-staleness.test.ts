// Issue 20 §8: the operator's view of a proposal. Approving one workspace proposal leaves the others approvable
// unless they touch what it changed (propose_branch and propose_push touch no files); a push with nowhere to go is
// refused when it is proposed; `proposal approve` exits 1 when the proposal ends failed; a patch that applies is
// reported as applied to the working tree, not as a commit that is the old head. Real repository, real server,
// real MCP client, the built CLI (`npm run build` first).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { showProposal } from '../../src/cli/commands/proposal.js';
import { fileDiffs } from '../../src/http/web/filediffs.js';
import { proposalPage } from '../../src/http/web/pages/proposal.js';
import { riskFlags } from '../../src/http/web/risk.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { runBuiltCli } from '../support/built-cli.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let linked: string;
let tree: string;
let lone: string;
let remote: string;
let agent: Agent;

const git = (...args: string[]) => repo.git('-C', tree, ...args);
const head = async () => (await git('rev-parse', 'HEAD')).trim();
const ops = (args: string[]) => runBuiltCli([...args, '--url', srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN } });

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': 'a1\n', 'app/b.ts': 'b1\n', 'app/c.ts': 'c1\n' } }]);
  await repo.git('branch', 'work');
  await repo.git('branch', 'other');
  await repo.git('branch', 'solo');
  await repo.commit({ message: 'other side', branch: 'other', files: { 'app/o.ts': 'other\n' } });
  await repo.git('checkout', '-q', 'main');
  linked = await mkdtemp(join(tmpdir(), 'gb-stale-'));
  tree = join(linked, 'work');
  lone = join(linked, 'solo');
  await repo.git('worktree', 'add', '-q', tree, 'work');
  await repo.git('worktree', 'add', '-q', lone, 'solo');
  // `work` tracks a branch on a local bare remote and is one commit ahead of it.
  remote = join(linked, 'remote.git');
  await repo.git('clone', '-q', '--bare', repo.dir, remote);
  await git('remote', 'add', 'up', remote);
  await git('fetch', '-q', 'up');
  await git('branch', '-q', '--set-upstream-to=up/work', 'work');
  await writeFile(join(tree, 'app/c.ts'), 'c-ahead\n');
  await git('commit', '-q', '-am', 'ahead of up');
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['**'],
    write: ['app/**'],
    branches: ['work', 'other', 'solo'],
  });
  agent = await srv.connect('/mcp/app/work');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (linked) await rm(linked, { recursive: true, force: true });
});

const proposeOk = async (tool: string, args: Record<string, unknown>, as: Agent = agent): Promise<string> => {
  const r = await as.call(tool, { reason: 'r', ...args });
  expect(r.isError, r.text).toBeFalsy();
  return r.structured.proposal_id as string;
};
const approve = async (id: string) => {
  const r = await srv.proposals!.approve(id, 'op');
  if (!r.ok) throw new Error(r.message);
  return r.value;
};

describe('staleness is about what a proposal touches', () => {
  it('approving one proposal leaves the others fresh unless they touch what it changed', async () => {
    await writeFile(join(tree, 'app/a.ts'), 'a2\n');
    await writeFile(join(tree, 'app/b.ts'), 'b2\n');
    const commitA = await proposeOk('propose_commit', { message: 'a', paths: ['app/a.ts'] });
    const discardA = await proposeOk('propose_discard', { paths: ['app/a.ts'] });
    const commitB = await proposeOk('propose_commit', { message: 'b', paths: ['app/b.ts'] });
    const branch = await proposeOk('propose_branch', { name: 'feat', from: 'other' });
    const push = await proposeOk('propose_push', {});

    const first = await approve(commitA);
    expect(first.status).toBe('applied');
    // discard of app/a.ts: what it would throw away was just committed, so it is stale.
    const stale = await approve(discardA);
    expect(stale.status).toBe('failed');
    expect(stale.status === 'failed' ? stale.reason : '').toMatch(/^stale/);
    // The others touch nothing the commit changed.
    for (const id of [commitB, branch, push]) {
      const p = await approve(id);
      expect(p.status, p.status === 'failed' ? p.reason : '').toBe('applied');
    }
    expect(await git('show', 'HEAD:app/b.ts')).toBe('b2\n');
    expect((await repo.git('rev-parse', 'refs/heads/feat')).trim()).toBe(
      (await repo.git('rev-parse', 'refs/heads/other')).trim(),
    );
    expect((await repo.git('--git-dir', remote, 'rev-parse', 'refs/heads/work')).trim()).toBe(await head());
  });

  it('a history operation is stale once the head it starts from moved', async () => {
    const merge = await proposeOk('propose_merge', { from: 'other' });
    await writeFile(join(tree, 'app/b.ts'), 'b3\n');
    const commit = await proposeOk('propose_commit', { message: 'b3', paths: ['app/b.ts'] });
    expect((await approve(commit)).status).toBe('applied');
    const p = await approve(merge);
    expect(p.status).toBe('failed');
  });
});

describe('propose_push', () => {
  it('is refused at once on a branch with no upstream, and nothing is proposed', async () => {
    const solo = await srv.connect('/mcp/app/solo');
    const before = (await srv.proposals!.list({ perimeter: 'app' })).length;
    const r = await solo.call('propose_push', { reason: 'r' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('no upstream');
    expect((await srv.proposals!.list({ perimeter: 'app' })).length).toBe(before);
  });

  it('records the remote, branch and commits it would send', async () => {
    await writeFile(join(tree, 'app/c.ts'), 'c-more\n');
    await git('commit', '-q', '-am', 'more');
    const id = await proposeOk('propose_push', {});
    const p = await srv.proposals!.get(id);
    const ahead = (await git('rev-list', 'up/work..HEAD')).trim().split('\n');
    expect(ahead.length).toBeGreaterThanOrEqual(2);
    expect(ahead[0]).toBe(await head());
    expect(p?.facts.push).toEqual({ remote: 'up', branch: 'work', commits: ahead });
    // The operator sees it before approving: `proposal show` (through /api, with the page's risk flags) and the page.
    const shown = await runBuiltCli(['proposal', 'show', id, '--url', srv.url], {
      env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      `push:        work to up, ${ahead.length} commit(s): ${ahead.map((c) => c.slice(0, 12)).join(' ')}`,
    );
    expect(shown.stdout).toMatch(/^risk: {8}\S/m);
    const page = proposalPage({ proposal: p!, files: [], all: [p!], csrf: 'x', now: Date.now() });
    expect(String(page)).toContain('<th>Push</th>');
    expect(String(page)).toContain('remote <code>up</code>');
    await srv.proposals!.reject(id, 'op', 'not now');
  });
});

describe('reporting', () => {
  it('a patch that applies is applied to the working tree, head unchanged', async () => {
    const before = await head();
    const patch = 'diff --git a/app/a.ts b/app/a.ts\n--- a/app/a.ts\n+++ b/app/a.ts\n@@ -1 +1 @@\n-a2\n+a3\n';
    const id = await proposeOk('propose_patch', { patch });
    const r = await ops(['proposal', 'approve', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`applied ${id} to the working tree (head unchanged)`);
    expect(r.stdout).not.toContain(`commit ${before}`);
    expect(await head()).toBe(before);
  });

  it('proposal approve exits 1 when the proposal ends failed', async () => {
    await writeFile(join(tree, 'app/b.ts'), 'b4\n');
    const id = await proposeOk('propose_commit', { message: 'b4', paths: ['app/b.ts'] });
    await writeFile(join(tree, 'app/b.ts'), 'b5\n'); // the tree moved under the proposal: stale
    const r = await ops(['proposal', 'approve', id]);
    expect(r.stdout).toContain(`failed ${id}: stale`);
    expect(r.code).toBe(1);
  });

  it('a delete of a path that does not exist is a no-op delete, and a decided proposal has no overlap flag', async () => {
    const base = (await repo.git('rev-parse', 'refs/heads/main')).trim();
    const make = async (deletes: string[]) => {
      const r = await srv.proposals!.create({
        perimeter: 'app',
        repo: repo.dir,
        branch: 'main',
        base,
        agent: 'a',
        change: {
          kind: 'push_files',
          message: 'm',
          files: [{ path: 'app/a.ts', content: 'x\n', encoding: 'utf-8' }],
          deletes,
        },
        facts: { paths: ['app/a.ts', ...deletes], protected_paths: [] },
      });
      if (!r.ok) throw new Error(r.message);
      return r.value;
    };
    const one = await make(['app/none.ts']);
    const two = await make([]);
    const diffs = await fileDiffs(one, srv.upstreamFor);
    expect(diffs.find((d) => d.path === 'app/none.ts')?.change).toBe('no-op delete');
    expect(diffs.find((d) => d.path === 'app/a.ts')?.change).toBe('modified');
    const all = await srv.proposals!.list();
    expect(riskFlags(one, all).map((f) => f.label)).toContain('overlaps 1 pending');
    const rejected = await srv.proposals!.reject(two.id, 'op', 'no');
    if (!rejected.ok) throw new Error(rejected.message);
    await srv.proposals!.reject(one.id, 'op', 'no');
    const decided = await srv.proposals!.get(one.id);
    expect(
      riskFlags(decided!, await srv.proposals!.list())
        .map((f) => f.label)
        .some((l) => l.startsWith('overlaps')),
    ).toBe(false);
    // A decided proposal can no longer expire: `proposal show` says when it was made, and no expiry.
    expect(showProposal(all.find((p) => p.id === one.id)!)).toMatch(/expires: /);
    expect(showProposal(decided!)).not.toMatch(/expires/);
  });
});
