// Issue 20 §2: one proposal path, and the commit budget charged at one moment. A direct push spends
// `commits_per_hour` when it lands (the call); a proposal of any kind spends nothing while it waits and is charged when
// an approval applies it, by the instance that applies. Every proposal creation is audited the same way (`proposed`).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, RateLimiter } from '../../src/mcp/index.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { serveBoth, UPSTREAM_KINDS, type Served } from '../support/both-upstreams.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe.each(UPSTREAM_KINDS)('%s upstream: push_files', (kind) => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: { 'docs/a.md': 'a\n' } }], {
      limits: true,
      server: { proposals: {} },
    });
    await s.srv.perimeter({
      id: 'direct',
      repo: s.repo,
      read: ['docs/**'],
      write: ['docs/**'],
      limits: { commits_per_hour: 1 },
    });
    await s.srv.perimeter({
      id: 'gated',
      repo: s.repo,
      read: ['docs/**'],
      write: ['docs/**'],
      approval: { push_files: 'required' },
      limits: { commits_per_hour: 1 },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('a direct push spends the budget when it lands; the second in the hour is refused', async () => {
    const agent = await s.srv.connect('/mcp/direct');
    const first = await agent.call('push_files', { message: 'one', files: [{ path: 'docs/d1.md', content: '1\n' }] });
    expect(first.isError, first.text).toBeUndefined();
    const before = await s.head();
    const second = await agent.call('push_files', { message: 'two', files: [{ path: 'docs/d2.md', content: '2\n' }] });
    expect(second.isError).toBe(true);
    expect(second.text).toContain('Write budget spent: this perimeter allows 1 commits per hour');
    expect(await s.head()).toBe(before);
  });

  it('three approved pushes with commits_per_hour 1: proposing is free, the first applied lands, the others fail', async () => {
    const agent = await s.srv.connect('/mcp/gated');
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const r = await agent.call('push_files', {
        message: `p${n}`,
        files: [{ path: `docs/p${n}.md`, content: `${n}\n` }],
      });
      expect(r.isError, r.text).toBeUndefined();
      ids.push(r.structured.proposal_id as string);
    }
    const ended: string[] = [];
    for (const id of ids) {
      const r = await s.srv.api('POST', `/api/proposals/${id}/approve`, {});
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      ended.push(r.json.proposal.status as string);
      if (r.json.proposal.status === 'failed') expect(r.json.proposal.reason).toContain('Write budget spent');
    }
    expect(ended).toEqual(['applied', 'failed', 'failed']);
    expect(await s.files()).toContain('docs/p1.md');
    expect(await s.files()).not.toContain('docs/p2.md');
  });

  it('the audit names every proposal creation `proposed`', () => {
    const made = s.srv.records.filter(
      (r) =>
        r.perimeter === 'gated' &&
        r.tool === 'push_files' &&
        r.client !== undefined &&
        !r.client.startsWith('approved '),
    );
    expect(made.length).toBe(3);
    expect(made.map((r) => r.result)).toEqual(['proposed', 'proposed', 'proposed']);
  });
});

describe('workspace proposals (local working tree)', () => {
  let repo: GitDir;
  let srv: TestServer;
  let linked: string;
  let tree: string;
  const git = (...args: string[]) => repo.git('-C', tree, ...args);
  const head = async () => (await git('rev-parse', 'HEAD')).trim();

  beforeAll(async () => {
    repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': 'a1\n', 'app/b.ts': 'b1\n' } }]);
    await repo.git('branch', 'work');
    await repo.git('branch', 'other');
    await repo.commit({ message: 'other side', branch: 'other', files: { 'app/o.ts': 'other\n' } });
    await repo.git('checkout', '-q', 'main');
    linked = await mkdtemp(join(tmpdir(), 'gb-budget-'));
    tree = join(linked, 'work');
    await repo.git('worktree', 'add', '-q', tree, 'work');
    srv = await startTestServer({
      workspace: createLocalWorkspace(),
      proposals: {},
      limiter: new RateLimiter(),
      policy: { privatePatterns: [], defaultLimits: DEFAULT_LIMITS },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
    if (linked) await rm(linked, { recursive: true, force: true });
  });

  // Each kind that records a commit, on a perimeter whose budget is zero: proposing is accepted (nothing is spent
  // while it waits), the approval fails on the budget and the branch does not move.
  const committing: [string, string, Record<string, unknown>][] = [
    ['commit', 'propose_commit', { message: 'c', paths: ['app/a.ts'], reason: 'r' }],
    ['merge', 'propose_merge', { from: 'other', reason: 'r' }],
    ['rebase', 'propose_rebase', { onto: 'other', reason: 'r' }],
    ['plan', 'propose_plan', { steps: [{ kind: 'commit', message: 'c', paths: ['app/a.ts'] }], reason: 'r' }],
  ];
  it.each(committing)('%s: charged at apply, refused when the hour is spent', async (name, tool, args) => {
    await writeFile(join(tree, 'app/a.ts'), `a-${name}\n`);
    const id = `ws-${name}`;
    await srv.perimeter({
      id,
      repo: repo.dir,
      read: ['**'],
      write: ['app/**'],
      branches: ['work', 'other'],
      limits: { commits_per_hour: 0 },
    });
    const agent = await srv.connect(`/mcp/${id}/work`);
    const r = await agent.call(tool, args);
    expect(r.isError, r.text).toBeFalsy();
    expect(r.structured.status).toBe('pending');
    const before = await head();
    const out = await srv.proposals!.approve(r.structured.proposal_id as string, 'op');
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.value.status).toBe('failed');
    expect(out.value.status === 'failed' ? out.value.reason : '').toContain(
      'Write budget spent: this perimeter allows 0 commits per hour',
    );
    expect(await head()).toBe(before);
  });

  it('a kind that records no commit (patch) is not charged', async () => {
    await git('checkout', '--', 'app/a.ts');
    await srv.perimeter({
      id: 'ws-patch',
      repo: repo.dir,
      read: ['**'],
      write: ['app/**'],
      branches: ['work'],
      limits: { commits_per_hour: 0 },
    });
    const agent = await srv.connect('/mcp/ws-patch/work');
    const patch = 'diff --git a/app/b.ts b/app/b.ts\n--- a/app/b.ts\n+++ b/app/b.ts\n@@ -1 +1 @@\n-b1\n+b2\n';
    const r = await agent.call('propose_patch', { patch, reason: 'r' });
    expect(r.isError, r.text).toBeFalsy();
    const out = await srv.proposals!.approve(r.structured.proposal_id as string, 'op');
    expect(out.ok && out.value.status).toBe('applied');
  });

  it('with commits_per_hour 1 the first approved commit lands and the next is refused at apply', async () => {
    await srv.perimeter({
      id: 'ws-one',
      repo: repo.dir,
      read: ['**'],
      write: ['app/**'],
      branches: ['work', 'other'],
      limits: { commits_per_hour: 1 },
    });
    const agent = await srv.connect('/mcp/ws-one/work');
    await writeFile(join(tree, 'app/a.ts'), 'a-one\n');
    const first = await agent.call('propose_commit', { message: 'one', paths: ['app/a.ts'], reason: 'r' });
    expect((await srv.proposals!.approve(first.structured.proposal_id as string, 'op')).ok).toBe(true);
    expect(await git('show', 'HEAD:app/a.ts')).toBe('a-one\n');
    await writeFile(join(tree, 'app/a.ts'), 'a-two\n');
    const second = await agent.call('propose_commit', { message: 'two', paths: ['app/a.ts'], reason: 'r' });
    const out = await srv.proposals!.approve(second.structured.proposal_id as string, 'op');
    expect(out.ok && out.value.status).toBe('failed');
    expect(await git('show', 'HEAD:app/a.ts')).toBe('a-one\n');
  });

  it('the audit names every workspace proposal creation `proposed`, like push_files', () => {
    const made = srv.records.filter((r) => r.tool.startsWith('propose_'));
    expect(made.length).toBeGreaterThanOrEqual(6);
    expect([...new Set(made.map((r) => r.result))]).toEqual(['proposed']);
  });
});
