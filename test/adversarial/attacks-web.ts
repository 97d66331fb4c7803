// Attacks on the operator web page (/ui): agent keys where the ops token belongs, forged and cross-site posts,
// cookie games, body floods, DNS rebinding, and an agent's hostile proposal rendered for the operator.
import { OPS_TOKEN } from '../support/server.js';
import type { Ctx } from './context.js';
import { check, noLeak, raw, type Attack, type RawAnswer } from './harness.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const setCookies = (r: RawAnswer): string[] => ([] as string[]).concat(r.headers['set-cookie'] ?? []);
const cookieFrom = (r: RawAnswer, name: string): string | undefined =>
  setCookies(r)
    .map((c) => (c.split(';')[0] ?? '').split('='))
    .find(([n, v]) => n === name && v)?.[1];
const csrfIn = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';

export function webAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const base = fx.srv.url;
  const k = fx.keys;

  /** Signs in with `token` through the real form; the session cookie (or undefined) and the answer. */
  const signIn = async (token: string) => {
    const page = await raw(base, { method: 'GET', path: '/ui/signin' });
    const pre = cookieFrom(page, 'gb_ui_pre');
    const r = await raw(base, {
      path: '/ui/signin',
      headers: { ...FORM, cookie: `gb_ui_pre=${pre}` },
      body: form({ csrf: csrfIn(page.text), token }),
    });
    const session = cookieFrom(r, 'gb_ui_session');
    return { r, cookie: session ? `gb_ui_session=${session}` : undefined };
  };
  const operator = async () => {
    const { cookie } = await signIn(OPS_TOKEN);
    check(cookie !== undefined, 'the ops token did not sign in');
    const page = await raw(base, { method: 'GET', path: '/ui/proposals', headers: { cookie } });
    return { cookie, csrf: csrfIn(page.text) };
  };
  const pending = async () => {
    const p = await fx.propose();
    return { p, before: await fx.heads() };
  };
  /** The proposal is still pending and no branch moved. */
  const untouched = async (id: string, before: string) => {
    check((await fx.proposals.get(id))?.status === 'pending', 'the proposal left pending');
    check((await fx.heads()) === before, 'a branch moved');
  };

  const out: Attack[] = [];
  for (const [name, token] of [
    ['app key', k.app],
    ['narrow key', k.narrow],
    ['other perimeter key', k.other],
    ['revoked key', k.revoked],
    ['GitHub token', 'ghp_AdversarialEmulatorToken0123456789ab'],
    ['ops token with a suffix', `${OPS_TOKEN} `],
    ['ops token and an agent key', `${OPS_TOKEN},${k.app}`],
  ] as const) {
    out.push({
      category: 'web-auth',
      name: `sign in with the ${name}`,
      run: async () => {
        const { r, cookie } = await signIn(token);
        check(r.status === 401, `status ${r.status}`);
        check(cookie === undefined, 'a session cookie was set');
        noLeak(fx, r.text, {});
      },
    });
  }
  for (const [name, headers] of [
    ['agent key as Bearer', { authorization: `Bearer ${k.app}` }],
    ['ops token as Bearer', { authorization: `Bearer ${OPS_TOKEN}` }],
    ['agent key as the session cookie', { cookie: `gb_ui_session=${k.app}` }],
    ['ops token as the session cookie', { cookie: `gb_ui_session=${OPS_TOKEN}` }],
    ['agent key in X-Api-Key', { 'x-api-key': k.app }],
  ] as const) {
    for (const path of ['/ui/proposals', '/ui/console']) {
      out.push({
        category: 'web-auth',
        name: `${name} on ${path}`,
        run: async () => {
          const r = await raw(base, { method: 'GET', path, headers });
          check(
            r.status === 303 && r.headers.location === '/ui/signin',
            `status ${r.status} ${String(r.headers.location)}`,
          );
          check(!r.text.includes('<table'), 'a page was served');
        },
      });
    }
  }

  // Forged decisions: each must leave the proposal pending and every branch where it was.
  const forged = (
    name: string,
    send: (id: string, hash: string, op: { cookie: string; csrf: string }) => Promise<RawAnswer>,
    expected: number[],
  ): Attack => ({
    category: 'web-csrf',
    name,
    run: async () => {
      const { p, before } = await pending();
      const op = await operator();
      const r = await send(p.id, p.hash, op);
      check(expected.includes(r.status), `status ${r.status}: ${r.text.slice(0, 200)}`);
      await untouched(p.id, before);
    },
  });
  const approve = (id: string) => `/ui/proposals/${id}/approve`;
  out.push(
    forged(
      'approve without a session',
      (id, hash) => raw(base, { path: approve(id), headers: FORM, body: form({ hash }) }),
      [403],
    ),
    forged(
      'approve without the CSRF token',
      (id, hash, op) => raw(base, { path: approve(id), headers: { ...FORM, cookie: op.cookie }, body: form({ hash }) }),
      [403],
    ),
    forged(
      'approve with the token in the query string',
      (id, hash, op) =>
        raw(base, {
          path: `${approve(id)}?csrf=${op.csrf}`,
          headers: { ...FORM, cookie: op.cookie },
          body: form({ hash }),
        }),
      [403],
    ),
    forged(
      'approve with the token as a cookie (double submit)',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: `${op.cookie}; csrf=${op.csrf}` },
          body: form({ hash }),
        }),
      [403],
    ),
    forged(
      'approve with two CSRF fields',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie },
          body: `csrf=${op.csrf}&csrf=x&hash=${encodeURIComponent(hash)}`,
        }),
      [403],
    ),
    forged(
      'approve with another session’s token',
      async (id, hash, op) => {
        const other = await operator();
        return raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie },
          body: form({ csrf: other.csrf, hash }),
        });
      },
      [403],
    ),
    forged(
      'approve from a foreign Origin',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie, origin: 'http://evil.example' },
          body: form({ csrf: op.csrf, hash }),
        }),
      [403],
    ),
    forged(
      'approve from Origin null',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie, origin: 'null' },
          body: form({ csrf: op.csrf, hash }),
        }),
      [403],
    ),
    forged(
      'approve marked cross-site by the browser',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie, 'sec-fetch-site': 'cross-site' },
          body: form({ csrf: op.csrf, hash }),
        }),
      [403],
    ),
    forged(
      'approve as text/plain (a CORS-simple cross-site body)',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { 'content-type': 'text/plain', cookie: op.cookie },
          body: form({ csrf: op.csrf, hash }),
        }),
      [415],
    ),
    forged(
      'approve as JSON',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { 'content-type': 'application/json', cookie: op.cookie },
          body: JSON.stringify({ csrf: op.csrf, hash }),
        }),
      [415],
    ),
    forged(
      'approve through a rebinding Host',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie, host: 'evil.example' },
          body: form({ csrf: op.csrf, hash }),
        }),
      [403],
    ),
    forged(
      'approve a different change than the one shown',
      (id, _hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie },
          body: form({ csrf: op.csrf, hash: `sha256:${'1'.repeat(64)}` }),
        }),
      [400, 409],
    ),
    forged(
      'approve with a 100 KB body',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie },
          body: form({ csrf: op.csrf, hash, pad: 'x'.repeat(100_000) }),
        }),
      [413],
    ),
    forged(
      'approve with a parameter flood',
      (id, hash, op) =>
        raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie },
          body: `${form({ csrf: op.csrf, hash })}&${Array.from({ length: 100 }, (_, i) => `p${i}=1`).join('&')}`,
        }),
      [413],
    ),
    forged(
      'approve after sign-out',
      async (id, hash, op) => {
        await raw(base, {
          path: '/ui/signout',
          headers: { ...FORM, cookie: op.cookie },
          body: form({ csrf: op.csrf }),
        });
        return raw(base, {
          path: approve(id),
          headers: { ...FORM, cookie: op.cookie },
          body: form({ csrf: op.csrf, hash }),
        });
      },
      [403],
    ),
  );

  out.push(
    {
      category: 'web-auth',
      name: 'a sign-in form token replayed without its pre-session cookie',
      run: async () => {
        const page = await raw(base, { method: 'GET', path: '/ui/signin' });
        const r = await raw(base, {
          path: '/ui/signin',
          headers: FORM,
          body: form({ csrf: csrfIn(page.text), token: OPS_TOKEN }),
        });
        check(r.status === 403 && cookieFrom(r, 'gb_ui_session') === undefined, `status ${r.status}`);
      },
    },
    {
      category: 'web-url',
      name: 'dot segments from /ui into /api',
      run: async () => {
        const op = await operator();
        for (const path of ['/ui/../api/health', '/ui/%2e%2e/api/health', '/ui/static/..%2f..%2fapi/health']) {
          const r = await raw(base, { method: 'GET', path, headers: { cookie: op.cookie } });
          check(!r.text.includes('"uptime_s"'), `${path} reached the operator API`);
        }
      },
    },
    {
      category: 'web-render',
      name: 'an agent’s hostile proposal renders as text for the operator',
      run: async () => {
        const { p } = await pending();
        const op = await operator();
        const r = await raw(base, { method: 'GET', path: `/ui/proposals/${p.id}`, headers: { cookie: op.cookie } });
        check(r.status === 200, `status ${r.status}`);
        check(!/<script|<img|<b>|\u202E/i.test(r.text), 'agent text became markup or kept its bidi override');
        check(
          r.text.includes('&lt;script&gt;') && r.text.includes('⟨U+202E⟩'),
          'the hostile text is not shown escaped',
        );
      },
    },
  );
  return out;
}
