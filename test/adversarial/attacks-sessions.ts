// Attacks that try to starve others of sessions (issue 9 item 5a): one key opening sessions without end, holding GET
// streams, must neither lock out another key, another perimeter nor the operator. Each attack floods with a key of
// its own (issued for it, revoked after), so evictions stay inside that key and no other attack's session is touched.
import { OPS_TOKEN } from '../support/server.js';
import type { Ctx } from './context.js';
import { callTool, check, INIT, JSON_HEADERS, raw, rawSession, type Attack } from './harness.js';

/** Session-starvation attacks. */
export function sessionAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const base = fx.srv.url;
  const withKey = async (perimeter: string, fn: (key: string) => Promise<void>) => {
    const issued = await fx.srv.api('POST', `/api/perimeters/${perimeter}/keys`);
    check(issued.status === 201, `could not issue a key: ${issued.status}`);
    try {
      await fn(issued.json.key as string);
    } finally {
      await fx.srv.api('DELETE', `/api/perimeters/${perimeter}/keys/${issued.json.id}`);
    }
  };
  const othersStillIn = async (): Promise<void> => {
    const narrow = await raw(base, {
      path: '/mcp/narrow',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${fx.keys.narrow}` },
      body: INIT,
    });
    check(narrow.status === 200, `another perimeter got ${narrow.status}`);
    const root = await raw(base, {
      path: '/mcp/root',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${OPS_TOKEN}` },
      body: INIT,
    });
    check(root.status === 200, `the operator got ${root.status}`);
    const app = await callTool(ctx.app, 'get_file', { path: 'app/main.ts' });
    check(!app.isError, `an open session of another perimeter broke: ${app.text.slice(0, 200)}`);
  };
  const limits = fx.srv.app.sessions.limits;
  return [
    {
      category: 'starve',
      name: `one key opens ${limits.perKey + 40} sessions`,
      run: () =>
        withKey('other', async (key) => {
          const sids: string[] = [];
          for (let i = 0; i < limits.perKey + 40; i++) sids.push(await rawSession(base, '/mcp/other', key));
          const mine = (
            await Promise.all(
              sids.map((sid) =>
                raw(base, {
                  path: '/mcp/other',
                  headers: {
                    ...JSON_HEADERS,
                    authorization: `Bearer ${key}`,
                    'mcp-session-id': sid,
                    'mcp-protocol-version': '2025-11-25',
                  },
                  body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
                }),
              ),
            )
          ).filter((r) => r.status === 200).length;
          check(mine <= limits.perKey, `the key holds ${mine} live sessions, above its cap ${limits.perKey}`);
          await othersStillIn();
        }),
    },
    {
      category: 'starve',
      name: 'one key holds a GET stream on every session it opens',
      run: () =>
        withKey('other', async (key) => {
          const streams: AbortController[] = [];
          try {
            for (let i = 0; i < limits.perKey + 8; i++) {
              const sid = await rawSession(base, '/mcp/other', key);
              const ac = new AbortController();
              streams.push(ac);
              void fetch(`${base}/mcp/other`, {
                headers: {
                  accept: 'text/event-stream',
                  authorization: `Bearer ${key}`,
                  'mcp-session-id': sid,
                  'mcp-protocol-version': '2025-11-25',
                },
                signal: ac.signal,
              })
                .then((r) => r.body?.cancel())
                .catch(() => undefined);
            }
            await new Promise((r) => setTimeout(r, 100));
            check(
              fx.srv.app.sessions.stats().streams <= limits.perKey + 16,
              `streams: ${fx.srv.app.sessions.stats().streams}`,
            );
            await othersStillIn();
          } finally {
            for (const ac of streams) ac.abort();
          }
        }),
    },
  ];
}
