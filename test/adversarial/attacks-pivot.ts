// Attacks that try to reach another endpoint than the one admitted (issue 9 item 1): a Host carrying a path, absolute
// and protocol-relative request targets, proxy headers, doubled and encoded slashes, in both protocol eras. Each one
// holds only perimeter app's key (or, for the root rows, the ops token against an unregistered repository).
import { makeRepo } from '../support/gitdir.js';
import { OPS_TOKEN } from '../support/server.js';
import type { Ctx } from './context.js';
import { check, INIT, JSON_HEADERS, noLeak, raw, type Attack } from './harness.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'pivot', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Every pivot attack: the request must be refused, or answered by perimeter app's own server. */
export function pivotAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const base = fx.srv.url;
  const port = new URL(base).port;
  const here = `127.0.0.1:${port}`;
  const out: Attack[] = [];

  // A 2026-07-28 call that only the root surface or perimeter `other` could answer with a hidden file.
  const modern = (args: Record<string, unknown>) => ({
    headers: {
      ...JSON_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_file',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'get_file', arguments: args, _meta: META },
    }),
  });
  const asRoot = modern({ repo: fx.repo, path: 'secret/keys.txt' });
  const asOther = modern({ path: 'secret/keys.txt' });

  // The answer may be a refusal (4xx) or app's own "not found"; never a file, never a session.
  const pivot = (
    name: string,
    o: { path?: string; headers: Record<string, string>; body?: string; method?: string; allow?: number[] },
  ): Attack => ({
    category: 'pivot',
    name,
    run: async () => {
      const r = await raw(base, {
        method: o.method ?? 'POST',
        path: o.path ?? '/mcp/app',
        headers: { authorization: `Bearer ${fx.keys.app}`, ...o.headers },
        ...(o.body === undefined ? {} : { body: o.body }),
      });
      const allowed = o.allow ?? [400];
      check(allowed.includes(r.status), `status ${r.status}: ${r.text.slice(0, 200)}`);
      check(r.headers['mcp-session-id'] === undefined, 'a session id was issued');
      check(!r.text.includes('CANARY_SECRET'), `served a hidden file: ${r.text.slice(0, 200)}`);
      noLeak(fx, r.text, { name, path: o.path, body: o.body, port });
    },
  });

  const hostilehosts: [string, string][] = [
    ['path to root', `${here}/mcp/root?`],
    ['path to root with a fragment', `${here}/mcp/root#`],
    ['path to root, no port', '127.0.0.1/mcp/root?x='],
    ['path to another perimeter', `${here}/mcp/other?`],
    ['encoded path to root', `${here}%2Fmcp%2Froot?`],
    ['backslash path to root', `${here}\\mcp\\root?`],
    ['userinfo before the host', `evil@${here}`],
    ['userinfo carrying root', `x:y@${here}/mcp/root?`],
    ['space then a path', `${here} /mcp/root`],
    ['tab then a path', `${here}\t/mcp/root`],
    ['query only', `${here}?a=b`],
    ['port out of range', '127.0.0.1:99999'],
    ['two ports', `${here}:1`],
    ['empty port then path', '127.0.0.1:/mcp/root?'],
    ['IPv6 literal with a path', `[::1]:${port}/mcp/root?`],
    ['comma-joined hosts', `${here},evil.example`],
  ];
  for (const [what, host] of hostilehosts) {
    out.push(pivot(`modern call, Host ${what}`, { headers: { ...asRoot.headers, host }, body: asRoot.body }));
    out.push(pivot(`legacy initialize, Host ${what}`, { headers: { ...JSON_HEADERS, host }, body: INIT }));
  }
  out.push(
    pivot('Host with a path on /api, ops token', {
      path: '/api/perimeters',
      method: 'GET',
      headers: { host: `${here}/api/perimeters?`, authorization: `Bearer ${OPS_TOKEN}` },
    }),
    pivot('Host with a path on GET /mcp', { path: '/mcp', method: 'GET', headers: { host: `${here}/mcp/root?` } }),
  );

  // Request targets that are not a plain path.
  for (const [what, path] of [
    ['absolute URI to root', `http://${here}/mcp/root`],
    ['absolute URI to app', `http://${here}/mcp/app`],
    ['absolute URI on another host', 'http://evil.example/mcp/app'],
    ['protocol-relative to root', `//${here}/mcp/root`],
    ['protocol-relative to app', `//${here}/mcp/app`],
    ['asterisk form', '*'],
  ] as const) {
    out.push(
      pivot(`modern call, target ${what}`, { path, headers: { ...asRoot.headers, host: here }, body: asRoot.body }),
    );
  }

  // Proxy and rewrite headers are not routing input: the call is served by app, which cannot see the file.
  for (const [header, value] of [
    ['x-forwarded-host', `${here}/mcp/root?`],
    ['x-forwarded-host', 'evil.example'],
    ['x-forwarded-prefix', '/mcp/root'],
    ['x-forwarded-uri', '/mcp/root'],
    ['x-original-url', '/mcp/root'],
    ['x-rewrite-url', '/mcp/other'],
    ['forwarded', `host="${here}/mcp/root?";proto=http`],
    ['x-forwarded-proto', 'https'],
  ] as const) {
    out.push(
      pivot(`modern call, ${header}: ${value}`, {
        headers: { ...asRoot.headers, host: here, [header]: value },
        body: asRoot.body,
        allow: [200],
      }),
    );
  }

  // Slashes: doubled, encoded, or carried in the id itself; none may name root or perimeter other.
  for (const [what, path, allow] of [
    ['double slash before root', '//mcp/root', [400]],
    ['double slash inside', '/mcp//root', [404]],
    ['trailing double slash', '/mcp/app//', [404]],
    ['encoded slash to root in the id', '/mcp/app%2F..%2Froot', [404]],
    ['encoded slash to other in the id', '/mcp/app%2F..%2Fother', [404]],
    ['encoded id of other', '/mcp/%6fther', [404]],
    ['encoded dot segments', '/mcp/%2e%2e/other', [404]],
    ['dot segment in the branch', '/mcp/app/..', [404]],
    ['NUL in the id', '/mcp/app%00/other', [404]],
  ] as [string, string, number[]][]) {
    out.push(
      pivot(`modern call to ${what}`, { path, headers: { ...asOther.headers, host: here }, body: asOther.body, allow }),
    );
  }

  // Browser pages served by another local process (issue 9 item 12): only the server's own origin is admitted.
  for (const origin of [
    'http://localhost:5173',
    `http://localhost:${Number(port) + 1}`,
    'http://127.0.0.1:80',
    'http://localhost',
    `https://127.0.0.1:${port}`,
    `http://[::1]:${Number(port) - 1}`,
  ]) {
    out.push(pivot(`Origin ${origin}`, { headers: { ...JSON_HEADERS, host: here, origin }, body: INIT, allow: [403] }));
  }

  // The ops token opens only repositories the operator registered, not a git directory named by the caller.
  const rootPath = (
    what: string,
    repoOf: string | (() => Promise<{ repo: string; done: () => Promise<void> }>),
  ): Attack => ({
    category: 'pivot',
    name: `root: ${what}`,
    run: async () => {
      const made = typeof repoOf === 'string' ? { repo: repoOf, done: async () => undefined } : await repoOf();
      const repo = made.repo;
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'list_branches', arguments: { repo }, _meta: META },
      });
      const r = await raw(base, {
        path: '/mcp/root',
        headers: {
          ...JSON_HEADERS,
          host: here,
          authorization: `Bearer ${OPS_TOKEN}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'list_branches',
        },
        body,
      });
      await made.done();
      check(r.status === 200, `status ${r.status}: ${r.text.slice(0, 200)}`);
      check(
        r.text.includes('"isError":true') && !r.text.includes('stray-branch'),
        `opened ${repo}: ${r.text.slice(0, 200)}`,
      );
    },
  });
  out.push(
    rootPath('the parent of the served repository', `${fx.bare}/..`),
    rootPath('the server state directory', fx.srv.stateDir),
    rootPath('/etc', '/etc'),
    rootPath('an unregistered GitHub name', 'acme/unregistered'),
    rootPath('a real repository nobody registered', async () => {
      const g = await makeRepo([
        { message: 'stray', files: { 'x.txt': 'x\n' } },
        { message: 'stray branch', branch: 'stray-branch', files: { 'y.txt': 'y\n' } },
      ]);
      return { repo: g.dir, done: () => g.cleanup() };
    }),
  );
  return out;
}
