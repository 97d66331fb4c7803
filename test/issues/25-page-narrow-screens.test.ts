// Issue 25: the page at 1,280 px wrapped branch names (a name broken at its "-" reads as two), and at 420 px its
// tables ran off the edge of the screen. Now identifiers stay on one line and, on a narrow screen, a table scrolls
// sideways inside its own box while the page itself never scrolls sideways.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { haveChromium, launchBrowser, type Browser } from '../support/browser.js';
import { OPS_TOKEN } from '../support/server.js';
import { startWebServer, type WebServer } from '../support/web.js';

const BRANCH = 'feature/a-rather-long-branch-name-for-the-release-train-2026-q4';

describe.skipIf(!haveChromium())('the page on narrow and wide screens', { timeout: 60_000 }, () => {
  let web: WebServer;
  let browser: Browser;

  beforeAll(async () => {
    web = await startWebServer([
      { message: 'init', files: { 'docs/readme.md': 'hello\n' } },
      { message: 'long', files: { 'docs/b.md': 'b\n' }, branch: BRANCH },
    ]);
    const added = await web.srv.api('POST', '/api/perimeters/app/branches', { name: BRANCH });
    expect(added.status).toBeLessThan(300);
    const made = await web.proposals.create({
      perimeter: 'app',
      repo: web.repo.dir,
      branch: BRANCH,
      base: await web.repo.head(BRANCH),
      agent: 'a-client-with-a-rather-long-self-declared-name',
      change: {
        kind: 'push_files',
        message: 'agent: update docs',
        files: [{ path: 'docs/readme.md', content: 'hi\n', encoding: 'utf-8' }],
        deletes: [],
      },
      facts: { paths: ['docs/readme.md'], protected_paths: [] },
    });
    if (!made.ok) throw new Error(made.message);
    browser = await launchBrowser();
    // One sign-in for the whole context (the session cookie is shared by its pages).
    const page = await browser.context.newPage();
    await page.goto(`${web.srv.url}/ui/`);
    await page.fill('#token', OPS_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/ui\/proposals/);
    await page.close();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  const open = async (width: number, path: string): Promise<Page> => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${web.srv.url}${path}`);
    expect(new URL(page.url()).pathname).toBe(path);
    return page;
  };
  /** Line boxes of the first element matching `selector` whose text is `text` (1 = on one line). */
  // Browser-side code is passed as text: this project's TypeScript has no DOM types.
  const lines = (page: Page, selector: string, text: string) =>
    page.evaluate(
      `[...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent === ${JSON.stringify(text)})?.getClientRects().length ?? -1`,
    );

  for (const width of [420, 1280]) {
    it(`${width} px: the proposals list keeps the branch and the agent on one line, and the page never scrolls sideways`, async () => {
      const page = await open(width, '/ui/proposals');
      expect(await lines(page, 'table.proposals code', BRANCH)).toBe(1);
      expect(await lines(page, 'table.proposals td', 'a-client-with-a-rather-long-self-declared-name')).toBe(1);
      const m = (await page.evaluate(`(() => {
        const t = document.querySelector('table.proposals');
        return { page: document.documentElement.scrollWidth, view: window.innerWidth, right: t.getBoundingClientRect().right, inner: t.scrollWidth, box: t.clientWidth };
      })()`)) as { page: number; view: number; right: number; inner: number; box: number };
      expect(m.page).toBeLessThanOrEqual(m.view);
      expect(m.right).toBeLessThanOrEqual(m.view);
      // At 420 px the row is wider than the screen: it scrolls inside the table's box.
      if (width === 420) expect(m.inner).toBeGreaterThan(m.box);
      await page.close();
    });

    it(`${width} px: the console's perimeter table keeps branch names whole`, async () => {
      const page = await open(width, '/ui/console');
      expect(await lines(page, 'table.perimeters code', BRANCH)).toBe(1);
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.close();
    });
  }
});
