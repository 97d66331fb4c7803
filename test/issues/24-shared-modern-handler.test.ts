// Issue 24 (per-call cost): every 2026-07-28 request is served by one SDK handler built once per app, instead of a
// handler per request. Each request must still be answered by a server built from the endpoint, binding and key it was
// admitted with. Two perimeters over one repository with disjoint windows, the operator surface and a 2025 session,
// all calling at once: every answer shows its own window only, and every call is recorded for its own perimeter and
// agent. Real server, real repository, real SDK clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import {
  bearer,
  OPS_TOKEN,
  perimeterWithKey,
  startTestServer,
  type Agent,
  type TestServer,
} from '../support/server.js';

let source: GitDir;
let srv: TestServer;
const keys: Record<'left' | 'right', string> = { left: '', right: '' };

beforeAll(async () => {
  source = await makeRepo([
    {
      message: 'init',
      files: {
        'left/a.txt': 'LEFT-ONLY\n',
        'right/b.txt': 'RIGHT-ONLY\n',
        'shared.txt': 'nobody reads this\n',
      },
    },
  ]);
  srv = await startTestServer({ openPerimeters: false });
  for (const side of ['left', 'right'] as const)
    keys[side] = await perimeterWithKey(srv, { id: side, repo: source.dir, read: [`${side}/**`] }, `${side}-agent`);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await source?.cleanup();
});

describe('one shared 2026-07-28 handler', () => {
  it('answers each of many interleaved requests with the window it was admitted for', async () => {
    const left = await srv.connect('/mcp/left', 'auto', bearer(keys.left));
    const right = await srv.connect('/mcp/right', 'auto', bearer(keys.right));
    const root = await srv.connect('/mcp/root', 'auto', bearer(OPS_TOKEN));
    const session = await srv.connect('/mcp/left', 'legacy', bearer(keys.left));
    try {
      // The 2026-07-28 clients hold no session; the 2025 one does.
      expect([left, right, root].map((a) => a.transport.sessionId)).toEqual([undefined, undefined, undefined]);
      expect(session.transport.sessionId).toBeDefined();
      const before = srv.records.length;
      type Probe = { who: string; agent: Agent; tree: Record<string, unknown>; sees: string; hidden: string[] };
      const probes: Probe[] = [
        {
          who: 'left',
          agent: left,
          tree: { recursive: true },
          sees: 'left/a.txt',
          hidden: ['right/b.txt', 'shared.txt'],
        },
        {
          who: 'right',
          agent: right,
          tree: { recursive: true },
          sees: 'right/b.txt',
          hidden: ['left/a.txt', 'shared.txt'],
        },
        { who: 'session', agent: session, tree: { recursive: true }, sees: 'left/a.txt', hidden: ['right/b.txt'] },
        { who: 'root', agent: root, tree: { repo: source.dir, recursive: true }, sees: 'shared.txt', hidden: [] },
      ];
      const rounds = 12;
      const answers = await Promise.all(
        Array.from({ length: rounds }, () => probes).flatMap((ps) =>
          ps.map(async (p) => ({ p, tree: await p.agent.call('get_tree', p.tree) })),
        ),
      );
      for (const { p, tree } of answers) {
        expect(tree.isError, `${p.who}: ${tree.text}`).toBeFalsy();
        expect(tree.text, p.who).toContain(p.sees);
        for (const h of p.hidden) expect(tree.text, `${p.who} must not see ${h}`).not.toContain(h);
      }
      // The other side's file, asked for by path, is as absent as a file that does not exist.
      const [l, r] = await Promise.all([
        left.call('get_file', { path: 'right/b.txt' }),
        right.call('get_file', { path: 'left/a.txt' }),
      ]);
      expect(l.isError).toBe(true);
      expect(r.isError).toBe(true);
      expect(l.text + r.text).not.toMatch(/LEFT-ONLY|RIGHT-ONLY/);
      // Every call was recorded once, for the perimeter and agent of its own key.
      const seen = srv.records.slice(before);
      expect(seen).toHaveLength(rounds * probes.length + 2);
      const count = (perimeter: string | undefined, agent: string | undefined) =>
        seen.filter((c) => c.perimeter === perimeter && c.agent === agent).length;
      expect(count('left', 'left-agent')).toBe(rounds * 2 + 1);
      expect(count('right', 'right-agent')).toBe(rounds + 1);
      expect(seen.filter((c) => c.surface === 'root')).toHaveLength(rounds);
    } finally {
      await Promise.all([left, right, root, session].map((a) => a.close()));
    }
  });

  it('streams a subscriptions/listen answer (event stream) and keeps answering calls while it is open', async () => {
    const agent = await srv.connect('/mcp/left', 'auto', bearer(keys.left));
    try {
      const sub = await agent.client.listen({ toolsListChanged: true });
      const tree = await agent.call('get_tree', { recursive: true });
      expect(tree.text).toContain('left/a.txt');
      expect(tree.text).not.toContain('right/b.txt');
      await sub.close();
      expect((await agent.call('get_file', { path: 'left/a.txt' })).text).toContain('LEFT-ONLY');
    } finally {
      await agent.close();
    }
  });

  it('keeps serving after a client goes away in the middle of its requests', async () => {
    const ctl = new AbortController();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'get_tree',
        arguments: { recursive: true },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const headers = {
      ...bearer(keys.right),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_tree',
    };
    const abandoned = Array.from({ length: 8 }, () =>
      fetch(`${srv.url}/mcp/right`, { method: 'POST', headers, body, signal: ctl.signal }).catch(() => undefined),
    );
    ctl.abort();
    await Promise.all(abandoned);
    const res = await fetch(`${srv.url}/mcp/right`, { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('right/b.txt');
    expect(text).not.toContain('left/a.txt');
  });
});
