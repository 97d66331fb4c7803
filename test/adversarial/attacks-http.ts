// Attacks at the HTTP and JSON-RPC boundary: keys, URLs, Host/Origin, sessions, tool names, malformed requests.
import { OPS_TOKEN } from '../support/server.js';
import type { Ctx } from './context.js';
import {
  check,
  INIT,
  JSON_HEADERS,
  messagesOf,
  noLeak,
  raw,
  rawRpc,
  rawSession,
  redact,
  type Attack,
} from './harness.js';

const NOT_FOUND = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Not found' }, id: null });

export function httpAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const base = fx.srv.url;
  const out: Attack[] = [];
  const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

  // Every wrong way in gets the unknown-perimeter 404, byte for byte.
  const closed = (
    category: string,
    name: string,
    path: string,
    headers: Record<string, string>,
    method = 'POST',
    body: string | undefined = INIT,
  ): Attack => ({
    category,
    name,
    run: async () => {
      const r = await raw(base, {
        method,
        path,
        headers: { ...JSON_HEADERS, ...headers },
        ...(body === undefined ? {} : { body }),
      });
      check(r.status === 404, `status ${r.status}: ${r.text.slice(0, 200)}`);
      check(r.text === NOT_FOUND, `body differs from the unknown-perimeter 404: ${r.text.slice(0, 200)}`);
      check(r.headers['mcp-session-id'] === undefined, 'a session id was issued');
      noLeak(fx, r.text, { path, headers });
    },
  });
  const k = fx.keys;
  out.push(
    closed('auth', 'no Authorization header', '/mcp/app', {}),
    closed('auth', 'empty Bearer', '/mcp/app', { authorization: 'Bearer ' }),
    closed('auth', 'wrong key', '/mcp/app', bearer('gbk_0000_wrong')),
    closed('auth', 'key of another perimeter', '/mcp/app', bearer(k.other)),
    closed('auth', 'key of a narrower perimeter', '/mcp/app', bearer(k.narrow)),
    closed('auth', 'revoked key', '/mcp/app', bearer(k.revoked)),
    closed('auth', 'ops token on an agent URL', '/mcp/app', bearer(OPS_TOKEN)),
    closed('auth', 'GitHub token as a key', '/mcp/app', bearer('ghp_AdversarialEmulatorToken0123456789ab')),
    closed('auth', 'key with a suffix', '/mcp/app', bearer(`${k.app}x`)),
    closed('auth', 'truncated key', '/mcp/app', bearer(k.app.slice(0, -1))),
    closed('auth', 'upper-cased key', '/mcp/app', bearer(k.app.toUpperCase())),
    closed('auth', 'Basic scheme', '/mcp/app', {
      authorization: `Basic ${Buffer.from(`x:${k.app}`).toString('base64')}`,
    }),
    closed('auth', 'Token scheme', '/mcp/app', { authorization: `Token ${k.app}` }),
    closed('auth', 'two credentials in one header', '/mcp/app', { authorization: `Bearer wrong, Bearer ${k.app}` }),
    closed('auth', 'key in the query string', `/mcp/app?key=${k.app}&access_token=${k.app}`, {}),
    closed('auth', 'key in a cookie', '/mcp/app', { cookie: `key=${k.app}` }),
    closed('auth', 'key in X-Api-Key', '/mcp/app', { 'x-api-key': k.app }),
    closed('auth', 'unknown perimeter with a valid key', '/mcp/nope', bearer(k.app)),
    closed('auth', 'upper-case perimeter id', '/mcp/APP', bearer(k.app)),
    closed('auth', 'root surface with an agent key', '/mcp/root', bearer(k.app)),
    closed('auth', 'root surface without credentials', '/mcp/root', {}),
    closed('auth', 'root with a branch', '/mcp/root/main', bearer(OPS_TOKEN)),
    closed('auth', 'status GET without a key', '/mcp/app', {}, 'GET', undefined),
    closed('auth', 'event stream GET without a key', '/mcp/app', { accept: 'text/event-stream' }, 'GET', undefined),
    closed('auth', 'DELETE without a key', '/mcp/app', {}, 'DELETE', undefined),
    closed('url-pivot', 'non-allowlisted branch', '/mcp/app/feature-hidden', bearer(k.app)),
    closed('url-pivot', 'nonexistent branch', '/mcp/app/no-such-branch', bearer(k.app)),
    closed('url-pivot', 'raw dotdot in the URL', '/mcp/app/../other', bearer(k.app)),
    closed('url-pivot', 'encoded dotdot to another perimeter', '/mcp/app/..%2Fother', bearer(k.app)),
    closed('url-pivot', 'encoded dotdot to root', '/mcp/%2e%2e/root', bearer(k.app)),
    closed('url-pivot', 'encoded slash into root', '/mcp/app%2F..%2Froot', bearer(OPS_TOKEN)),
    closed(
      'url-pivot',
      'allowlisted branch then dotdot',
      '/mcp/app/feature%2Fok%2F..%2F..%2Ffeature-hidden',
      bearer(k.app),
    ),
    closed('url-pivot', 'full ref name as branch', '/mcp/app/refs%2Fheads%2Ffeature-hidden', bearer(k.app)),
    closed('url-pivot', 'HEAD as branch', '/mcp/app/HEAD', bearer(k.app)),
    closed('url-pivot', 'branch with revision syntax', '/mcp/app/feature-hidden~0', bearer(k.app)),
    closed('url-pivot', 'case variant of a branch', '/mcp/app/FEATURE%2FOK', bearer(k.app)),
    closed('url-pivot', 'NUL in the perimeter id', '/mcp/app%00', bearer(k.app)),
    closed('url-pivot', 'trailing slash then branch pivot', '/mcp/app//feature-hidden', bearer(k.app)),
  );
  out.push({
    category: 'url-pivot',
    name: 'undecodable escape answers as it does for an unknown perimeter',
    run: async () => {
      const a = await raw(base, {
        path: '/mcp/app/%E0%A4%A',
        headers: { ...JSON_HEADERS, ...bearer(k.app) },
        body: INIT,
      });
      const b = await raw(base, {
        path: '/mcp/nope/%E0%A4%A',
        headers: { ...JSON_HEADERS, ...bearer(k.app) },
        body: INIT,
      });
      check(
        a.status >= 400 && a.status === b.status && a.text === b.text,
        `${a.status} ${a.text} vs ${b.status} ${b.text}`,
      );
      check(a.headers['mcp-session-id'] === undefined, 'a session id was issued');
    },
  });
  out.push({
    category: 'indistinguishable',
    name: 'unknown perimeter vs non-allowlisted branch vs wrong key (initialize, status GET)',
    run: async () => {
      for (const [method, body] of [
        ['POST', INIT],
        ['GET', undefined],
      ] as const) {
        const answers = await Promise.all(
          [
            ['/mcp/nope', bearer(k.app)],
            ['/mcp/app/feature-hidden', bearer(k.app)],
            ['/mcp/app', bearer('wrong')],
          ].map(([path, h]) =>
            raw(base, {
              method,
              path: path as string,
              headers: { ...JSON_HEADERS, ...(h as Record<string, string>) },
              ...(body ? { body } : {}),
            }),
          ),
        );
        check(
          answers.every((a) => a.status === 404),
          `statuses ${answers.map((a) => a.status)}`,
        );
        check(new Set(answers.map((a) => a.text)).size === 1, 'bodies differ');
        const hs = answers.map((a) =>
          JSON.stringify([a.headers['content-type'], a.headers['content-length'], a.headers['www-authenticate']]),
        );
        check(new Set(hs).size === 1, `headers differ: ${hs.join(' | ')}`);
      }
    },
  });

  // Host and Origin: DNS rebinding and browser pages get 403.
  const forbidden = (name: string, path: string, headers: Record<string, string>): Attack => ({
    category: 'host-origin',
    name,
    run: async () => {
      const r = await raw(base, {
        path,
        method: path.startsWith('/api') ? 'GET' : 'POST',
        headers: { ...JSON_HEADERS, ...headers },
        ...(path.startsWith('/api') ? {} : { body: INIT }),
      });
      check(r.status === 403, `status ${r.status}`);
      noLeak(fx, r.text, headers);
    },
  });
  out.push(
    forbidden('foreign Host', '/mcp/app', { ...bearer(k.app), host: 'evil.example' }),
    forbidden('rebinding Host with a loopback prefix', '/mcp/app', { ...bearer(k.app), host: '127.0.0.1.nip.io' }),
    forbidden('Host localhost.evil', '/mcp/app', { ...bearer(k.app), host: 'localhost.evil.example:80' }),
    forbidden('foreign Origin', '/mcp/app', { ...bearer(k.app), origin: 'http://evil.example' }),
    forbidden('null Origin', '/mcp/app', { ...bearer(k.app), origin: 'null' }),
    forbidden('Origin with a loopback prefix', '/mcp/app', {
      ...bearer(k.app),
      origin: 'http://127.0.0.1.evil.example',
    }),
    forbidden('Origin with credentials in it', '/mcp/app', {
      ...bearer(k.app),
      origin: 'http://localhost@evil.example',
    }),
    forbidden('foreign Origin on root with the ops token', '/mcp/root', {
      ...bearer(OPS_TOKEN),
      origin: 'https://evil.example',
    }),
    forbidden('foreign Host on /api with the ops token', '/api/perimeters', {
      ...bearer(OPS_TOKEN),
      host: 'evil.example',
    }),
    forbidden('foreign Origin on /api with the ops token', '/api/perimeters', {
      ...bearer(OPS_TOKEN),
      origin: 'https://evil.example',
    }),
  );

  // Sessions are bound to the URL they were created on.
  const listBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'get_file', arguments: { path: 'secret/keys.txt' } },
  });
  const hop = (name: string, from: string, fromKey: string, to: string, toKey: string, method = 'POST'): Attack => ({
    category: 'session',
    name,
    run: async () => {
      const sid = await rawSession(base, from, fromKey);
      const r = await raw(base, {
        method,
        path: to,
        headers: { ...JSON_HEADERS, ...bearer(toKey), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        ...(method === 'POST' ? { body: listBody } : {}),
      });
      check(r.status === 404, `status ${r.status}: ${r.text.slice(0, 200)}`);
      noLeak(fx, r.text, {});
      // The session still works at home (a hop must not close or hijack it).
      const home = await rawRpc(
        base,
        from,
        fromKey,
        sid,
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
      );
      check(home.status === 200, `home session broken: ${home.status}`);
    },
  });
  out.push(
    hop('app session on the other perimeter', '/mcp/app', k.app, '/mcp/other', k.other),
    hop('other session on the app perimeter', '/mcp/other', k.other, '/mcp/app', k.app),
    hop('app session on an allowlisted branch URL', '/mcp/app', k.app, '/mcp/app/feature%2Fok', k.app),
    hop('branch session on the default-branch URL', '/mcp/app/feature%2Fok', k.app, '/mcp/app', k.app),
    hop('app session on the narrow perimeter', '/mcp/app', k.app, '/mcp/narrow', k.narrow),
    hop('narrow session on the app perimeter', '/mcp/narrow', k.narrow, '/mcp/app', k.app),
    hop('app session on root with the ops token', '/mcp/app', k.app, '/mcp/root', OPS_TOKEN),
    hop('root session on an agent URL', '/mcp/root', OPS_TOKEN, '/mcp/app', k.app),
    hop('DELETE of an app session from another URL', '/mcp/app', k.app, '/mcp/other', k.other, 'DELETE'),
    hop('event stream of an app session from another URL', '/mcp/app', k.app, '/mcp/other', k.other, 'GET'),
    hop('app session without its key', '/mcp/app', k.app, '/mcp/app', 'not-the-key'),
    {
      category: 'session',
      name: 'forged session id',
      run: async () => {
        const r = await rawRpc(base, '/mcp/app', k.app, '00000000-0000-4000-8000-000000000000', listBody);
        check(r.status === 404, `status ${r.status}`);
      },
    },
    {
      category: 'session',
      name: 'upper-cased session id',
      run: async () => {
        const sid = await rawSession(base, '/mcp/app', k.app);
        const r = await rawRpc(base, '/mcp/app', k.app, sid.toUpperCase(), listBody);
        check(r.status === 404 || sid.toUpperCase() === sid, `status ${r.status}`);
      },
    },
  );

  // Tools of another perimeter, root-only tools and look-alike names answer like tools that do not exist.
  const toolCall = (name: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: { repo: fx.repo, path: 'secret/keys.txt', base: 'main', head: 'feature-hidden' } },
    });
  const unknownLike = (perimeter: 'app' | 'narrow', name: string): Attack => ({
    category: 'tools',
    name: `${perimeter}: ${JSON.stringify(name)} answers like a nonexistent tool`,
    run: async () => {
      const key = perimeter === 'app' ? k.app : k.narrow;
      const sid = await rawSession(base, `/mcp/${perimeter}`, key);
      const a = await rawRpc(base, `/mcp/${perimeter}`, key, sid, toolCall(name));
      const b = await rawRpc(base, `/mcp/${perimeter}`, key, sid, toolCall('no_such_tool'));
      const ma = messagesOf(a.text);
      const mb = messagesOf(b.text);
      check(ma.length === 1 && ma[0].error !== undefined, `not a JSON-RPC error: ${a.text.slice(0, 200)}`);
      check(a.status === b.status, `status ${a.status} vs ${b.status}`);
      check(
        redact(JSON.stringify(ma), JSON.stringify(name).slice(1, -1)) === redact(JSON.stringify(mb), 'no_such_tool'),
        `differs: ${JSON.stringify(ma)} vs ${JSON.stringify(mb)}`,
      );
      noLeak(fx, a.text, { name, repo: fx.repo, path: 'secret/keys.txt', b: 'feature-hidden' });
    },
  });
  for (const name of ['list_branches', 'compare']) out.push(unknownLike('app', name), unknownLike('narrow', name));
  for (const name of ['get_tree', 'get_files', 'push_files', 'list_commits', 'get_commit'])
    out.push(unknownLike('narrow', name));
  for (const name of ['GET_FILE', 'get_file ', 'get_file\u0000', 'root/list_branches', 'get_files/../list_branches'])
    out.push(unknownLike('app', name));
  // The SDK looks tool names up in a plain object: `__proto__` and `constructor` answer "disabled" instead of "not
  // found". That tells nothing about this server's policy, but they must still run nothing and leak nothing.
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    out.push({
      category: 'tools',
      name: `app: prototype name ${name} runs nothing`,
      run: async () => {
        const sid = await rawSession(base, '/mcp/app', k.app);
        const m = messagesOf((await rawRpc(base, '/mcp/app', k.app, sid, toolCall(name))).text);
        check(
          m.length === 1 && m[0].error !== undefined && m[0].result === undefined,
          `answered: ${JSON.stringify(m).slice(0, 200)}`,
        );
        noLeak(fx, JSON.stringify(m), { name, repo: fx.repo, path: 'secret/keys.txt', b: 'feature-hidden' });
      },
    });
  }
  out.push({
    category: 'tools',
    name: 'tools/list on the narrow perimeter shows its one tool',
    run: async () => {
      const sid = await rawSession(base, '/mcp/narrow', k.narrow);
      const r = await rawRpc(
        base,
        '/mcp/narrow',
        k.narrow,
        sid,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      );
      const names = messagesOf(r.text)[0]?.result?.tools?.map((t: { name: string }) => t.name);
      check(JSON.stringify(names) === '["get_file"]', `tools ${JSON.stringify(names)}`);
      noLeak(fx, r.text, {});
    },
  });

  out.push(...jsonRpcAttacks(ctx));
  return out;
}

function jsonRpcAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const base = fx.srv.url;
  const key = fx.keys.app;
  const call = (args: unknown, name = 'get_file') =>
    JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: args } });
  // A malformed request gets an error (HTTP or JSON-RPC or tool error) and leaks nothing; the server keeps serving.
  const malformed = (
    name: string,
    body: string | Buffer,
    opts: { session?: boolean; headers?: Record<string, string>; status?: number } = {},
  ): Attack => ({
    category: 'json-rpc',
    name,
    run: async () => {
      const sid = opts.session === false ? undefined : await rawSession(base, '/mcp/app', key);
      const r = await raw(base, {
        path: '/mcp/app',
        headers: {
          ...JSON_HEADERS,
          authorization: `Bearer ${key}`,
          ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } : {}),
          ...opts.headers,
        },
        body,
      });
      if (opts.status !== undefined) check(r.status === opts.status, `status ${r.status}, wanted ${opts.status}`);
      const msgs = messagesOf(r.text);
      // Refused outright, or answered with errors only; a 202 with no body executed nothing either.
      const executed = msgs.some((m) => m.result !== undefined && m.result.isError !== true);
      check(!executed && r.status < 500, `accepted (${r.status}): ${r.text.slice(0, 200)}`);
      check(
        r.status >= 400 || msgs.length > 0 || (r.status === 202 && r.text === ''),
        `odd answer (${r.status}): ${r.text.slice(0, 200)}`,
      );
      check(!/at .*\.(js|ts):\d+/.test(r.text) && !r.text.includes('<html'), 'stack trace or HTML in the answer');
      noLeak(fx, r.text, body.length < 100_000 ? body.toString() : '');
      const alive = await raw(base, { method: 'GET', path: '/mcp' });
      check(alive.status === 200, 'server stopped answering');
    },
  });
  return [
    malformed('invalid JSON', '{"jsonrpc":"2.0",', { status: 400 }),
    malformed('invalid JSON without a session', '{"jsonrpc":', { session: false, status: 400 }),
    malformed('huge body (9 MB)', Buffer.alloc(9 * 1024 * 1024, 0x20), { status: 413 }),
    malformed('huge JSON string argument', call({ path: 'a'.repeat(9 * 1024 * 1024) }), { status: 413 }),
    malformed('deeply nested arrays', '['.repeat(20_000) + ']'.repeat(20_000)),
    malformed(
      'batch of tool calls',
      JSON.stringify([JSON.parse(call({ path: 'secret/keys.txt' })), JSON.parse(call({ path: 'app/.env' }))]),
    ),
    malformed('batch with initialize', `[${INIT},${call({ path: 'secret/keys.txt' })}]`, { session: false }),
    malformed('empty batch', '[]'),
    malformed('arguments as a string', call('secret/keys.txt')),
    malformed('arguments as an array', call(['secret/keys.txt'])),
    malformed('arguments null', call(null)),
    malformed(
      'tool name as a number',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 42, arguments: {} } }),
    ),
    malformed(
      'tool name missing',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { arguments: { path: 'secret/keys.txt' } },
      }),
    ),
    malformed('params missing', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' })),
    malformed(
      'jsonrpc 1.0',
      JSON.stringify({
        jsonrpc: '1.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_file', arguments: { path: 'secret/keys.txt' } },
      }),
    ),
    malformed(
      'id as an object',
      JSON.stringify({
        jsonrpc: '2.0',
        id: { $gt: 0 },
        method: 'tools/call',
        params: { name: 'get_file', arguments: { path: 'secret/keys.txt' } },
      }),
    ),
    malformed(
      'unknown method',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///etc/passwd' } }),
    ),
    malformed('tools/call without a session', call({ path: 'secret/keys.txt' }), { session: false, status: 400 }),
    malformed('text/plain body', call({ path: 'secret/keys.txt' }), { headers: { 'content-type': 'text/plain' } }),
    malformed(
      'prototype pollution body',
      '{"__proto__":{"isError":false,"surface":"root"},"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_file","arguments":{"path":"secret/keys.txt"}}}',
    ),
    malformed('path as a number', call({ path: 42 })),
    malformed('path as an object', call({ path: { toString: 'secret/keys.txt' } })),
    malformed('path as an array', call({ path: ['secret', 'keys.txt'] })),
    malformed('path null', call({ path: null })),
    malformed('paths as a string', call({ paths: 'secret/keys.txt' }, 'get_files')),
    malformed('recursive as a string', call({ path: 'secret', recursive: 'true' }, 'get_tree')),
    malformed('files as an object', call({ message: 'x', files: { path: 'app/x.ts', content: 'x' } }, 'push_files')),
    malformed('content as a number', call({ message: 'x', files: [{ path: 'app/x.ts', content: 1 }] }, 'push_files')),
    malformed(
      'unknown encoding',
      call({ message: 'x', files: [{ path: 'app/x.ts', content: '00', encoding: 'hex' }] }, 'push_files'),
    ),
    malformed('unknown extra argument', call({ path: 'app/main.ts', recursive: true })),
  ];
}
