// A real @octokit/rest client (with the retry and throttling plugins) against the emulator: what Octokit sends,
// how it reads our answers, and how our faults drive its plugins.
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startFixture, TOKEN, type Fixture } from './helpers.js';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
let fx: Fixture;
let empty: GitDir;
let octokit: Octokit;

beforeAll(async () => {
  fx = await startFixture(undefined, { token: [TOKEN, 'other-token'] });
  empty = await makeRepo([], { bare: true });
  fx.em.addRepo('octo/empty', empty.dir);
  octokit = new Octokit({ baseUrl: fx.em.url, auth: TOKEN, log: quiet });
});
afterAll(async () => {
  await fx.close();
  await empty.cleanup();
});
afterEach(() => fx.em.faults.reset());

let throttleId = 0;
/** Octokit composed like production (throttling before retry), with every wait shrunk to milliseconds. */
function pluggedOctokit(calls: string[]): Octokit {
  const Plugged = Octokit.plugin(throttling, retry);
  return new Plugged({
    baseUrl: fx.em.url,
    auth: TOKEN,
    log: quiet,
    retry: { retryAfterBaseValue: 5 },
    throttle: {
      id: `emulator-test-${(throttleId += 1)}`,
      retryAfterBaseValue: 5,
      fallbackSecondaryRateRetryAfter: 1,
      onRateLimit: (after: number, _o: unknown, _k: unknown, n: number) => {
        calls.push(`primary:${after}`);
        return n < 2;
      },
      onSecondaryRateLimit: (after: number, _o: unknown, _k: unknown, n: number) => {
        calls.push(`secondary:${after}`);
        return n < 2;
      },
    },
  });
}

describe('what Octokit sends', () => {
  it('contents with %2F-encoded path and ref; the decoded file comes back', async () => {
    const res = await octokit.rest.repos.getContent({
      owner: 'octo',
      repo: 'demo',
      path: 'dir with space/a b#?.txt',
      ref: 'main',
    });
    expect(fx.em.requests.at(-1)?.path).toBe('/repos/octo/demo/contents/dir%20with%20space%2Fa%20b%23%3F.txt?ref=main');
    const data = res.data as { content: string; path: string };
    expect(data.path).toBe('dir with space/a b#?.txt');
    expect(Buffer.from(data.content, 'base64').toString()).toBe('odd name\n');
  });

  it('getRef and getBranch with a slash in the branch name', async () => {
    const ref = await octokit.rest.git.getRef({ owner: 'octo', repo: 'demo', ref: 'heads/feature/x' });
    expect(fx.em.requests.at(-1)?.path).toBe('/repos/octo/demo/git/ref/heads%2Ffeature%2Fx');
    expect(ref.data.object.sha).toBe(await fx.repo.head('feature/x'));
    const branch = await octokit.rest.repos.getBranch({ owner: 'octo', repo: 'demo', branch: 'feature/x' });
    expect(branch.data.commit.sha).toBe(ref.data.object.sha);
  });

  it('paginate follows our Link headers through every page', async () => {
    const all = await octokit.paginate(octokit.rest.repos.listCommits, {
      owner: 'octo',
      repo: 'demo',
      sha: 'main',
      path: 'src',
      per_page: 1,
    });
    const fromGit = (await fx.repo.git('log', '--format=%H', 'main', '--', 'src')).split('\n').filter(Boolean);
    expect(all.map((c) => c.sha)).toEqual(fromGit);
  });

  it('paginate turns the empty repository’s 409 into []', async () => {
    expect(await octokit.paginate(octokit.rest.repos.listCommits, { owner: 'octo', repo: 'empty' })).toEqual([]);
  });

  it('the atomic commit recipe, and the non-fast-forward error text Octokit builds', async () => {
    const o = { owner: 'octo', repo: 'demo' };
    const parent = (await octokit.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    const base = (await octokit.rest.git.getCommit({ ...o, commit_sha: parent })).data;
    const blob = await octokit.rest.git.createBlob({
      ...o,
      content: Buffer.from([1, 2, 3]).toString('base64'),
      encoding: 'base64',
    });
    const tree = await octokit.rest.git.createTree({
      ...o,
      base_tree: base.tree.sha,
      tree: [
        { path: 'bin/data', mode: '100644', type: 'blob', sha: blob.data.sha },
        { path: 'README.md', mode: '100644', type: 'blob', sha: null },
      ],
    });
    const commit = await octokit.rest.git.createCommit({
      ...o,
      message: 'via octokit',
      tree: tree.data.sha,
      parents: [parent],
    });
    await octokit.rest.git.updateRef({ ...o, ref: 'heads/main', sha: commit.data.sha, force: false });
    expect(fx.em.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      path: '/repos/octo/demo/git/refs/heads%2Fmain',
      status: 200,
    });
    expect(await fx.repo.head('main')).toBe(commit.data.sha);
    const err = await octokit.rest.git.updateRef({ ...o, ref: 'heads/main', sha: parent }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 422,
      message: 'Update is not a fast forward - https://docs.github.com/rest/git/refs#update-a-reference',
    });
  });

  it('a conditional request with a matching ETag makes Octokit throw 304', async () => {
    const first = await octokit.rest.repos.get({ owner: 'octo', repo: 'demo' });
    const err = await octokit.rest.repos
      .get({ owner: 'octo', repo: 'demo', headers: { 'if-none-match': first.headers.etag ?? '' } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 304 });
  });
});

describe('faults drive the Octokit plugins', () => {
  it('primary limit (403, remaining 0, reset): onRateLimit is called, then the retry succeeds', async () => {
    const calls: string[] = [];
    fx.em.faults.rateLimit({ kind: 'primary', retryAfterSeconds: 0 });
    const res = await pluggedOctokit(calls).rest.repos.get({ owner: 'octo', repo: 'demo' });
    expect(res.status).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^primary:/);
    const limited = fx.em.requests.at(-2);
    expect(limited?.status).toBe(403);
  });

  it('secondary limit with retry-after (403 and 429): onSecondaryRateLimit gets retry-after', async () => {
    for (const status of [403, 429] as const) {
      const calls: string[] = [];
      fx.em.faults.rateLimit({ kind: 'secondary', retryAfterSeconds: 1, status });
      const res = await pluggedOctokit(calls).rest.repos.listBranches({ owner: 'octo', repo: 'demo' });
      expect(res.status).toBe(200);
      expect(calls).toEqual(['secondary:1']);
    }
  });

  it('the primary fault looks exactly like GitHub’s on the wire', async () => {
    fx.em.faults.rateLimit({ kind: 'primary', retryAfterSeconds: 30, status: 429 });
    const res = await fx.get('/repos/octo/demo');
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 29);
    expect(((await res.json()) as { message: string }).message).toMatch(/^API rate limit exceeded for user ID \d+\./);
    fx.em.faults.rateLimit({ kind: 'secondary' });
    const sec = await fx.get('/repos/octo/demo');
    expect(sec.status).toBe(403);
    expect(sec.headers.get('retry-after')).toBeNull();
    expect(Number(sec.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    expect(((await sec.json()) as { message: string }).message).toMatch(/\bsecondary rate limit\b/);
  });

  it('server errors are retried by plugin-retry until they stop', async () => {
    fx.em.faults.serverError({ status: 503, count: 2 });
    const before = fx.em.requests.length;
    const res = await pluggedOctokit([]).rest.repos.get({ owner: 'octo', repo: 'demo' });
    expect(res.status).toBe(200);
    expect(fx.em.requests.slice(before).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('denyRepo hides a repository from one token only (404, and absent from /user/repos)', async () => {
    fx.em.faults.denyRepo({ repo: 'octo/demo', token: TOKEN });
    expect(
      await octokit.rest.repos.get({ owner: 'octo', repo: 'demo' }).catch((e: { status: number }) => e.status),
    ).toBe(404);
    expect((await octokit.rest.repos.listForAuthenticatedUser()).data.map((r) => r.full_name)).toEqual(['octo/empty']);
    const other = new Octokit({ baseUrl: fx.em.url, auth: 'other-token', log: quiet });
    expect((await other.rest.repos.get({ owner: 'octo', repo: 'demo' })).status).toBe(200);
  });

  it('latency delays every answer', async () => {
    fx.em.faults.latency(150);
    const t0 = Date.now();
    await octokit.rest.rateLimit.get();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});
