// Issue 22, local perimeters: git on disk keeps no pull requests, so create_pull_request holds a merge proposal of the
// bound branch into the base (numbered like a PR), applied only when a person approves it through /api. The PR tools
// read those proposals through the same cut as GitHub's: state open → merged on approve, closed on reject; hidden
// files never shown; comments and CI answer empty; the refusals are GitHub's. Real bare repos, the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../support/gitdir.js';
import { serveBoth, type Served } from '../support/both-upstreams.js';

const READ = ['infra/**', 'docs/**'];
const show = (s: Served, ref: string, path: string) => gitIn(s.bare, ['show', `refs/heads/${ref}:${path}`]);

describe('local upstream', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(
      'local',
      [
        { message: 'init', files: { 'infra/main.tf': 'm\n', 'secret/key.txt': 'k\n', 'docs/readme.md': 'r\n' } },
        // Each feature branch starts from main (a new branch starts at the current HEAD).
        { message: 'hidden only', branch: 'feat-hidden', files: { 'secret/only.txt': 'o\n' } },
        { message: 'docs 1', branch: 'main', files: { 'docs/readme.md': 'r1\n' } },
        { message: 'aws', branch: 'feat-aws', files: { 'infra/aws.tf': 'aws\n' } },
        { message: 'docs 2', branch: 'main', files: { 'docs/readme.md': 'r2\n' } },
        { message: 'mixed', branch: 'feat-mixed', files: { 'infra/mixed.tf': 'one\ntwo\n' } },
        { message: 'docs 3', branch: 'main', files: { 'docs/readme.md': 'r3\n' } },
        { message: 'bad', branch: 'feat-bad', files: { 'secret/leak.txt': 'l\n' } },
        { message: 'docs 4', branch: 'main', files: { 'docs/readme.md': 'r4\n' } },
        { message: 'other', branch: 'feat-other', files: { 'infra/other.tf': 'o\n' } },
      ],
      { server: { proposals: { ttlMs: 60_000 } } },
    );
    // feat-mixed also carries a write-only file (writable, never readable): merged, never shown or counted.
    await s.srv.perimeter({
      id: 'infra',
      repo: s.repo,
      read: READ,
      write: ['infra/**', 'ops/**'],
      branches: ['feat-aws', 'feat-mixed', 'feat-hidden', 'feat-bad'],
      pulls: { base: 'main', max_open: 2 },
    });
    await s.srv.perimeter({
      id: 'other',
      repo: s.repo,
      read: READ,
      write: ['infra/**'],
      branches: ['feat-other'],
      pulls: { base: 'main' },
    });
  }, 60_000);
  afterAll(async () => s?.close());

  it('opens a PR as a pending proposal, numbered, and a second call answers the same PR', async () => {
    const a = await s.srv.connect('/mcp/infra/feat-aws');
    const before = await s.head('main');
    const made = await a.call('create_pull_request', { title: 'AWS', body: 'Adds aws.' });
    expect(made.isError, made.text).toBeFalsy();
    expect(made.structured).toMatchObject({
      number: 1,
      state: 'open',
      base: 'main',
      head: 'feat-aws',
      draft: true,
      existing: false,
      changed_files: 1,
      additions: 1,
      deletions: 0,
      omitted_count: 0,
    });
    expect(made.text).toMatch(/<untrusted-([0-9a-f]{16})>\nAWS\n\nAdds aws\.\n<\/untrusted-\1>\n/);
    expect(await s.head('main')).toBe(before);
    const again = await a.call('create_pull_request', { title: 'AWS again', body: '' });
    expect(again.isError, again.text).toBeFalsy();
    expect(again.structured).toMatchObject({ number: 1, existing: true, title: 'AWS' });
    const pending = await s.srv.api('GET', '/api/proposals');
    const mine = pending.json.proposals.filter((p: { perimeter: string }) => p.perimeter === 'infra');
    expect(mine).toHaveLength(1);
    const got = await a.call('get_pull_request', {});
    expect(got.structured).toMatchObject({ number: 1, state: 'open', review_decision: 'review_required' });
    const files = await a.call('get_pull_request_files', { number: 1, path: 'infra/aws.tf' });
    expect(files.structured.files[0]).toMatchObject({ path: 'infra/aws.tf', status: 'added' });
    expect(files.structured.files[0].patch).toContain('+aws');
    const comments = await a.call('list_pull_request_comments', { number: 1 });
    expect(comments.isError, comments.text).toBeFalsy();
    const status = await a.call('get_pull_request_status', { number: 1 });
    expect(status.isError, status.text).toBeFalsy();
  });

  it('approve through /api merges into the base: merged, with the trailer', async () => {
    const a = await s.srv.connect('/mcp/infra/feat-aws');
    const list = await s.srv.api('GET', '/api/proposals');
    const p = list.json.proposals.find((x: { perimeter: string; status: string }) => x.perimeter === 'infra');
    const shown = await s.srv.api('GET', `/api/proposals/${p.id}`);
    expect(shown.json.proposal.change).toMatchObject({ kind: 'pull_request', number: 1, into: 'main' });
    const ok = await s.srv.api('POST', `/api/proposals/${p.id}/approve`, { hash: shown.json.proposal.hash });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.proposal.status).toBe('applied');
    expect((await show(s, 'main', 'infra/aws.tf')).toString()).toBe('aws\n');
    const msg = (await gitIn(s.bare, ['log', '-1', '--format=%B', 'refs/heads/main'])).toString();
    expect(msg).toContain('AWS (#1)');
    expect(msg).toContain(`Git-Blinder-Proposal: ${p.id}`);
    const got = await a.call('get_pull_request', { number: 1 });
    expect(got.structured).toMatchObject({ number: 1, state: 'merged', changed_files: 1 });
    expect(got.structured.merged_at).not.toBeNull();
    const open = await a.call('list_pull_requests', {});
    expect(open.structured.pulls).toEqual([]);
    const closed = await a.call('list_pull_requests', { state: 'closed' });
    expect(closed.structured.pulls.map((x: { number: number }) => x.number)).toEqual([1]);
  });

  it('reject closes the PR; hidden files are never shown or counted', async () => {
    // A write-only file beside the readable one: judged writable, so the PR opens; never named to the agent.
    await s.git.commit({ message: 'ops', branch: 'feat-mixed', files: { 'ops/run.sh': 'x\n' } });
    const a = await s.srv.connect('/mcp/infra/feat-mixed');
    const made = await a.call('create_pull_request', { title: 'mixed', body: '' });
    expect(made.isError, made.text).toBeFalsy();
    expect(made.structured).toMatchObject({ number: 2, changed_files: 1, additions: 2, omitted_count: 0 });
    const files = await a.call('get_pull_request_files', { number: 2 });
    expect(files.structured.files.map((f: { path: string }) => f.path)).toEqual(['infra/mixed.tf']);
    expect(files.text).not.toContain('ops/');
    const hiddenPath = await a.call('get_pull_request_files', { number: 2, path: 'ops/run.sh' });
    const missing = await a.call('get_pull_request_files', { number: 2, path: 'infra/none.tf' });
    expect(hiddenPath.text.replace('ops/run.sh', 'X')).toBe(missing.text.replace('infra/none.tf', 'X'));
    const list = await s.srv.api('GET', '/api/proposals');
    const p = list.json.proposals.find((x: { status: string; perimeter: string }) => x.status === 'pending');
    const no = await s.srv.api('POST', `/api/proposals/${p.id}/reject`, { reason: 'not now' });
    expect(no.status, JSON.stringify(no.json)).toBe(200);
    const got = await a.call('get_pull_request', { number: 2 });
    expect(got.structured).toMatchObject({ number: 2, state: 'closed', merged_at: null });
    expect((await gitIn(s.bare, ['ls-tree', '--name-only', 'refs/heads/main', 'infra/'])).toString()).not.toContain(
      'mixed',
    );
  });

  it('refuses before proposing: net change outside write, a secret in the body', async () => {
    const count = async () => (await s.srv.api('GET', '/api/proposals')).json.proposals.length;
    const n = await count();
    const bad = await s.srv.connect('/mcp/infra/feat-bad');
    const r = await bad.call('create_pull_request', { title: 'bad', body: '' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("outside this perimeter's write scope");
    expect(r.text).not.toContain('secret');
    const clean = await s.srv.connect('/mcp/infra/feat-mixed');
    const body = ['token: ghp', '_', 'R8x2Kq9LmZ3vT7pW1yN5bC4dF6gH0jQ2sE8u'].join('');
    const secret = await clean.call('create_pull_request', { title: 'x', body });
    expect(secret.isError).toBe(true);
    expect(secret.text).toContain('Possible secrets');
    expect(await count()).toBe(n);
  });

  it("another branch's PR, a hidden-only branch and a made-up number read alike", async () => {
    const o = await s.srv.connect('/mcp/other/feat-other');
    const theirs = await o.call('create_pull_request', { title: 'other', body: '' });
    expect(theirs.structured).toMatchObject({ number: 3 });
    const a = await s.srv.connect('/mcp/infra/feat-aws');
    const foreign = await a.call('get_pull_request', { number: 3 });
    const madeUp = await a.call('get_pull_request', { number: 99 });
    expect(foreign.text.replace('#3', '#N')).toBe(madeUp.text.replace('#99', '#N'));
    const hidden = await s.srv.connect('/mcp/infra/feat-hidden');
    const h = await hidden.call('create_pull_request', { title: 'h', body: '' });
    expect(h.isError).toBe(true);
  });

  it('a branch whose PR was closed opens a new one, numbered next', async () => {
    await s.git.commit({ message: 'more', branch: 'feat-mixed', files: { 'infra/mixed2.tf': 'z\n' } });
    const m = await s.srv.connect('/mcp/infra/feat-mixed');
    const one = await m.call('create_pull_request', { title: 'again', body: '' });
    expect(one.isError, one.text).toBeFalsy();
    expect(one.structured).toMatchObject({ number: 4, state: 'open' });
  });

  it('refuses a branch that conflicts with the base, and past max_open, proposing nothing', async () => {
    const count = async () => (await s.srv.api('GET', '/api/proposals')).json.proposals.length;
    // main now has infra/aws.tf (PR #1 merged); a branch from before that which adds it differently conflicts.
    await s.git.commit({
      message: 'clash',
      branch: 'feat-bad',
      files: { 'secret/leak.txt': null, 'infra/aws.tf': 'x\n' },
    });
    const n = await count();
    const bad = await s.srv.connect('/mcp/infra/feat-bad');
    const r = await bad.call('create_pull_request', { title: 'clash', body: '' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('conflicts with main');
    expect(await count()).toBe(n);
    // A hidden file added and removed again is no net change: feat-hidden opens #5 (with #4, max_open 2 is reached).
    await s.git.commit({
      message: 'visible',
      branch: 'feat-hidden',
      files: { 'secret/only.txt': null, 'infra/h.tf': 'h\n' },
    });
    const h = await s.srv.connect('/mcp/infra/feat-hidden');
    const opened = await h.call('create_pull_request', { title: 'h', body: '' });
    expect(opened.isError, opened.text).toBeFalsy();
    expect(opened.structured).toMatchObject({ number: 5, changed_files: 1 });
    // More work on the merged branch: infra/aws.tf holds the same bytes on main, so no conflict — but max_open.
    await s.git.commit({ message: 'more aws', branch: 'feat-aws', files: { 'infra/aws2.tf': 'a2\n' } });
    const a = await s.srv.connect('/mcp/infra/feat-aws');
    const third = await a.call('create_pull_request', { title: 'more', body: '' });
    expect(third.isError).toBe(true);
    expect(third.text).toContain('already has 2 open pull requests (at most 2)');
    expect(await count()).toBe(n + 1);
  });

  it('more work on a merged branch opens again: the path main holds with the same bytes is no conflict', async () => {
    const list = await s.srv.api('GET', '/api/proposals');
    const pending = list.json.proposals.filter((x: { status: string; perimeter: string }) => x.status === 'pending');
    for (const p of pending) await s.srv.api('POST', `/api/proposals/${p.id}/reject`, { reason: 'make room' });
    const a = await s.srv.connect('/mcp/infra/feat-aws');
    const again = await a.call('create_pull_request', { title: 'more', body: '' });
    expect(again.isError, again.text).toBeFalsy();
    expect(again.structured).toMatchObject({ number: 6, state: 'open', existing: false });
  });
});
