// Failures: 5xx retried then `unavailable`, primary and secondary rate limits waited out within the bound then a
// clear `rate_limited`, bad tokens, hidden repositories, timeouts — and the token in none of the logs or errors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubUpstream } from '../../../src/upstream/github/index.js';
import { startHarness, TOKEN, type Harness } from './harness.js';

let h: Harness;
let repo: string;
const seen: unknown[] = []; // every result, for the token grep at the end

beforeAll(async () => {
  h = await startHarness();
  ({ name: repo } = await h.repo([{ message: 'initial', files: { 'a.txt': 'a\n' } }]));
});
beforeEach(() => {
  h.emulator.faults.reset();
});
afterAll(async () => {
  await h.close();
});

const statuses = (rs: { status: number }[]): number[] => rs.map((r) => r.status);

describe('server errors', () => {
  it('retries 5xx and then answers', async () => {
    const u = h.upstream();
    h.emulator.faults.serverError({ status: 502, count: 2 });
    const mark = h.mark();
    const r = await u.branchHead(repo, 'main');
    seen.push(r);
    expect(r.ok).toBe(true);
    expect(statuses(mark())).toEqual([502, 502, 200]);
  });

  it('gives up after maxRetries with unavailable', async () => {
    const u = h.upstream({ maxRetries: 1 });
    h.emulator.faults.serverError({ status: 503, count: 5 });
    const mark = h.mark();
    const r = await u.defaultBranch(repo);
    seen.push(r);
    expect(r).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'GitHub is unavailable (HTTP 503); retry later' },
    });
    expect(statuses(mark())).toEqual([503, 503]);
  });

  it('times out slow answers as unavailable', async () => {
    const u = h.upstream({ requestTimeoutMs: 150, maxRetries: 0 });
    h.emulator.faults.latency(1000);
    const mark = h.mark();
    const r = await u.defaultBranch(repo);
    seen.push(r);
    expect(!r.ok && r.error.code).toBe('unavailable');
    // Let the abandoned request finish server-side so it does not show up in the next test's counts.
    for (let i = 0; i < 60 && mark().length === 0; i++) await new Promise((res) => setTimeout(res, 50));
  });
});

describe('rate limits', () => {
  it('waits out a short primary limit (403, remaining 0) and retries', async () => {
    const u = h.upstream();
    h.emulator.faults.rateLimit({ kind: 'primary', count: 1, retryAfterSeconds: 1 });
    const mark = h.mark();
    const r = await u.defaultBranch(repo);
    seen.push(r);
    expect(r).toEqual({ ok: true, value: 'main' });
    expect(statuses(mark())).toEqual([403, 200]);
    expect(h.logs.some((l) => l.level === 'warn' && /primary rate limit; waiting/.test(l.msg))).toBe(true);
  });

  it('waits out a secondary limit (429 with retry-after) and retries', async () => {
    const u = h.upstream();
    h.emulator.faults.rateLimit({ kind: 'secondary', count: 1, retryAfterSeconds: 1, status: 429 });
    const mark = h.mark();
    const r = await u.listBranches(repo);
    seen.push(r);
    expect(r.ok).toBe(true);
    expect(statuses(mark())).toEqual([429, 200]);
  });

  it('answers rate_limited at once when the wait exceeds maxRateLimitWaitSeconds', async () => {
    const u = h.upstream({ maxRateLimitWaitSeconds: 2 });
    h.emulator.faults.rateLimit({ kind: 'primary', count: 1, retryAfterSeconds: 120 });
    const mark = h.mark();
    const r = await u.branchHead(repo, 'main');
    seen.push(r);
    expect(!r.ok && r.error.code).toBe('rate_limited');
    expect(!r.ok && r.error.retryAfterSeconds).toBeGreaterThanOrEqual(118);
    expect(!r.ok && r.error.message).toMatch(/^GitHub rate limit reached; retry after \d+ s$/);
    expect(statuses(mark())).toEqual([403]);
  });

  it('gives up on a secondary limit that persists, with its retry-after', async () => {
    const u = h.upstream({ maxRateLimitWaitSeconds: 1 });
    h.emulator.faults.rateLimit({ kind: 'secondary', count: 10, retryAfterSeconds: 1 });
    const mark = h.mark();
    const r = await u.defaultBranch(repo);
    seen.push(r);
    expect(r).toEqual({
      ok: false,
      error: { code: 'rate_limited', message: 'GitHub rate limit reached; retry after 1 s', retryAfterSeconds: 1 },
    });
    expect(statuses(mark())).toEqual([403, 403, 403]); // first try + 2 bounded retries
  });
});

describe('credentials', () => {
  it('reports a rejected token as unauthorized, a hidden repository as not_found, and health either way', async () => {
    const bad = createGitHubUpstream({
      token: 'ghp_wrongTokenWrongTokenWrongToken000000',
      baseUrl: h.emulator.url,
      maxRetries: 0,
    });
    const r = await bad.defaultBranch(repo);
    seen.push(r);
    expect(r).toEqual({
      ok: false,
      error: { code: 'unauthorized', message: 'GitHub rejected the token; check it and its scopes' },
    });
    const sick = await bad.health();
    seen.push(sick);
    expect(sick.ok).toBe(false);

    const u = h.upstream();
    h.emulator.faults.denyRepo({ repo, token: TOKEN });
    const hidden = await u.getTree(repo, 'main', '');
    seen.push(hidden);
    expect(!hidden.ok && hidden.error.code).toBe('not_found');
    h.emulator.faults.reset();

    const well = await u.health();
    seen.push(well);
    expect(well).toMatchObject({
      ok: true,
      rateLimit: { limit: 5000, remaining: expect.any(Number), resetAt: expect.any(String) },
    });
  });

  it('never lets the token into a log line, an error or a result', () => {
    expect(h.logs.length).toBeGreaterThan(0);
    const everything = JSON.stringify({ logs: h.logs, seen });
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(TOKEN.slice(4, 20));
    expect(everything.toLowerCase()).not.toContain('authorization');
  });
});
