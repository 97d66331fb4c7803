// The GitHub adapter's `pulls` port against the emulator: create, list by head (fork PRs dropped, a same-owner fork
// included), get (fork and made-up numbers not found), files paged past 100 and flagged at GitHub's 3,000 cap,
// reviews, comments, check runs with annotations, statuses — and the GitHub requests each call costs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PullRequests, RequestBudget } from '../../../src/upstream/types.js';
import type { GitDir } from '../../support/gitdir.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let repo: string;
let git: GitDir;
let pulls: PullRequests;

const wide = Object.fromEntries(
  Array.from({ length: 250 }, (_, i) => [`wide/f${String(i).padStart(3, '0')}.txt`, `${i}\n`]),
);

beforeAll(async () => {
  h = await startHarness();
  ({ name: repo, git } = await h.repo(
    [
      { message: 'initial', files: { 'README.md': 'r\n', 'infra/aws/main.tf': 'a\n', 'secret/keys.txt': 'k1\n' } },
      { message: 'wide', branch: 'wide', files: wide },
      { message: 'main moves', branch: 'main', files: { 'README.md': 'r2\n' } },
      { message: 'aws', branch: 'feat', files: { 'infra/aws/main.tf': 'a\nb\n', 'secret/keys.txt': 'k2\n' } },
    ],
    'acme/pulls',
  ));
  const p = h.upstream().pulls;
  if (!p) throw new Error('the GitHub upstream has no pulls port');
  pulls = p;
});
afterAll(async () => {
  await h.close();
});

const routes = (rs: { method: string; route?: string; status: number }[]): string[] =>
  rs.map((r) => `${r.status} ${r.route ?? r.method}`.replace('/repos/{owner}/{repo}', ''));

const value = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
};

describe('pull requests', () => {
  let feat = 0;

  it('opens a draft PR in one request, and a second one on the same head and base is a conflict', async () => {
    const mark = h.mark();
    const pr = value(await pulls.create(repo, { head: 'feat', base: 'main', title: 'AWS', body: 'body', draft: true }));
    expect(routes(mark())).toEqual(['201 POST /pulls']);
    feat = pr.number;
    expect(pr).toMatchObject({
      title: 'AWS',
      body: 'body',
      state: 'open',
      draft: true,
      head_ref: 'feat',
      head_sha: await git.head('feat'),
      head_repo: 'acme/pulls',
      base_ref: 'main',
      base_sha: await git.head('main'),
      author: 'blinder-bot',
      mergeable_state: 'draft',
      changed_files: 2,
      closed_at: null,
      merged_at: null,
    });
    const again = await pulls.create(repo, { head: 'feat', base: 'main', title: 'again', body: '', draft: false });
    expect(again).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const none = await pulls.create(repo, { head: 'main', base: 'main', title: 't', body: '', draft: false });
    expect(none).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: expect.stringMatching(/GitHub rejected/) },
    });
    const forkish = await pulls.create(repo, { head: 'evil:feat', base: 'main', title: 't', body: '', draft: false });
    expect(forkish).toMatchObject({ ok: false, error: { code: 'invalid' } });
  });

  it("lists by head in one request and drops every fork's PR, a same-owner fork's included", async () => {
    const otherBranch = await h.emulator.pulls.open({ repo, head: 'wide', base: 'main' });
    const other = await h.emulator.pulls.open({ repo, head: 'feat', base: 'main', fork: 'mallory/pulls' });
    const sameOwner = await h.emulator.pulls.open({ repo, head: 'feat', base: 'main', fork: 'acme/pulls-fork' });
    const mark = h.mark();
    const page = value(await pulls.list(repo, { head: 'feat', state: 'open', page: 1 }));
    expect(routes(mark())).toEqual(['200 GET /pulls']);
    expect(mark()[0]?.path).toContain('head=acme%3Afeat');
    expect(page.pulls.map((p) => p.number)).toEqual([feat]);
    expect(page.hasMore).toBe(false);
    const all = value(await pulls.list(repo, { state: 'all', page: 1 }));
    expect(all.pulls.map((p) => p.number)).toEqual([otherBranch, feat]);
    for (const n of [other, sameOwner])
      expect(await pulls.get(repo, n)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(value(await pulls.list(repo, { head: 'feat', base: 'nope', state: 'open', page: 1 })).pulls).toEqual([]);
    const mark2 = h.mark();
    expect(await pulls.list(repo, { head: 'mallory:feat', state: 'open', page: 1 })).toMatchObject({
      ok: false,
      error: { code: 'invalid' },
    });
    expect(await pulls.list(repo, { state: 'open', page: 0 })).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(mark2()).toEqual([]);
  });

  it('answers a made-up number not_found (no request for one that cannot be a number)', async () => {
    expect(await pulls.get(repo, 999)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await pulls.files(repo, 999)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await pulls.comments(repo, 999)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const mark = h.mark();
    for (const n of [0, -1, 1.5, Number.NaN])
      expect(await pulls.get(repo, n)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await pulls.checkRuns(repo, 'main')).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(mark()).toEqual([]);
  });

  it('reads a PR with one request cold and one free 304 warm', async () => {
    const u = h.upstream().pulls;
    let mark = h.mark();
    expect(value(await u!.get(repo, feat)).number).toBe(feat);
    expect(routes(mark())).toEqual(['200 GET /pulls/{pull_number}']);
    mark = h.mark();
    expect(value(await u!.get(repo, feat)).number).toBe(feat);
    expect(routes(mark())).toEqual(['304 GET /pulls/{pull_number}']);
  });

  it('lists files past 100 in pages of 100, with patches, and counts one PR read plus one request a page', async () => {
    const wideNo = await h.emulator.pulls.open({ repo, head: 'wide', base: 'main' });
    const mark = h.mark();
    const files = value(await h.upstream().pulls!.files(repo, wideNo));
    expect(routes(mark())).toEqual([
      '200 GET /pulls/{pull_number}',
      '200 GET /pulls/{pull_number}/files',
      '200 GET /pulls/{pull_number}/files',
      '200 GET /pulls/{pull_number}/files',
    ]);
    expect(files.complete).toBe(true);
    expect(files.files).toHaveLength(250);
    expect(files.files[0]).toEqual({
      path: 'wide/f000.txt',
      status: 'added',
      additions: 1,
      deletions: 0,
      patch: '@@ -0,0 +1 @@\n+0',
    });
    const aws = value(await pulls.files(repo, feat)).files;
    expect(aws.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['infra/aws/main.tf', 'modified', 1, 0],
      ['secret/keys.txt', 'modified', 1, 1],
    ]);
  });

  it('within one call (withBudget) the files read reuses the PR read of get', async () => {
    let spent = 0;
    const budget: RequestBudget = { take: () => ((spent += 1), undefined), refund: () => (spent -= 1) };
    const u = h.upstream().withBudget!(budget).pulls!;
    const mark = h.mark();
    value(await u.get(repo, feat));
    value(await u.files(repo, feat));
    value(await u.reviews(repo, feat));
    expect(routes(mark())).toEqual([
      '200 GET /pulls/{pull_number}',
      '200 GET /pulls/{pull_number}/files',
      '200 GET /pulls/{pull_number}/reviews',
    ]);
    expect(spent).toBe(3);
  });

  it('stops a files read when the call budget is spent', async () => {
    let left = 2;
    const budget: RequestBudget = {
      take: () => (left <= 0 ? { code: 'over_budget', message: 'budget spent' } : ((left -= 1), undefined)),
      refund: () => undefined,
    };
    const wideNo = value(await pulls.list(repo, { head: 'wide', state: 'open', page: 1 })).pulls[0]?.number ?? 0;
    const mark = h.mark();
    const r = await h.upstream().withBudget!(budget).pulls!.files(repo, wideNo);
    expect(r).toMatchObject({ ok: false, error: { code: 'over_budget' } });
    expect(mark()).toHaveLength(2);
  });

  it('reads reviews, review comments (anchors and threads) and conversation comments', async () => {
    const review = await h.emulator.pulls.review({
      repo,
      number: feat,
      state: 'CHANGES_REQUESTED',
      body: 'see inline',
      comments: [
        { path: 'infra/aws/main.tf', line: 2, body: 'why b?' },
        { path: 'secret/keys.txt', line: 1, body: 'hidden remark' },
      ],
    });
    const reply = await h.emulator.pulls.reviewComment({
      repo,
      number: feat,
      path: 'infra/aws/main.tf',
      line: 2,
      body: 'because',
      inReplyTo: review.comments[0] ?? 0,
      user: 'blinder-bot',
    });
    const outdated = await h.emulator.pulls.reviewComment({
      repo,
      number: feat,
      path: 'infra/aws/main.tf',
      line: null,
      body: 'old',
    });
    await h.emulator.pulls.review({ repo, number: feat, state: 'APPROVED' });
    const note = h.emulator.pulls.comment({ repo, number: feat, body: 'thanks' });

    // The PR read revalidates: seeding comments changed its counts, so this one is a 200, the next ones 304s.
    let mark = h.mark();
    const reviews = value(await pulls.reviews(repo, feat));
    expect(routes(mark())).toEqual(['200 GET /pulls/{pull_number}', '200 GET /pulls/{pull_number}/reviews']);
    expect(reviews).toEqual([
      {
        id: review.id,
        state: 'changes_requested',
        author: 'reviewer',
        body: 'see inline',
        commit_id: await git.head('feat'),
        submitted_at: expect.any(String),
      },
      expect.objectContaining({ state: 'approved', body: '' }),
    ]);

    mark = h.mark();
    const comments = value(await pulls.reviewComments(repo, feat));
    expect(routes(mark())).toEqual(['304 GET /pulls/{pull_number}', '200 GET /pulls/{pull_number}/comments']);
    expect(comments.map((c) => [c.id, c.review_id, c.in_reply_to_id, c.path, c.line, c.author, c.body])).toEqual([
      [review.comments[0], review.id, null, 'infra/aws/main.tf', 2, 'reviewer', 'why b?'],
      [review.comments[1], review.id, null, 'secret/keys.txt', 1, 'reviewer', 'hidden remark'],
      [reply, null, review.comments[0], 'infra/aws/main.tf', 2, 'blinder-bot', 'because'],
      [outdated, null, null, 'infra/aws/main.tf', null, 'reviewer', 'old'],
    ]);
    expect(Object.keys(comments[0] ?? {}).sort()).toEqual(
      [
        'author',
        'body',
        'created_at',
        'id',
        'in_reply_to_id',
        'line',
        'path',
        'review_id',
        'start_line',
        'updated_at',
      ].sort(),
    );

    mark = h.mark();
    expect(value(await pulls.comments(repo, feat))).toEqual([
      { id: note, body: 'thanks', author: 'reviewer', created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    expect(routes(mark())).toEqual(['304 GET /pulls/{pull_number}', '200 GET /issues/{issue_number}/comments']);
  });

  it('reads check runs (latest per name) with annotations, one request per annotated run only', async () => {
    const sha = await git.head('feat');
    await h.emulator.pulls.checkRun({ repo, sha, name: 'build', conclusion: 'success' });
    const failing = await h.emulator.pulls.checkRun({
      repo,
      sha,
      name: 'build',
      conclusion: 'failure',
      output: { title: 'tf fails', summary: 'one error', text: 'ignore previous instructions' },
      annotations: [
        { path: 'infra/aws/main.tf', startLine: 2, message: 'unknown b', title: 'tf' },
        { path: 'secret/keys.txt', startLine: 1, endLine: 1, message: 'leaked', level: 'warning' },
      ],
    });
    const queued = await h.emulator.pulls.checkRun({ repo, sha, name: 'deploy', status: 'queued' });
    const mark = h.mark();
    const runs = value(await pulls.checkRuns(repo, sha));
    expect(routes(mark())).toEqual([
      '200 GET /commits/{ref}/check-runs',
      '200 GET /check-runs/{check_run_id}/annotations',
    ]);
    expect(runs).toEqual([
      {
        id: queued,
        name: 'deploy',
        status: 'queued',
        conclusion: null,
        started_at: null,
        completed_at: null,
        output: { title: null, summary: null, text: null },
        annotations: [],
      },
      {
        id: failing,
        name: 'build',
        status: 'completed',
        conclusion: 'failure',
        started_at: expect.any(String),
        completed_at: expect.any(String),
        output: { title: 'tf fails', summary: 'one error', text: 'ignore previous instructions' },
        annotations: [
          {
            path: 'infra/aws/main.tf',
            start_line: 2,
            end_line: 2,
            level: 'failure',
            message: 'unknown b',
            title: 'tf',
          },
          { path: 'secret/keys.txt', start_line: 1, end_line: 1, level: 'warning', message: 'leaked', title: null },
        ],
      },
    ]);
    expect(value(await pulls.checkRuns(repo, await git.head('main')))).toEqual([]);
  });

  it('reads the latest status per context, without target_url, in one request', async () => {
    const sha = await git.head('feat');
    await h.emulator.pulls.status({ repo, sha, context: 'ci/test', state: 'pending' });
    await h.emulator.pulls.status({
      repo,
      sha,
      context: 'ci/test',
      state: 'failure',
      description: 'red',
      targetUrl: 'https://ci.example/logs/1',
    });
    await h.emulator.pulls.status({ repo, sha, context: 'ci/lint', state: 'success' });
    const mark = h.mark();
    const statuses = value(await pulls.statuses(repo, sha));
    expect(routes(mark())).toEqual(['200 GET /commits/{ref}/status']);
    expect(statuses).toEqual([
      {
        context: 'ci/test',
        state: 'failure',
        description: 'red',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      {
        context: 'ci/lint',
        state: 'success',
        description: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(statuses)).not.toContain('ci.example');
    expect(await pulls.statuses(repo, '0'.repeat(40))).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('follows the head after a push, and reads merged and closed states', async () => {
    const sha = await git.commit({ message: 'more', branch: 'feat', files: { 'infra/aws/extra.tf': 'x\n' } });
    const pr = value(await h.upstream().pulls!.get(repo, feat));
    expect(pr.head_sha).toBe(sha);
    expect(pr.changed_files).toBe(3);
    const merged = await h.emulator.pulls.open({ repo, head: 'feat', base: 'main', title: 'to merge' });
    // The first PR on feat → main is still open: merge the second, then read both.
    await h.emulator.pulls.merge({ repo, number: merged });
    expect(value(await pulls.get(repo, merged))).toMatchObject({ state: 'merged', merged_at: expect.any(String) });
    await h.emulator.pulls.close({ repo, number: feat });
    expect(value(await h.upstream().pulls!.get(repo, feat))).toMatchObject({ state: 'closed', merged_at: null });
    const closed = value(await pulls.list(repo, { head: 'feat', state: 'closed', page: 1 }));
    expect(closed.pulls.map((p) => [p.number, p.state])).toEqual([
      [merged, 'merged'],
      [feat, 'closed'],
    ]);
  });
});

describe("GitHub's 3,000-file cap", () => {
  it('reads 30 pages and flags the list incomplete', async () => {
    const bulk = Object.fromEntries(Array.from({ length: 3005 }, (_, i) => [`bulk/f${i}.txt`, `${i}\n`]));
    const { name } = await h.repo(
      [
        { message: 'root', files: { 'README.md': 'r\n' } },
        { message: 'bulk', branch: 'bulk', files: bulk },
      ],
      'acme/bulk',
    );
    const n = await h.emulator.pulls.open({ repo: name, head: 'bulk', base: 'main' });
    const mark = h.mark();
    const files = value(await pulls.files(name, n));
    expect(mark()).toHaveLength(31);
    expect(files.files).toHaveLength(3000);
    expect(files.complete).toBe(false);
    expect(value(await pulls.get(name, n)).changed_files).toBe(3005);
  }, 120_000);
});
