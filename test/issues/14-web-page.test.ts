// Issue 14: the operator web page at the HTTP level — headers on every answer, sign-in with the ops token only,
// CSRF on every POST, no session fixation, cookie rules. The browser tests (test/web) cover the same page in chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { WebSessions } from '../../src/http/web/sessions.js';
import { memoryWebSessions } from '../../src/state/file/index.js';
import { OPS_TOKEN } from '../support/server.js';
import { startWebServer, type WebServer } from '../support/web.js';

let web: WebServer;
let agentKey = '';

beforeAll(async () => {
  web = await startWebServer([{ message: 'init', files: { 'docs/a.md': 'a\n' } }]);
  agentKey = (await web.srv.api('POST', '/api/perimeters/app/keys')).json.key;
});
afterAll(() => web?.close());

const cookiesOf = (r: Response): Record<string, string> =>
  Object.fromEntries(r.headers.getSetCookie().map((c) => (c.split(';')[0] ?? '').split('=') as [string, string]));

async function get(path: string, cookie = ''): Promise<Response> {
  return fetch(`${web.srv.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
}
async function post(
  path: string,
  form: Record<string, string>,
  cookie = '',
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${web.srv.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    body: new URLSearchParams(form).toString(),
  });
}
const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Signs in like the form does; answers the session cookie and the page's CSRF token. */
async function signIn(token = OPS_TOKEN, extraCookie = ''): Promise<{ res: Response; cookie: string; csrf: string }> {
  const form = await get('/ui/signin');
  const pre = `gb_ui_pre=${cookiesOf(form).gb_ui_pre}`;
  const res = await post(
    '/ui/signin',
    { csrf: csrfIn(await form.text()), token },
    [pre, extraCookie].filter(Boolean).join('; '),
  );
  const session = cookiesOf(res).gb_ui_session;
  const cookie = session ? `gb_ui_session=${session}` : '';
  const page = cookie ? await get('/ui/proposals', cookie) : undefined;
  return { res, cookie, csrf: page ? csrfIn(await page.text()) : '' };
}

describe('issue 14: the /ui page over HTTP', () => {
  it('every answer carries the strict headers: pages, redirects, refusals, the stylesheet and unknown pages', async () => {
    const { cookie } = await signIn();
    const foreignOrigin = await post('/ui/signin', {}, '', { origin: 'http://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    const badJson = await fetch(`${web.srv.url}/ui/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    for (const r of [
      await get('/ui/signin'),
      await get('/ui/proposals'),
      await get('/ui/static/app.css'),
      await get('/ui/nope', cookie),
      await post('/ui/signin', {}),
      await get('/ui/proposals', cookie),
      foreignOrigin,
      badJson,
    ]) {
      expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(r.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('signs in with the ops token only: an agent key, an empty token or a wrong form token opens nothing', async () => {
    const ok = await signIn();
    expect(ok.res.status).toBe(303);
    expect(ok.res.headers.get('location')).toBe('/ui/proposals');
    const set = ok.res.headers.getSetCookie().find((c) => c.startsWith('gb_ui_session='));
    expect(set).toMatch(/; Path=\/ui; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    for (const token of [agentKey, '', `${OPS_TOKEN}x`, OPS_TOKEN.toUpperCase()]) {
      const r = await signIn(token);
      expect(r.res.status).toBe(401);
      expect(r.cookie).toBe('');
      expect(await r.res.text()).toContain('Sign-in failed');
    }
    // The form token is bound to the browser's pre-session cookie: another browser's token does not fit.
    const other = await get('/ui/signin');
    const mine = await get('/ui/signin');
    const r = await post(
      '/ui/signin',
      { csrf: csrfIn(await other.text()), token: OPS_TOKEN },
      `gb_ui_pre=${cookiesOf(mine).gb_ui_pre}`,
    );
    expect(r.status).toBe(403);
    expect(cookiesOf(r).gb_ui_session).toBeUndefined();
  });

  it('a new session id on every sign-in (the old one ends); a planted or duplicated cookie is never a session', async () => {
    const a = await signIn();
    const b = await signIn(OPS_TOKEN, a.cookie);
    expect(a.cookie).not.toBe(b.cookie);
    expect((await get('/ui/proposals', a.cookie)).status).toBe(303);
    const c = await signIn();
    expect((await get('/ui/proposals', 'gb_ui_session=planted-by-someone-else')).status).toBe(303);
    expect((await get('/ui/proposals', `${c.cookie}; gb_ui_session=other`)).status).toBe(303);
    expect((await get('/ui/proposals', c.cookie)).status).toBe(200);
  });

  it('every POST needs the session and its CSRF token; other content types and cross-site fetches are refused', async () => {
    const p = await web.propose([{ path: 'docs/a.md', content: 'b\n' }]);
    const { cookie, csrf } = await signIn();
    const approve = `/ui/proposals/${p.id}/approve`;
    expect((await post(approve, { hash: p.hash })).status).toBe(403);
    expect((await post(approve, { hash: p.hash }, cookie)).status).toBe(403);
    expect((await post(approve, { hash: p.hash, csrf: `${csrf}x` }, cookie)).status).toBe(403);
    expect((await post(approve, { hash: p.hash, csrf }, cookie, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(approve, { hash: p.hash, csrf }, cookie, { origin: 'http://evil.example' })).status).toBe(403);
    const json = await fetch(`${web.srv.url}${approve}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ hash: p.hash, csrf }),
    });
    expect(json.status).toBe(415);
    expect((await web.proposals.get(p.id))?.status).toBe('pending');
    // A hash that is not the proposal's is refused by the service; the right one applies.
    const wrong = await post(approve, { hash: `sha256:${'0'.repeat(64)}`, csrf }, cookie);
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect((await web.proposals.get(p.id))?.status).toBe('pending');
    const right = await post(approve, { hash: p.hash, csrf }, cookie);
    expect(right.status).toBe(303);
    expect((await web.proposals.get(p.id))?.status).toBe('applied');
  });

  it('a rejection needs a reason; sign-out ends the session on the server', async () => {
    const p = await web.propose([{ path: 'docs/c.md', content: 'c\n' }]);
    const { cookie, csrf } = await signIn();
    const empty = await post(`/ui/proposals/${p.id}/reject`, { csrf, reason: '   ' }, cookie);
    expect(empty.status).toBe(400);
    expect((await web.proposals.get(p.id))?.status).toBe('pending');
    expect((await post('/ui/signout', { csrf }, cookie)).status).toBe(303);
    expect((await get('/ui/proposals', cookie)).status).toBe(303);
    expect((await post(`/ui/proposals/${p.id}/reject`, { csrf, reason: 'late' }, cookie)).status).toBe(403);
    expect((await web.proposals.get(p.id))?.status).toBe('pending');
  });

  it('unknown proposals and files are a 404 page that repeats nothing from the URL', async () => {
    const { cookie } = await signIn();
    for (const path of [
      '/ui/proposals/%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '/ui/proposals/pzzzzzzzzzzzzzzzzzzzzzzzz/files/0',
      '/ui/%3Cb%3E',
    ]) {
      const r = await get(path, cookie);
      expect(r.status).toBe(404);
      const text = await r.text();
      expect(text).not.toContain('<script>alert');
      expect(text).not.toContain('<b>');
    }
  });
});

describe('web sessions', () => {
  it('expire when idle, at their absolute age, and the least recently used gives way at the cap', async () => {
    let t = 0;
    const key = new Uint8Array(randomBytes(32));
    const s = new WebSessions(
      memoryWebSessions(() => t),
      async () => key,
      { idleMs: 100, maxAgeMs: 1_000, max: 2 },
    );
    const a = await s.create();
    t = 99;
    expect(await s.get(a.id)).toBeDefined();
    t = 200;
    expect(await s.get(a.id)).toBeUndefined();
    const b = await s.create();
    for (t = 250; t <= 1_150; t += 50) expect(await s.get(b.id)).toBeDefined();
    t = 1_201;
    expect(await s.get(b.id)).toBeUndefined();
    const c = await s.create();
    t += 1;
    const d = await s.create();
    t += 1;
    await s.get(c.id);
    const e = await s.create();
    expect((await Promise.all([s.get(c.id), s.get(d.id), s.get(e.id)])).map(Boolean)).toEqual([true, false, true]);
    expect(c.csrf).not.toBe(c.id);
    expect((await s.get(c.id))?.csrf).toBe(c.csrf);
    expect(await s.signInTokenMatches('pre', await s.signInToken('pre'))).toBe(true);
    expect(await s.signInTokenMatches('pre2', await s.signInToken('pre'))).toBe(false);
    // The sign-in token of a value is never the CSRF token of a session with that id.
    expect(await s.signInToken(c.id)).not.toBe(c.csrf);
  });
});
