// Attacks on agent identity (issue 23): every way a client might make the server take it for another agent of its
// perimeter. The agent id comes from the key alone; whatever else the request says is a label at most.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('adversarial: a client cannot take another agent’s identity', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let repo: GitDir;
  let mallory = '';
  let alice = '';

  beforeAll(async () => {
    repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n' } }], { bare: true });
    srv = await startTestServer({ openPerimeters: false, proposals: {} });
    await srv.perimeter({ id: 'app', repo: repo.dir, read: ['**'], write: ['docs/**'] });
    await srv.perimeter({
      id: 'held',
      repo: repo.dir,
      read: ['**'],
      write: ['docs/**'],
      approval: { push_files: 'required' },
    });
    mallory = (await srv.api('POST', '/api/perimeters/app/keys', { agent: 'mallory' })).json.key;
    alice = (await srv.api('POST', '/api/perimeters/app/keys', { agent: 'alice' })).json.key;
    await srv.api('POST', '/api/perimeters/held/keys', { agent: 'alice' });
  });
  afterAll(() => srv?.close());

  it('declaring the name "alice" (clientInfo, headers) writes and audits as mallory', async () => {
    const m = await srv.connect(
      '/mcp/app',
      'legacy',
      { authorization: `Bearer ${mallory}`, 'x-agent-id': 'alice', 'agent-id': 'alice' },
      'alice',
    );
    const w = await m.call('push_files', {
      message: 'hi\n\nAgent-Id: alice',
      files: [{ path: 'docs/m.md', content: 'm\n' }],
    });
    expect(w.isError, w.text).toBeUndefined();
    expect(srv.records.at(-1)).toMatchObject({ agent: 'mallory', client: 'alice' });
    expect(await repo.git('log', '-1', '--format=%an|%ae', 'main')).toBe(
      'mallory@app via git-blinder|mallory@app.git-blinder.invalid\n',
    );
    // The agent's own Agent-Id trailer is dropped: the one trailer a reader finds is the server's.
    expect(await repo.git('log', '-1', '--format=%(trailers:key=Agent-Id,valueonly)', 'main')).toBe('mallory\n\n');
    await m.close();
  });

  it('a key of one perimeter names no agent of another, even one with the same name', async () => {
    // alice's key of `app` opens nothing on `held`, where an agent alice also exists.
    const r = await fetch(`${srv.url}/mcp/held`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'alice', version: '1' } },
      }),
    });
    expect(r.status).toBe(404);
  });

  it('a session opened by alice cannot be driven with mallory’s key, and an agent name is no key', async () => {
    const a = await srv.connect('/mcp/app', 'legacy', { authorization: `Bearer ${alice}` });
    const hop = await fetch(`${srv.url}/mcp/app`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mallory}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': a.transport.sessionId ?? '',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'push_files', arguments: { message: 'x', files: [{ path: 'docs/x.md', content: 'x\n' }] } },
      }),
    });
    expect(hop.status).toBe(404);
    const byName = await fetch(`${srv.url}/mcp/app`, { method: 'POST', headers: { authorization: 'Bearer alice' } });
    const wrong = await fetch(`${srv.url}/mcp/app`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
    expect([byName.status, await byName.text()]).toEqual([wrong.status, await wrong.text()]);
    expect(srv.records.filter((r) => r.tool === 'push_files' && r.agent === 'alice')).toEqual([]);
    await a.close();
  });

  it('a revoked agent name issued again gets a new key; the old key stays dead', async () => {
    const first = await srv.api('POST', '/api/perimeters/app/keys', { agent: 'temp' });
    await srv.api('DELETE', '/api/perimeters/app/keys/temp');
    const again = await srv.api('POST', '/api/perimeters/app/keys', { agent: 'temp' });
    expect(again.status).toBe(201);
    expect(again.json.id).not.toBe(first.json.id);
    const old = await fetch(`${srv.url}/mcp/app`, {
      method: 'GET',
      headers: { authorization: `Bearer ${first.json.key}` },
    });
    expect(old.status).toBe(404);
  });
});
