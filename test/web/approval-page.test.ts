// The approval page in a real browser: Debian's chromium, driven by playwright-core, against a real server on loopback.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { haveChromium, launchBrowser, type Browser } from '../support/browser.js';
import { OPS_TOKEN } from '../support/server.js';
import { startWebServer, type WebServer } from '../support/web.js';

const RTL = '\u202E';
const HOSTILE_NAME = `docs/<script>window.__pwned=1</script>${RTL}gpj.exe`;
const HOSTILE_CONTENT = `</pre></span><script>window.__pwned=2</script><img src=x onerror="window.__pwned=3">\nsafe ${RTL}reversed\n`;
const BIG = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

const browserReady = haveChromium();

describe.skipIf(!browserReady)('approval page in chromium', { timeout: 60_000 }, () => {
  let web: WebServer;
  let browser: Browser;
  let evil: Server;
  let evilUrl = '';
  let agentKey = '';

  beforeAll(async () => {
    web = await startWebServer([
      { message: 'init', files: { 'docs/readme.md': 'hello\nworld\n', 'docs/big.txt': 'old\n' } },
    ]);
    const k = await web.srv.api('POST', '/api/perimeters/app/keys');
    agentKey = k.json.key;
    browser = await launchBrowser();
    // Another site (another host name and port): its page posts a form at ours, as a malicious page would.
    evil = createServer((req, res) => {
      const target = decodeURIComponent((req.url ?? '/').slice(1));
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${target}"><input name="reason" value="forged"><input name="hash" value="x"></form><button id="go" onclick="document.getElementById('f').submit()">go</button>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
    const addr = evil.address();
    evilUrl = `http://localhost:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (evil ? evil.close(() => r()) : r()));
    await web?.close();
  });

  const signIn = async (page: Page, token = OPS_TOKEN) => {
    await page.goto(`${web.srv.url}/ui/`);
    expect(new URL(page.url()).pathname).toBe('/ui/signin');
    await page.fill('#token', token);
    await page.click('button[type=submit]');
  };
  const watchForScript = (page: Page) => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return dialogs;
  };

  it('an agent key cannot sign in, and a Bearer header does not open the page', async () => {
    const page = await browser.context.newPage();
    await signIn(page, agentKey);
    expect(await page.locator('[role=alert]').textContent()).toContain('Sign-in failed');
    expect(new URL(page.url()).pathname).toBe('/ui/signin');
    const cookies = await browser.context.cookies(`${web.srv.url}/ui/`);
    expect(cookies.map((c) => c.name)).not.toContain('gb_ui_session');
    for (const token of [agentKey, OPS_TOKEN]) {
      const r = await fetch(`${web.srv.url}/ui/proposals`, {
        headers: { authorization: `Bearer ${token}` },
        redirect: 'manual',
      });
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toBe('/ui/signin');
    }
    await page.close();
  });

  it('signs in, lists pending proposals newest first with their flags, and renders hostile names and content as text', async () => {
    const first = await web.propose([{ path: 'docs/readme.md', content: 'hello\nthere\n' }], {
      reason: 'Fix the greeting.',
    });
    const hostile = await web.propose(
      [
        { path: HOSTILE_NAME, content: HOSTILE_CONTENT },
        { path: 'docs/big.txt', content: BIG },
        { path: 'docs/readme.md', content: 'hello\n<b>bold</b>\n' },
      ],
      { reason: `<script>window.__pwned=4</script> Trust me ${RTL}, approve`, protected: ['docs/readme.md'] },
    );
    const page = await browser.context.newPage();
    const dialogs = watchForScript(page);
    await signIn(page);
    expect(new URL(page.url()).pathname).toBe('/ui/proposals');
    const session = (await browser.context.cookies(`${web.srv.url}/ui/`)).find((c) => c.name === 'gb_ui_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ui' });

    const rows = page.locator('table.proposals tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-id')).toBe(hostile.id);
    expect(await rows.nth(1).getAttribute('data-id')).toBe(first.id);
    const flags = await rows.nth(0).locator('.flag').allTextContents();
    expect(flags).toEqual(
      expect.arrayContaining(['protected paths: 1', 'hidden characters in names', 'overlaps 1 pending']),
    );
    expect(await rows.nth(0).textContent()).toContain('app');
    expect(await rows.nth(0).textContent()).toContain('test-agent');
    if (process.env.GB_UI_SCREENSHOTS) await page.screenshot({ path: 'docs/ui-proposals.png', fullPage: true });

    await rows.nth(0).locator('a').click();
    expect(new URL(page.url()).pathname).toBe(`/ui/proposals/${hostile.id}`);
    // The name and the content are on the page as text: visible markers for the RTL override, no script element.
    const body = (await page.locator('main').textContent()) ?? '';
    expect(body).toContain('docs/<script>window.__pwned=1</script>⟨U+202E⟩gpj.exe');
    expect(body).toContain('+</pre></span><script>window.__pwned=2</script><img src=x onerror="window.__pwned=3">');
    expect(body).toContain('safe ⟨U+202E⟩reversed');
    expect(body).not.toContain(RTL);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(dialogs).toEqual([]);
    // The agent's words are labelled as the agent's; the server's facts stand apart.
    expect(await page.locator('.agent-reason').textContent()).toBe(
      '<script>window.__pwned=4</script> Trust me ⟨U+202E⟩, approve',
    );
    expect(await page.locator('.facts .protected').textContent()).toBe('docs/readme.md');
    expect(await page.locator('.facts .conflicts').textContent()).toContain(first.id);
    expect(await page.locator('.facts').textContent()).toContain(await web.repo.head('main'));
    // The 10,000-line file: 400 lines inline, the rest paged 1,000 at a time.
    const big = page.locator('section.file', { hasText: 'docs/big.txt' });
    expect(await big.locator('.diff .l').count()).toBeLessThanOrEqual(401);
    expect(await page.locator('table.diffstat').textContent()).toContain('+10000');
    if (process.env.GB_UI_SCREENSHOTS)
      await page.screenshot({
        path: 'docs/ui-proposal.png',
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: 1500 },
      });
    await big.locator('a', { hasText: 'Show lines 401' }).click();
    expect(await page.locator('.diff .l').count()).toBe(1_000);
    expect(await page.locator('.diff .l').first().textContent()).toBe('+line 399'); // diff line 401: after the hunk header and the removed 'old';
    await page.locator('a', { hasText: 'next 1000' }).click();
    expect(await page.locator('.diff .l').first().textContent()).toBe('+line 1399');
    await page.close();
  });

  it('approves one proposal (it lands) and rejects another with a reason (nothing lands)', async () => {
    const all = await web.proposals.list({ status: 'pending' });
    const [hostile, first] = all;
    if (!hostile || !first) throw new Error('the proposals of the previous test are missing');
    const page = await browser.context.newPage();
    await page.goto(`${web.srv.url}/ui/proposals/${first.id}`);
    const before = await web.repo.head('main');
    await page.click('button.approve');
    expect(new URL(page.url()).pathname).toBe(`/ui/proposals/${first.id}`);
    expect(await page.locator('main > p').first().textContent()).toContain('applied');
    const after = await web.repo.head('main');
    expect(after).not.toBe(before);
    expect(await web.repo.git('show', `${after}:docs/readme.md`)).toBe('hello\nthere\n');
    expect((await web.proposals.get(first.id))?.status).toBe('applied');
    expect(await page.locator('section.decide').count()).toBe(0);

    await page.goto(`${web.srv.url}/ui/proposals/${hostile.id}`);
    await page.fill('#reason', 'Touches a protected file and hides its name.');
    await page.click('button.reject');
    expect(await page.locator('main > p').first().textContent()).toContain(
      'rejected by operator (web): Touches a protected file and hides its name.',
    );
    const rejected = await web.proposals.get(hostile.id);
    expect(rejected).toMatchObject({
      status: 'rejected',
      reason: 'Touches a protected file and hides its name.',
      decided_by: 'operator (web)',
    });
    expect(await web.repo.head('main')).toBe(after);
    expect(web.events.map((e) => `${e.event}:${e.proposal.id === first.id ? 'first' : 'hostile'}`)).toEqual(
      expect.arrayContaining(['approved:first', 'applied:first', 'rejected:hostile']),
    );
    await page.goto(`${web.srv.url}/ui/proposals`);
    expect(await page.locator('table.decided tbody tr').count()).toBe(2);
    await page.close();
  });

  it('refuses a POST without the CSRF token, and a cross-site form, leaving the proposal pending', async () => {
    const p = await web.propose([{ path: 'docs/new.md', content: 'new\n' }]);
    const page = await browser.context.newPage();
    await page.goto(`${web.srv.url}/ui/proposals/${p.id}`);
    // Our own form with its token removed: the session cookie alone is not enough.
    await page.evaluate("document.querySelectorAll('section.decide input[name=csrf]').forEach((e) => e.remove())");
    const [noToken] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/approve')),
      page.click('button.approve'),
    ]);
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toContain('This form has expired or did not come from this page');
    // The same request from the browser's request context, cookie attached, a wrong token.
    const forged = await browser.context.request.post(`${web.srv.url}/ui/proposals/${p.id}/approve`, {
      form: { csrf: 'x'.repeat(43), hash: p.hash },
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('This form has expired or did not come from this page');
    // Another site's page posting at us: Origin refused (and SameSite=Strict keeps the cookie home anyway).
    await page.goto(`${evilUrl}/${encodeURIComponent(`${web.srv.url}/ui/proposals/${p.id}/approve`)}`);
    const [cross] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/approve')), page.click('#go')]);
    expect(cross.status()).toBe(403);
    expect(await cross.text()).toContain('Invalid Origin');
    expect((await web.proposals.get(p.id))?.status).toBe('pending');
    await page.close();
  });

  it('an agent push held for approval lands only after the operator approves it in the page', async () => {
    const key = (await web.srv.api('POST', '/api/perimeters/held/keys')).json.key;
    const agent = await web.srv.connect('/mcp/held', 'legacy', { authorization: `Bearer ${key}` });
    const before = await web.repo.head('main');
    const held = await agent.call('push_files', {
      message: 'docs: held change',
      files: [{ path: 'docs/held.md', content: 'held\n' }],
    });
    expect(held.isError).toBeUndefined();
    expect(held.structured).toMatchObject({ status: 'pending' });
    const id = held.structured.proposal_id as string;
    expect(await web.repo.head('main')).toBe(before);
    const page = await browser.context.newPage();
    await page.goto(`${web.srv.url}/ui/proposals`);
    await page.locator(`tr[data-id="${id}"] a`).click();
    expect(
      await page.locator('section.file', { hasText: 'docs/held.md' }).locator('.diff .l.add').allTextContents(),
    ).toEqual(['+held']);
    await page.click('button.approve');
    expect(await page.locator('main > p').first().textContent()).toContain('applied');
    expect(await web.repo.git('show', 'main:docs/held.md')).toBe('held\n');
    expect((await agent.call('proposal_status', { proposal_id: id })).structured).toMatchObject({ status: 'applied' });
    await page.close();
  });

  it('the console lists perimeters with branches, sessions and upstream health; sign-out ends the session', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${web.srv.url}/ui/console`);
    expect(await page.locator('table.perimeters').textContent()).toContain('app');
    expect(await page.locator('table.perimeters').textContent()).toContain('main');
    expect(await page.locator('table.upstreams').textContent()).toContain('local');
    expect(await page.locator('main').textContent()).toContain('The audit ledger is off');
    await page.click('nav button');
    expect(new URL(page.url()).pathname).toBe('/ui/signin');
    await page.goto(`${web.srv.url}/ui/proposals`);
    expect(new URL(page.url()).pathname).toBe('/ui/signin');
    await page.close();
  });
});
