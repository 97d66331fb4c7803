// Issue 19, class 2: every revision an agent names in a write obeys the read rule. A full commit id given to
// propose_branch/reset/merge/rebase must be reachable from the bound branch or an allowlisted one and visible (the
// predicate get_commit applies), else the answer is exactly the one a made-up id gets: no existence oracle, and no
// approved propose_branch can put a hidden branch's commit on the allowlist.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { proposalPage } from '../../src/http/web/pages/proposal.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let linked: string;
let agent: Agent;
const ids = { hiddenBranch: '', hiddenOnly: '', otherVisible: '', workVisible: '' };
const MADE_UP = 'c0ffee'.repeat(6) + 'c0ff';

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': 'a1\n', 'secret/s.txt': 's1\n' } }]);
  await repo.git('branch', 'work');
  await repo.git('branch', 'other');
  await repo.git('branch', 'hid');
  ids.hiddenBranch = await repo.commit({ message: 'on a hidden branch', branch: 'hid', files: { 'app/h.ts': 'h\n' } });
  ids.otherVisible = await repo.commit({ message: 'other side', branch: 'other', files: { 'app/o.ts': 'o\n' } });
  ids.workVisible = await repo.commit({ message: 'visible on work', branch: 'work', files: { 'app/w.ts': 'w\n' } });
  ids.hiddenOnly = await repo.commit({ message: 'hidden only', branch: 'work', files: { 'secret/s.txt': 's2\n' } });
  await repo.commit({ message: 'work tip', branch: 'work', files: { 'app/a.ts': 'a2\n' } });
  await repo.git('checkout', '-q', 'main');
  linked = await mkdtemp(join(tmpdir(), 'gb-19rev-'));
  await repo.git('worktree', 'add', '-q', join(linked, 'work'), 'work');
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: ['app/**'], branches: ['work', 'other'] });
  agent = await srv.connect('/mcp/app/work');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (linked) await rm(linked, { recursive: true, force: true });
});

type Call = (rev: string) => Record<string, unknown>;
const TOOLS: [string, Call][] = [
  ['propose_branch', (rev) => ({ name: 'nb', from: rev, reason: 'r' })],
  ['propose_reset', (rev) => ({ mode: 'soft', to: rev, reason: 'r' })],
  ['propose_merge', (rev) => ({ from: rev, reason: 'r' })],
  ['propose_rebase', (rev) => ({ onto: rev, reason: 'r' })],
];
const answer = async (tool: string, args: Record<string, unknown>, rev: string) => {
  const r = await agent.call(tool, args);
  return JSON.stringify({
    isError: r.isError ?? false,
    text: r.text.split(rev).join('REV'),
    structured: r.structured ?? null,
  });
};

describe('issue 19: revisions named in a write obey the read rule', () => {
  it('get_commit hides the commits used below (the predicate the writes must share)', async () => {
    for (const sha of [ids.hiddenBranch, ids.hiddenOnly])
      expect((await agent.call('get_commit', { sha })).isError).toBe(true);
    expect((await agent.call('get_commit', { sha: ids.workVisible })).isError).toBeFalsy();
  });

  for (const [tool, args] of TOOLS) {
    it(`${tool}: a hidden branch's commit and a hidden-only commit read exactly like a made-up id`, async () => {
      const n = (await srv.proposals!.list()).length;
      const none = await answer(tool, args(MADE_UP), MADE_UP);
      expect(JSON.parse(none).isError).toBe(true);
      expect(await answer(tool, args(ids.hiddenBranch), ids.hiddenBranch)).toBe(none);
      expect(await answer(tool, args(ids.hiddenOnly), ids.hiddenOnly)).toBe(none);
      expect((await srv.proposals!.list()).length).toBe(n);
    });
  }

  it('a visible commit reached only through another allowlisted branch is accepted, and the page says where it comes from', async () => {
    const r = await agent.call('propose_branch', { name: 'from-other', from: ids.otherVisible, reason: 'r' });
    expect(r.isError).toBeFalsy();
    const p = await srv.proposals!.get(r.structured.proposal_id);
    expect(p?.facts.branch_sources).toEqual([{ branch: 'from-other', from: ids.otherVisible, reached_by: 'other' }]);
    const page = proposalPage({ proposal: p!, files: [], all: [p!], csrf: 'x', now: Date.now() }).toString();
    expect(page).toContain('from-other');
    expect(page).toMatch(/allowlist/i);
    expect(page).toContain('reached from allowlisted branch <code>other</code>');
  });

  it('approval re-judges the revision on the perimeter as it is then', async () => {
    const r = await agent.call('propose_branch', { name: 'late', from: ids.otherVisible, reason: 'r' });
    expect(r.isError).toBeFalsy();
    const before = srv.store.get('app')!;
    await srv.store.put({ ...before, branches: ['work'] });
    const done = await srv.proposals!.approve(r.structured.proposal_id, 'op');
    expect(done.ok && done.value.status).toBe('failed');
    expect(await repo.git('branch', '--list', 'late')).toBe('');
    await srv.store.put(before);
  });

  it('a visible commit of the bound branch still works (reset to it is proposed)', async () => {
    const r = await agent.call('propose_reset', { mode: 'soft', to: ids.workVisible, reason: 'r' });
    expect(r.isError).toBeFalsy();
    expect(r.structured.status).toBe('pending');
  });
});
