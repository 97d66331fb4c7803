// The emulator's pull-request and CI endpoints: GitHub's shapes (validated against the OpenAPI description), its
// filters and caps (head as `owner:branch`, files merge base → head, 3,000 files in pages of at most 100), and the
// `em.pulls` seeding control.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import type { Obj } from './helpers.js';
import { documentedStatuses, validate, validateComponent } from './openapi.js';

const TOKEN = 'ghp_pulls';
let repo: GitDir;
let em: Emulator;

beforeAll(async () => {
  repo = await makeRepo([
    {
      message: 'initial',
      files: {
        'README.md': 'readme\nline two\n',
        'src/app.ts': 'export const app = 1;\n',
        'infra/aws/main.tf': 'resource "a" {}\n',
        'secret/keys.txt': 'k1\n',
      },
    },
    {
      message: 'aws work',
      branch: 'feat',
      files: {
        'infra/aws/main.tf': 'resource "a" {}\nresource "b" {}\n',
        'infra/aws/vars.tf': 'v\n',
        'secret/keys.txt': 'k2\n',
      },
    },
    { message: 'main moves', branch: 'main', files: { 'src/app.ts': 'export const app = 2;\n' } },
    { message: 'other work', branch: 'other', files: { 'docs/other.md': 'other\n' } },
    { message: 'clashing readme', branch: 'clash', files: { 'README.md': 'clash\n' } },
    { message: 'readme on main', branch: 'main', files: { 'README.md': 'main readme\n' } },
  ]);
  em = await startGitHubEmulator({ token: TOKEN, repos: { 'octo/demo': `${repo.dir}/.git` } });
});
afterAll(async () => {
  await em.close();
  await repo.cleanup();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${em.url}${path}`, {
    method,
    headers: { authorization: `token ${TOKEN}`, 'user-agent': 'pulls-test', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}

const R = '/repos/{owner}/{repo}';

/** Calls and validates against the operation's documented response. */
async function checked(method: string, template: string, path: string, status: number, body?: unknown): Promise<any> {
  const res = await call(method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(documentedStatuses(method, `${R}${template}`)).toContain(String(status));
  expect(validate(method.toLowerCase(), `${R}${template}`, status, res.body).errors).toEqual([]);
  if (status >= 400) expect(validateComponent('basic-error', res.body).errors).toEqual([]);
  return res.body;
}

describe('pull requests', () => {
  let feat = 0;

  it('opens a PR (201, Location, draft) and refuses a second one on the same head and base', async () => {
    const pr = (await checked('POST', '/pulls', '/repos/octo/demo/pulls', 201, {
      title: 'AWS',
      head: 'feat',
      base: 'main',
      body: 'please',
      draft: true,
    })) as Obj;
    feat = pr.number as number;
    expect(pr).toMatchObject({ state: 'open', draft: true, mergeable_state: 'draft', changed_files: 3 });
    expect(pr.head).toMatchObject({ ref: 'feat', sha: await repo.head('feat'), repo: { full_name: 'octo/demo' } });
    const again = (await checked('POST', '/pulls', '/repos/octo/demo/pulls', 422, {
      title: 'again',
      head: 'octo:feat',
      base: 'main',
    })) as Obj;
    expect(again.errors[0].message).toBe('A pull request already exists for octo:feat.');
  });

  it('refuses a head with no commits beyond the base, a missing branch and a fork owner (422)', async () => {
    const none = (await checked('POST', '/pulls', '/repos/octo/demo/pulls', 422, {
      title: 't',
      head: 'main',
      base: 'main',
    })) as Obj;
    expect(none.errors[0].message).toBe('No commits between main and main');
    const missing = (await checked('POST', '/pulls', '/repos/octo/demo/pulls', 422, {
      title: 't',
      head: 'nope',
      base: 'main',
    })) as Obj;
    expect(missing.errors[0]).toMatchObject({ field: 'head', code: 'invalid' });
    const fork = (await call('POST', '/repos/octo/demo/pulls', { title: 't', head: 'mallory:feat', base: 'main' }))
      .body as Obj;
    expect(fork.errors[0]).toMatchObject({ field: 'head', code: 'invalid' });
  });

  it('lists the files of the merge base → head, not what the base gained since', async () => {
    const files = (await checked(
      'GET',
      '/pulls/{pull_number}/files',
      `/repos/octo/demo/pulls/${feat}/files`,
      200,
    )) as Obj[];
    expect(files.map((f) => f.filename).sort()).toEqual(['infra/aws/main.tf', 'infra/aws/vars.tf', 'secret/keys.txt']);
    expect(files.find((f) => f.filename === 'infra/aws/main.tf')).toMatchObject({ status: 'modified', additions: 1 });
    const commits = (await checked(
      'GET',
      '/pulls/{pull_number}/commits',
      `/repos/octo/demo/pulls/${feat}/commits`,
      200,
    )) as Obj[];
    expect(commits.map((c) => c.commit.message)).toEqual(['aws work']);
  });

  it('filters the list by head only as owner:branch (a bare branch is ignored), by base and state', async () => {
    const other = await em.pulls.open({ repo: 'octo/demo', head: 'other', base: 'main' });
    const forked = await em.pulls.open({ repo: 'octo/demo', head: 'feat', base: 'main', fork: 'mallory/demo' });
    const byHead = (await checked('GET', '/pulls', '/repos/octo/demo/pulls?head=octo:feat', 200)) as Obj[];
    expect(byHead.map((p) => p.number)).toEqual([feat]);
    const byFork = (await checked('GET', '/pulls', '/repos/octo/demo/pulls?head=mallory:feat', 200)) as Obj[];
    expect(byFork.map((p) => p.number)).toEqual([forked]);
    expect(byFork[0]?.head).toMatchObject({ label: 'mallory:feat', repo: { full_name: 'mallory/demo', fork: true } });
    const bare = (await call('GET', '/repos/octo/demo/pulls?head=feat')).body as Obj[];
    expect(bare.map((p) => p.number)).toEqual([forked, other, feat]); // newest first
    expect((await call('GET', '/repos/octo/demo/pulls?base=nope')).body).toEqual([]);
    await em.pulls.close({ repo: 'octo/demo', number: forked });
    const open = (await call('GET', '/repos/octo/demo/pulls')).body as Obj[];
    expect(open.map((p) => p.number)).toEqual([other, feat]);
    const closed = (await call('GET', '/repos/octo/demo/pulls?state=closed')).body as Obj[];
    expect(closed.map((p) => p.number)).toEqual([forked]);
    await checked('GET', '/pulls', '/repos/octo/demo/pulls?state=bogus', 422);
  });

  it('follows a push to the head branch, and answers 404 for a number that is no PR', async () => {
    const before = (await call('GET', `/repos/octo/demo/pulls/${feat}`)).body as Obj;
    const sha = await repo.commit({ message: 'more', branch: 'feat', files: { 'infra/aws/extra.tf': 'x\n' } });
    const after = (await checked('GET', '/pulls/{pull_number}', `/repos/octo/demo/pulls/${feat}`, 200)) as Obj;
    expect(after.head.sha).toBe(sha);
    expect(after.head.sha).not.toBe(before.head.sha);
    expect(after.changed_files).toBe(4);
    await checked('GET', '/pulls/{pull_number}', '/repos/octo/demo/pulls/999', 404);
    expect((await call('GET', '/repos/octo/demo/pulls/abc')).status).toBe(404);
    await checked('GET', '/issues/{issue_number}/comments', '/repos/octo/demo/issues/999/comments', 404);
  });

  it('computes mergeable_state: clean, unstable on a failing check, dirty on a conflict', async () => {
    const clean = await em.pulls.open({ repo: 'octo/demo', head: 'other', base: 'main', title: 'second other' });
    const head = await repo.head('other');
    expect(((await call('GET', `/repos/octo/demo/pulls/${clean}`)).body as Obj).mergeable_state).toBe('clean');
    await em.pulls.status({ repo: 'octo/demo', sha: head, context: 'lint', state: 'failure' });
    expect(((await call('GET', `/repos/octo/demo/pulls/${clean}`)).body as Obj).mergeable_state).toBe('unstable');
    const clash = await em.pulls.open({ repo: 'octo/demo', head: 'clash', base: 'main' });
    const dirty = (await call('GET', `/repos/octo/demo/pulls/${clash}`)).body as Obj;
    expect(dirty).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
  });

  it('serves seeded reviews, review comments with their hunk, and conversation comments', async () => {
    const review = await em.pulls.review({
      repo: 'octo/demo',
      number: feat,
      state: 'CHANGES_REQUESTED',
      body: 'see inline',
      comments: [
        { path: 'infra/aws/main.tf', line: 2, body: 'why b?' },
        { path: 'secret/keys.txt', line: 1, body: 'hidden remark' },
      ],
    });
    const reply = await em.pulls.reviewComment({
      repo: 'octo/demo',
      number: feat,
      path: 'infra/aws/main.tf',
      line: 2,
      body: 'because',
      inReplyTo: review.comments[0] ?? 0,
      user: 'contributor',
    });
    const note = em.pulls.comment({ repo: 'octo/demo', number: feat, body: 'LGTM otherwise' });
    const reviews = (await checked(
      'GET',
      '/pulls/{pull_number}/reviews',
      `/repos/octo/demo/pulls/${feat}/reviews`,
      200,
    )) as Obj[];
    expect(reviews).toEqual([
      expect.objectContaining({
        id: review.id,
        state: 'CHANGES_REQUESTED',
        body: 'see inline',
        user: expect.objectContaining({ login: 'reviewer' }),
      }),
    ]);
    const comments = (await checked(
      'GET',
      '/pulls/{pull_number}/comments',
      `/repos/octo/demo/pulls/${feat}/comments`,
      200,
    )) as Obj[];
    expect(comments.map((c) => [c.id, c.path, c.line, c.in_reply_to_id, c.pull_request_review_id])).toEqual([
      [review.comments[0], 'infra/aws/main.tf', 2, undefined, review.id],
      [review.comments[1], 'secret/keys.txt', 1, undefined, review.id],
      [reply, 'infra/aws/main.tf', 2, review.comments[0], null],
    ]);
    expect(comments[0]?.diff_hunk).toMatch(/^@@ .*\n resource "a" \{\}\n\+resource "b" \{\}$/);
    const issue = (await checked(
      'GET',
      '/issues/{issue_number}/comments',
      `/repos/octo/demo/issues/${feat}/comments`,
      200,
    )) as Obj[];
    expect(issue.map((c) => [c.id, c.body])).toEqual([[note, 'LGTM otherwise']]);
  });

  it('serves check runs (latest per name), their annotations, and combined and listed statuses', async () => {
    const sha = await repo.head('feat');
    await em.pulls.checkRun({ repo: 'octo/demo', sha, name: 'build', conclusion: 'success' });
    const failing = await em.pulls.checkRun({
      repo: 'octo/demo',
      sha: 'feat',
      name: 'build',
      conclusion: 'failure',
      output: { title: 'tf fails', summary: 'two errors', text: 'details' },
      annotations: [
        { path: 'infra/aws/main.tf', startLine: 2, message: 'unknown resource b', title: 'tf' },
        { path: 'secret/keys.txt', startLine: 1, message: 'leaked key', level: 'warning' },
      ],
    });
    await em.pulls.checkRun({ repo: 'octo/demo', sha, name: 'deploy', status: 'in_progress' });
    const runs = (await checked(
      'GET',
      '/commits/{ref}/check-runs',
      `/repos/octo/demo/commits/${sha}/check-runs`,
      200,
    )) as Obj;
    expect(runs.total_count).toBe(2);
    expect(runs.check_runs.map((c: Obj) => [c.name, c.status, c.conclusion])).toEqual([
      ['deploy', 'in_progress', null],
      ['build', 'completed', 'failure'],
    ]);
    const all = (await call('GET', `/repos/octo/demo/commits/${sha}/check-runs?filter=all`)).body as Obj;
    expect(all.total_count).toBe(3);
    const build = runs.check_runs[1] as Obj;
    expect(build.output).toMatchObject({ title: 'tf fails', annotations_count: 2 });
    const notes = (await checked(
      'GET',
      '/check-runs/{check_run_id}/annotations',
      `/repos/octo/demo/check-runs/${failing}/annotations`,
      200,
    )) as Obj[];
    expect(notes.map((a) => [a.path, a.start_line, a.end_line, a.annotation_level])).toEqual([
      ['infra/aws/main.tf', 2, 2, 'failure'],
      ['secret/keys.txt', 1, 1, 'warning'],
    ]);
    await em.pulls.status({ repo: 'octo/demo', sha, context: 'ci/test', state: 'pending' });
    await em.pulls.status({
      repo: 'octo/demo',
      sha,
      context: 'ci/test',
      state: 'failure',
      description: 'red',
      targetUrl: 'https://ci.example/1',
    });
    await em.pulls.status({ repo: 'octo/demo', sha, context: 'ci/lint', state: 'success' });
    const combined = (await checked(
      'GET',
      '/commits/{ref}/status',
      `/repos/octo/demo/commits/${sha}/status`,
      200,
    )) as Obj;
    expect(combined).toMatchObject({ state: 'failure', total_count: 2, sha });
    expect(combined.statuses.map((x: Obj) => [x.context, x.state])).toEqual([
      ['ci/test', 'failure'],
      ['ci/lint', 'success'],
    ]);
    const listed = (await checked(
      'GET',
      '/commits/{ref}/statuses',
      `/repos/octo/demo/commits/${sha}/statuses`,
      200,
    )) as Obj[];
    expect(listed.map((x) => x.state)).toEqual(['success', 'failure', 'pending']);
    await checked('GET', '/commits/{ref}/status', `/repos/octo/demo/commits/${'0'.repeat(40)}/status`, 404);
  });

  it('merges a PR for real through em.pulls.merge', async () => {
    const n = await em.pulls.open({ repo: 'octo/demo', head: 'other', base: 'main', title: 'to merge' });
    const before = await repo.head('main');
    const merge = await em.pulls.merge({ repo: 'octo/demo', number: n });
    expect(await repo.head('main')).toBe(merge);
    expect((await repo.git('rev-parse', `${merge}^1`)).trim()).toBe(before);
    const pr = (await call('GET', `/repos/octo/demo/pulls/${n}`)).body as Obj;
    expect(pr).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: merge });
  });

  it('counts ids per repository and stamps dates from a clock a test may fix (twins seeded alike read alike)', async () => {
    em.addRepo('octo/twin-a', `${repo.dir}/.git`);
    em.addRepo('octo/twin-b', `${repo.dir}/.git`);
    em.pulls.clock(() => '2026-02-03T04:05:06Z');
    try {
      const seen = [];
      for (const name of ['octo/twin-a', 'octo/twin-b']) {
        const n = await em.pulls.open({ repo: name, head: 'other', base: 'main' });
        const review = await em.pulls.review({ repo: name, number: n, state: 'COMMENTED', body: 'b' });
        const run = await em.pulls.checkRun({ repo: name, sha: 'other', name: 'ci' });
        const pr = (await call('GET', `/repos/${name}/pulls/${n}`)).body as Obj;
        seen.push([n, review.id, run, pr.id, pr.created_at, pr.updated_at]);
      }
      expect(seen[0]).toEqual(seen[1]);
      expect(seen[0]?.[4]).toBe('2026-02-03T04:05:06Z');
    } finally {
      em.pulls.clock(undefined);
    }
  });

  it('the validator is not vacuous for these routes (a PR without head, a check run without output fail)', async () => {
    const pr = (await call('GET', '/repos/octo/demo/pulls/1')).body as Obj;
    delete pr.head;
    expect(validate('get', `${R}/pulls/{pull_number}`, 200, pr).ok).toBe(false);
    const runs = (await call('GET', `/repos/octo/demo/commits/${await repo.head('feat')}/check-runs`)).body as Obj;
    delete runs.check_runs[0].output;
    expect(validate('get', `${R}/commits/{ref}/check-runs`, 200, runs).ok).toBe(false);
  });

  it('covers every PR and CI route', () => {
    const served = new Set(em.requests.map((r) => r.route).filter((r) => r !== undefined));
    for (const route of [
      'GET /pulls',
      'POST /pulls',
      'GET /pulls/{pull_number}',
      'GET /pulls/{pull_number}/files',
      'GET /pulls/{pull_number}/commits',
      'GET /pulls/{pull_number}/reviews',
      'GET /pulls/{pull_number}/comments',
      'GET /issues/{issue_number}/comments',
      'GET /commits/{ref}/check-runs',
      'GET /check-runs/{check_run_id}/annotations',
      'GET /commits/{ref}/status',
      'GET /commits/{ref}/statuses',
    ])
      expect(served, route).toContain(route.replace(' ', ` ${R}`));
  });
});

describe("GitHub's files cap", () => {
  let big: GitDir;
  let bigEm: Emulator;
  const files: Record<string, string> = {};
  for (let i = 0; i < 3005; i += 1) files[`bulk/f${String(i).padStart(4, '0')}.txt`] = `${i}\n`;

  beforeAll(async () => {
    big = await makeRepo([
      { message: 'root', files: { 'README.md': 'r\n' } },
      { message: 'bulk', branch: 'bulk', files },
    ]);
    bigEm = await startGitHubEmulator({ token: TOKEN, repos: { 'octo/big': `${big.dir}/.git` } });
  }, 120_000);
  afterAll(async () => {
    await bigEm.close();
    await big.cleanup();
  });

  it('lists at most 3,000 files, 100 a page at most, while changed_files counts them all', async () => {
    const n = await bigEm.pulls.open({ repo: 'octo/big', head: 'bulk', base: 'main' });
    const get = async (path: string): Promise<{ body: Obj[]; link: string | null }> => {
      const res = await fetch(`${bigEm.url}${path}`, {
        headers: { authorization: `token ${TOKEN}`, 'user-agent': 't' },
      });
      return { body: (await res.json()) as Obj[], link: res.headers.get('link') };
    };
    const first = await get(`/repos/octo/big/pulls/${n}/files?per_page=500`);
    expect(first.body).toHaveLength(100);
    expect(first.link).toContain('page=30>; rel="last"');
    expect((await get(`/repos/octo/big/pulls/${n}/files?per_page=100&page=30`)).body).toHaveLength(100);
    expect((await get(`/repos/octo/big/pulls/${n}/files?per_page=100&page=31`)).body).toEqual([]);
    expect((await get(`/repos/octo/big/pulls/${n}/files`)).body).toHaveLength(30); // GitHub's default page
    const pr = (await (
      await fetch(`${bigEm.url}/repos/octo/big/pulls/${n}`, {
        headers: { authorization: `token ${TOKEN}`, 'user-agent': 't' },
      })
    ).json()) as Obj;
    expect(pr.changed_files).toBe(3005);
  }, 60_000);
});
