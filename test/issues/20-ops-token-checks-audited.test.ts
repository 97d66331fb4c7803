// Issue 20 §6: guessing the ops token on /ui/signin and /mcp/root was unthrottled and left nothing in the ledger
// (only /api refusals were recorded). Now every check, on every surface, goes through one per-source gate: wrong
// tokens are counted across surfaces, a source that keeps guessing waits (429 + Retry-After, growing), the right token
// waits too while it does (no oracle), and each check is a ledger entry with its source. An ops token shorter than
// 128 bits is refused. The built CLI as operators run it; the ledger read back from disk and verified.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryLedger, type LedgerEntry } from '../../src/audit/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, snapshot, startServer, type ServerProcess } from '../support/cli-process.js';

const OPS = 'ops-0123456789abcdef0123456789abcdef-i20-audit';
const WRONG = 'ops-0123456789abcdef0123456789abcdef-i20-guess';

let repo: GitDir;
let tmp: string;
let server: ServerProcess;
let state: string;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': '# A\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i20-ops-'));
  state = join(tmp, 'state');
  server = await startServer(['--state-dir', state], {
    cwd: repo.dir,
    env: childEnv({ HOME: tmp, GIT_BLINDER_OPS_TOKEN: OPS }),
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (token: string) => fetch(`${server.url}/api/health`, { headers: { authorization: `Bearer ${token}` } });
const root = (token: string) =>
  fetch(`${server.url}/mcp/root`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'i20', version: '1' } },
    }),
  });
/** The page's own sign-in: pre-session cookie and CSRF token from the form, then the POST. */
async function signIn(token: string): Promise<Response> {
  const form = await fetch(`${server.url}/ui/signin`);
  const pre = (form.headers.getSetCookie().find((c) => c.startsWith('gb_ui_pre=')) ?? '').split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  return fetch(`${server.url}/ui/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
    body: new URLSearchParams({ csrf, token }).toString(),
  });
}
const retryAfter = (r: Response) => Number(r.headers.get('retry-after'));

describe('every check of the ops token is slowed and audited', () => {
  it(
    'counts wrong tokens per source across surfaces, backs off with a growing delay, and the right token waits too',
    { timeout: 60_000 },
    async () => {
      expect((await signIn(OPS)).status).toBe(303);
      // Five free failures, spread over three surfaces.
      expect((await signIn(WRONG)).status).toBe(401);
      expect((await signIn(WRONG)).status).toBe(401);
      expect((await root(WRONG)).status).toBe(404);
      expect((await root(WRONG)).status).toBe(404);
      expect((await api(WRONG)).status).toBe(401);
      // The sixth starts a 1 s back-off, the seventh (after it) 2 s, the eighth 4 s.
      expect((await root(WRONG)).status).toBe(404);
      await sleep(1_100);
      expect((await root(WRONG)).status).toBe(404);
      const second = await api(OPS);
      expect(second.status).toBe(429);
      expect(retryAfter(second)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(second)).toBeLessThanOrEqual(2);
      await sleep(retryAfter(second) * 1000 + 100);
      expect((await root(WRONG)).status).toBe(404);

      // While the source waits, the right token is not even compared: every surface answers 429, none lets it in.
      const a = await api(OPS);
      expect(a.status).toBe(429);
      expect(retryAfter(a)).toBeGreaterThanOrEqual(2);
      expect(retryAfter(a)).toBeLessThanOrEqual(4);
      expect(((await a.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      const r = await root(OPS);
      expect(r.status).toBe(429);
      expect(r.headers.get('mcp-session-id')).toBeNull();
      const w = await signIn(OPS);
      expect(w.status).toBe(429);
      expect(w.headers.getSetCookie().some((c) => c.startsWith('gb_ui_session='))).toBe(false);
      expect(await w.text()).toContain('Too many wrong ops tokens from this address');
      const listing = (await (
        await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${OPS}` } })
      ).json()) as Record<string, unknown>;
      expect(listing.perimeters).toBeUndefined();

      // Once the wait is over the right token works again, and clears the count.
      await sleep(retryAfter(a) * 1000 + 100);
      expect((await signIn(OPS)).status).toBe(303);
      expect((await api(OPS)).status).toBe(200);
      expect((await root(WRONG)).status).toBe(404);
      expect((await api(OPS)).status).toBe(200);
    },
  );

  it(
    'the ledger holds every check with its source: sign-ins one by one, failures and waits merged, nothing lost',
    { timeout: 30_000 },
    async () => {
      await server.stop(); // a clean shutdown drains the ledger
      const file = join(state, 'audit', 'audit.jsonl');
      const all: LedgerEntry[] = [];
      for await (const e of queryLedger(file)) all.push(e);
      const n = (pick: (e: LedgerEntry) => boolean) => all.filter(pick).reduce((sum, e) => sum + (e.count ?? 1), 0);

      const signedIn = all.filter((e) => e.surface === 'web' && e.result === 'signed_in');
      expect(signedIn).toHaveLength(2);
      for (const e of signedIn)
        expect(e).toMatchObject({ verdict: 'allow', tool: 'POST /ui/signin', source: '127.0.0.1' });
      expect(n((e) => e.surface === 'web' && e.result === 'wrong_ops_token')).toBe(2);
      expect(n((e) => e.surface === 'web' && e.result === 'backing_off')).toBe(1);
      expect(n((e) => e.surface === 'root' && e.tool === 'POST /mcp/root' && e.result === 'wrong_ops_token')).toBe(6);
      expect(n((e) => e.surface === 'root' && e.tool === 'POST /mcp/root' && e.result === 'backing_off')).toBe(1);
      expect(n((e) => e.surface === 'root' && e.tool === 'GET /mcp' && e.result === 'backing_off')).toBe(1);
      expect(n((e) => e.surface === 'api' && e.result === '401')).toBe(1);
      expect(n((e) => e.surface === 'api' && e.result === '429' && e.verdict === 'deny')).toBe(2);
      for (const e of all.filter((x) => x.verdict === 'deny')) expect(e.source).toBe('127.0.0.1');
      // The ledger with its new entries still verifies.
      const v = await runCli(['audit', 'verify', file], { cwd: tmp, env: childEnv({ HOME: tmp }) });
      expect(v.code, v.stdout + v.stderr).toBe(0);
    },
  );
});

describe('an ops token shorter than 128 bits is refused', () => {
  const CASES: [string, Record<string, string>, string][] = [
    [
      'given in GIT_BLINDER_OPS_TOKEN',
      { GIT_BLINDER_OPS_TOKEN: 'test-ops-token-0123456789' },
      'The ops token (GIT_BLINDER_OPS_TOKEN or --ops-token-file) is 25 characters',
    ],
    [
      'the GitHub token standing in for it',
      { GITHUB_TOKEN: 'ghp_tooShortForAnOpsToken' },
      'The ops token is the GitHub token here',
    ],
  ];
  it.each(CASES)(
    '%s: exit 2, says at least 32 characters and how to make one, writes nothing',
    async (_what, env, message) => {
      const dir = join(tmp, 'short');
      const r = await runCli(['serve', '--port', '0', '--state-dir', dir], {
        cwd: repo.dir,
        env: childEnv({ HOME: tmp, ...env }),
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('at least 32');
      expect(r.stderr).toContain('openssl rand -hex 32');
      expect(await snapshot(dir)).toBeUndefined();
    },
  );

  it('a generated one carries 192 bits', { timeout: 30_000 }, async () => {
    const dir = join(tmp, 'generated');
    const s = await startServer(['--state-dir', dir], { cwd: repo.dir, env: childEnv({ HOME: tmp }) });
    await s.stop();
    expect((await readFile(join(dir, 'ops-token'), 'utf8')).trim()).toMatch(/^gbo_[A-Za-z0-9_-]{32}$/);
  });
});
