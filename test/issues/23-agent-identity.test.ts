// Issue 23 §1: agent identity from the credential. Two agents of one perimeter, two keys: the audit, the /ui rows (in
// chromium) and git log name each by the agent id its key names, never by the client's self-declared label; revoking
// one leaves the other working; per-agent limits sit inside the perimeter's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/mcp/index.js';
import { haveChromium, launchBrowser } from '../support/browser.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** `git log` of a branch as author name, author email and the Agent-Id trailer, newest first. */
async function authors(repo: GitDir, branch: string): Promise<{ name: string; email: string; agent: string }[]> {
  const out = await repo.git('log', '--format=%an%x00%ae%x00%(trailers:key=Agent-Id,valueonly)%x01', branch);
  return out
    .split('\x01')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [name = '', email = '', agent = ''] = l.split('\0');
      return { name, email, agent: agent.trim() };
    });
}

describe('issue 23: two agents, two keys, one perimeter', { timeout: 120_000 }, () => {
  let srv: TestServer;
  let repo: GitDir;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n', 'src/x.ts': 'x\n' } }], { bare: true });
    srv = await startTestServer({ openPerimeters: false, proposals: {} });
    await srv.perimeter({ id: 'app', repo: repo.dir, read: ['**'], write: ['docs/**'] });
    await srv.perimeter({
      id: 'held',
      repo: repo.dir,
      read: ['**'],
      write: ['docs/**'],
      approval: { push_files: 'required' },
    });
    for (const [p, agent] of [
      ['app', 'alice'],
      ['app', 'bob'],
      ['held', 'alice'],
      ['held', 'bob'],
    ] as const) {
      const r = await srv.api('POST', `/api/perimeters/${p}/keys`, { agent });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      expect(r.json.agent).toBe(agent);
      keys[`${p}/${agent}`] = r.json.key;
    }
  });
  afterAll(() => srv?.close());

  it('refuses a second key for an agent name already taken, a malformed name and the reserved one', async () => {
    const again = await srv.api('POST', '/api/perimeters/app/keys', { agent: 'alice' });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain('already has an agent "alice"');
    expect((await srv.api('POST', '/api/perimeters/app/keys', { agent: 'Alice!' })).status).toBe(400);
    expect((await srv.api('POST', '/api/perimeters/app/keys', { agent: 'anonymous' })).status).toBe(400);
    // Without a name the agent is generated from the key id.
    const gen = await srv.api('POST', '/api/perimeters/app/keys', {});
    expect(gen.json.agent).toBe(`key-${gen.json.id}`);
    expect((await srv.api('DELETE', `/api/perimeters/app/keys/${gen.json.agent}`)).json).toEqual({
      revoked: gen.json.id,
      agent: gen.json.agent,
    });
  });

  it('audit entries and commits name the agent of the key, whatever the client calls itself', async () => {
    // Both clients claim the same self-declared name, and alice's even claims to be bob.
    const alice = await srv.connect('/mcp/app', 'legacy', bearer(keys['app/alice'] ?? ''), 'bob');
    const bob = await srv.connect('/mcp/app', 'legacy', bearer(keys['app/bob'] ?? ''), 'bob');
    const a = await alice.call('push_files', {
      message: 'alice writes',
      files: [{ path: 'docs/alice.md', content: 'by alice\n' }],
    });
    expect(a.isError, a.text).toBeUndefined();
    const b = await bob.call('push_files', { message: 'bob writes', files: [{ path: 'docs/bob.md', content: 'b\n' }] });
    expect(b.isError, b.text).toBeUndefined();

    const pushes = srv.records.filter((r) => r.tool === 'push_files' && r.perimeter === 'app');
    expect(pushes.map((r) => [r.agent, r.client])).toEqual([
      ['alice', 'bob'],
      ['bob', 'bob'],
    ]);
    const log = await authors(repo, 'main');
    expect(log.slice(0, 2)).toEqual([
      { name: 'bob@app via git-blinder', email: 'bob@app.git-blinder.invalid', agent: 'bob' },
      { name: 'alice@app via git-blinder', email: 'alice@app.git-blinder.invalid', agent: 'alice' },
    ]);
    await alice.close();
    await bob.close();
  });

  it('a session answers only the key that opened it: another valid key finds no session there', async () => {
    const alice = await srv.connect('/mcp/app', 'legacy', bearer(keys['app/alice'] ?? ''));
    const sid = alice.transport.sessionId ?? '';
    const asBob = await fetch(`${srv.url}/mcp/app`, {
      method: 'POST',
      headers: {
        ...bearer(keys['app/bob'] ?? ''),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_commits', arguments: {} },
      }),
    });
    expect(asBob.status).toBe(404);
    expect(await asBob.text()).toContain('Session not found');
    expect((await alice.call('list_commits', {})).isError).toBeUndefined();
    await alice.close();
  });

  it('proposals record the agent id; /ui shows it in chromium; the approved commit is authored for the agent', async () => {
    const alice = await srv.connect('/mcp/held', 'legacy', bearer(keys['held/alice'] ?? ''), 'sdk-v1-agent');
    const bob = await srv.connect('/mcp/held', 'legacy', bearer(keys['held/bob'] ?? ''), 'sdk-v1-agent');
    const pa = await alice.call('push_files', { message: 'held a', files: [{ path: 'docs/ha.md', content: 'a\n' }] });
    const pb = await bob.call('push_files', { message: 'held b', files: [{ path: 'docs/hb.md', content: 'b\n' }] });
    const ida = pa.structured.proposal_id as string;
    const idb = pb.structured.proposal_id as string;
    const stored = await srv.proposals?.get(ida);
    expect(stored?.agent).toBe('alice');
    expect((await srv.proposals?.get(idb))?.agent).toBe('bob');
    const listed = await srv.api('GET', '/api/proposals?perimeter=held');
    expect(
      Object.fromEntries((listed.json.proposals as { id: string; agent: string }[]).map((p) => [p.id, p.agent])),
    ).toMatchObject({ [ida]: 'alice', [idb]: 'bob' });

    if (haveChromium()) {
      const browser = await launchBrowser();
      try {
        const page = await browser.context.newPage();
        await page.goto(`${srv.url}/ui/`);
        await page.fill('#token', OPS_TOKEN);
        await page.click('button[type=submit]');
        await page.goto(`${srv.url}/ui/proposals`);
        expect(await page.locator(`tr[data-id="${ida}"] td.agent`).textContent()).toBe('alice');
        expect(await page.locator(`tr[data-id="${idb}"] td.agent`).textContent()).toBe('bob');
        expect(await page.content()).not.toContain('sdk-v1-agent');
        await page.goto(`${srv.url}/ui/proposals/${ida}`);
        expect(await page.locator('code.agent').textContent()).toBe('alice');
      } finally {
        await browser.close();
      }
    }

    const applied = await srv.proposals?.approve(ida, 'operator', stored?.hash);
    expect(applied?.ok, JSON.stringify(applied)).toBe(true);
    const [top] = await authors(repo, 'main');
    expect(top).toEqual({
      name: 'alice@held via git-blinder',
      email: 'alice@held.git-blinder.invalid',
      agent: 'alice',
    });
    const msg = await repo.git('log', '-1', '--format=%B', 'main');
    expect(msg).toMatch(new RegExp(`Git-Blinder-Proposal: ${ida}\\nAgent-Id: alice\\n`));
    await alice.close();
    await bob.close();
  });

  it('lists agents with their last use; revoking one stops its open session with the wrong-key 404, the other works', async () => {
    const alice = await srv.connect('/mcp/app', 'legacy', bearer(keys['app/alice'] ?? ''));
    const bob = await srv.connect('/mcp/app', 'legacy', bearer(keys['app/bob'] ?? ''));
    await alice.call('list_commits', {});
    const agents = await srv.api('GET', '/api/perimeters/app/agents');
    const rows = agents.json.agents as { agent: string; last_used: string | null; sessions: number }[];
    expect(rows.map((r) => r.agent)).toEqual(['alice', 'bob']);
    for (const r of rows) {
      expect(r.last_used).not.toBeNull();
      expect(r.sessions).toBe(1);
    }
    const health = await srv.api('GET', '/api/health');
    expect(health.json.sessions.by_agent).toEqual(
      expect.arrayContaining([expect.objectContaining({ perimeter: 'app', agent: 'alice', branches: ['main'] })]),
    );

    expect((await srv.api('DELETE', '/api/perimeters/app/keys/alice')).json.agent).toBe('alice');
    const wrong = await fetch(`${srv.url}/mcp/app`, { method: 'POST', headers: bearer('gbk_wrong') });
    const revoked = await fetch(`${srv.url}/mcp/app`, {
      method: 'POST',
      headers: {
        ...bearer(keys['app/alice'] ?? ''),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': alice.transport.sessionId ?? '',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(revoked.status).toBe(404);
    expect(await revoked.text()).toBe(await wrong.text());
    const still = await bob.call('list_commits', {});
    expect(still.isError).toBeUndefined();
    await bob.close();
    await alice.close().catch(() => undefined);
  });
});

describe('issue 23: per-agent limits inside the perimeter', { timeout: 60_000 }, () => {
  it('an agent at its own call rate is refused while the other agent of the perimeter goes on', async () => {
    const repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n' } }], { bare: true });
    const srv = await startTestServer({ openPerimeters: false, limiter: new RateLimiter() });
    try {
      await srv.perimeter({
        id: 'lim',
        repo: repo.dir,
        read: ['**'],
        write: ['docs/**'],
        limits: { calls_per_minute: 10, per_agent: { calls_per_minute: 3, commits_per_hour: 1 } },
      });
      const a = await srv.connect(
        '/mcp/lim',
        'legacy',
        bearer((await srv.api('POST', '/api/perimeters/lim/keys', { agent: 'a' })).json.key),
      );
      const b = await srv.connect(
        '/mcp/lim',
        'legacy',
        bearer((await srv.api('POST', '/api/perimeters/lim/keys', { agent: 'b' })).json.key),
      );
      const w1 = await a.call('push_files', { message: 'one', files: [{ path: 'docs/1.md', content: '1\n' }] });
      expect(w1.isError, w1.text).toBeUndefined();
      const w2 = await a.call('push_files', { message: 'two', files: [{ path: 'docs/2.md', content: '2\n' }] });
      expect(w2.isError).toBe(true);
      expect(w2.text).toContain('this agent may make 1 commits per hour');
      const r3 = await a.call('list_commits', {});
      expect(r3.isError, r3.text).toBeUndefined();
      const r4 = await a.call('list_commits', {});
      expect(r4.isError).toBe(true);
      expect(r4.text).toContain('this agent may make 3 calls per minute');
      // b has its own allowance, inside the perimeter's 10 (a spent 3 of them; its refusal gave one back).
      for (let i = 0; i < 3; i++) expect((await b.call('list_commits', {})).isError).toBeUndefined();
      const wb = await b.call('push_files', { message: 'b', files: [{ path: 'docs/b.md', content: 'b\n' }] });
      expect(wb.isError).toBe(true);
      expect(wb.text).toContain('this agent may make 3 calls per minute');
    } finally {
      await srv.close();
    }
  });
});
