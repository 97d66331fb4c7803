// Issue 10: `/api` guessed statuses from message text — `GET /api/perimeters/<id>/commits?path=../etc` answered 502
// (the message did not start with "Not found"). Now `invoke` returns a closed CallOutcome and status.ts maps it once:
// bad input 400, hidden and missing 404 with one body, a rate limit 429 with Retry-After, upstream down 503, our
// credential refused 502. Checked over the real server on both upstreams, and the mapping itself row by row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeFailure } from '../../src/http/status.js';
import type { CallOutcome } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue10ApiStatus0123456789abcdefghijk';
let repo: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
let badCred: GitHubUpstream;
let local: TestServer;
let gh: TestServer;
let ghBad: TestServer;
let sha = '';

beforeAll(async () => {
  repo = await makeRepo(
    [
      { message: 'init', files: { 'docs/a.md': 'a\n', 'secret/k.txt': 'k\n' } },
      { message: 'second', files: { 'docs/b.md': 'b\n' } },
    ],
    { bare: true },
  );
  sha = (await repo.git('rev-parse', 'HEAD')).trim();
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/s': repo.dir } });
  github = createGitHubUpstream({
    token: TOKEN,
    baseUrl: emulator.url,
    writeSpacingMs: 0,
    retryDelayMs: 1,
    maxRetries: 1,
    maxRateLimitWaitSeconds: 1,
  });
  badCred = createGitHubUpstream({
    token: 'ghp_wrongTokenForIssue10abcdefghijklmnopq',
    baseUrl: emulator.url,
    writeSpacingMs: 0,
    retryDelayMs: 1,
    maxRetries: 0,
  });
  local = await startTestServer();
  await local.perimeter({ id: 'p', repo: repo.dir, read: ['docs/**'], write: [] });
  const g = github;
  gh = await startTestServer({ upstream: g, upstreamFor: () => g });
  await gh.perimeter({ id: 'p', repo: 'acme/s', read: ['docs/**'], write: [] });
  const b = badCred;
  // The perimeter is created while the credential works, then the server only has the bad one.
  let current: GitHubUpstream = g;
  ghBad = await startTestServer({ upstream: g, upstreamFor: () => current });
  await ghBad.perimeter({ id: 'p', repo: 'acme/s', read: ['docs/**'], write: [] });
  current = b;
});

afterAll(async () => {
  await Promise.all([local?.close(), gh?.close(), ghBad?.close()]);
  await github?.close();
  await badCred?.close();
  await emulator?.close();
  await repo?.cleanup();
});

const both = () =>
  [
    ['local git', () => local],
    ['GitHub', () => gh],
  ] as const;

describe.each(both())('over %s', (_name, srv) => {
  it('answers a path with `..` 400 invalid, not 502', async () => {
    const r = await srv().api('GET', '/api/perimeters/p/commits?path=../etc');
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('invalid');
  });

  it('answers a hidden path exactly as a nonexistent one', async () => {
    const hidden = await srv().api('GET', '/api/perimeters/p/commits?path=secret/k.txt');
    const none = await srv().api('GET', '/api/perimeters/p/commits?path=nope/k.txt');
    expect({ status: hidden.status, json: hidden.json }).toEqual({ status: none.status, json: none.json });
  });

  it('answers an unknown commit 404 not_found', async () => {
    const r = await srv().api('GET', `/api/perimeters/p/commits/${'0'.repeat(40)}`);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('not_found');
  });

  it('answers a known commit 200', async () => {
    const r = await srv().api('GET', `/api/perimeters/p/commits/${sha}`);
    expect(r.status).toBe(200);
  });
});

describe('upstream failures over GitHub', () => {
  it('answers an upstream that is down 503 with Retry-After', async () => {
    emulator.faults.serverError({ status: 503, count: 10 });
    try {
      const res = await fetch(`${gh.url}/api/perimeters/p/commits`, {
        headers: { authorization: `Bearer ${opsToken()}` },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    } finally {
      emulator.faults.reset();
    }
  });

  it('answers an upstream rate limit 429 with its Retry-After', async () => {
    emulator.faults.rateLimit({ kind: 'primary', count: 10, retryAfterSeconds: 120 });
    try {
      const res = await fetch(`${gh.url}/api/perimeters/p/commits`, {
        headers: { authorization: `Bearer ${opsToken()}` },
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(100);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    } finally {
      emulator.faults.reset();
    }
  });

  it("answers a refused server credential 502: the gateway's problem, not the caller's", async () => {
    const r = await ghBad.api('GET', '/api/perimeters/p/commits');
    expect(r.status).toBe(502);
    expect(r.json.error.code).toBe('unauthorized');
  });
});

const opsToken = () => 'test-ops-token-0123456789abcdef0123';

describe('the one mapping', () => {
  const rows: [Exclude<CallOutcome, { kind: 'allow' | 'propose' }>, number, string | undefined][] = [
    [{ kind: 'invisible', message: 'Not found: x.' }, 404, undefined],
    [{ kind: 'missing', message: 'Not found: x.' }, 404, undefined],
    [{ kind: 'deny', class: 'invalid', message: 'm' }, 400, undefined],
    [{ kind: 'deny', class: 'denied', message: 'm' }, 403, undefined],
    [{ kind: 'deny', class: 'refused', message: 'm' }, 422, undefined],
    [{ kind: 'deny', class: 'too_large', message: 'm' }, 422, undefined],
    [{ kind: 'deny', class: 'rate_limited', message: 'm', retryAfterSeconds: 7 }, 429, '7'],
    [{ kind: 'deny', class: 'busy', message: 'm', retryAfterSeconds: 1 }, 429, '1'],
    [{ kind: 'error', class: 'invalid', message: 'm' }, 400, undefined],
    [{ kind: 'error', class: 'conflict', message: 'm' }, 409, undefined],
    [{ kind: 'error', class: 'empty_repository', message: 'm' }, 409, undefined],
    [{ kind: 'error', class: 'too_large', message: 'm' }, 422, undefined],
    [{ kind: 'error', class: 'unauthorized', message: 'm' }, 502, undefined],
    [{ kind: 'error', class: 'rate_limited', message: 'm', retryAfterSeconds: 9 }, 429, '9'],
    [{ kind: 'error', class: 'over_budget', message: 'm', retryAfterSeconds: 30 }, 429, '30'],
    [{ kind: 'error', class: 'over_budget', message: 'm' }, 422, undefined],
    [{ kind: 'error', class: 'unavailable', message: 'm' }, 503, '1'],
  ];
  it.each(rows)('%j → %i', (o, status, retry) => {
    const f = outcomeFailure(o);
    expect(f.status).toBe(status);
    expect(f.retryAfterSeconds === undefined ? undefined : String(f.retryAfterSeconds)).toBe(retry);
  });
  it('gives invisible and missing one body', () => {
    expect(outcomeFailure({ kind: 'invisible', message: 'Not found: x.' })).toEqual(
      outcomeFailure({ kind: 'missing', message: 'Not found: x.' }),
    );
  });
});
