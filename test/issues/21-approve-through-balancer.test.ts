// Issue 21 item 6, "the approval page behind a balancer": three instances of the BUILT server (`npm run build` first)
// on one real PostgreSQL, behind a round-robin balancer without affinity that forwards the browser's Host (nginx's
// `proxy_set_header Host $host`), and a real browser. Web sessions and the keys of the page's CSRF tokens lived in
// each process, so the sign-in was refused or looped; now a person signs in and approves whichever instance answers.
import { randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchBrowser, type Browser } from '../support/browser.js';
import {
  api,
  CLUSTER_OPS_TOKEN,
  modernAgent,
  roundRobin,
  startInstances,
  stopInstances,
  type Instance,
} from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const browserReady = haveChromium();

describe.skipIf(!browserReady)('sign in and approve through a round-robin balancer', { timeout: 120_000 }, () => {
  let pg: SharedPostgres;
  let repo: GitDir;
  let lb: Awaited<ReturnType<typeof roundRobin>>;
  let browser: Browser;
  const inst: Instance[] = [];

  beforeAll(async () => {
    pg = await sharedPostgres();
    const store = await pg.database('issue21web');
    repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n' } }], { bare: true });
    const config = join(repo.dir, '..', `gb-issue21-web-${Date.now()}.yaml`);
    await writeFile(
      config,
      [
        'perimeters:',
        '  reviewed:',
        `    repo: ${repo.dir}`,
        '    read: ["docs/**"]',
        '    write: ["docs/**"]',
        '    approval: { push_files: required }',
        '',
      ].join('\n'),
    );
    // The balancer's name is a loopback address of its own on the default port, as a real one is on 443: the page's
    // Origin is then `http://<name>`, which `--allowed-host <name>` admits (README "Several instances").
    const name = `127.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
    const backends = () => inst.map((i) => i.url);
    const allowed = ['--allowed-host', name];
    try {
      lb = await roundRobin(backends, { keepHost: true, listen: { host: name, port: 80 } });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EACCES') throw e;
      // Without the privilege for port 80: a free port, admitted as an exact origin.
      lb = await roundRobin(backends, { keepHost: true, listen: { host: name, port: 0 } });
      allowed.push('--allowed-host', lb.url);
    }
    await startInstances(3, { store, config, cwd: repo.dir, args: allowed }, inst);
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await lb?.close();
    await stopInstances(inst);
    await repo?.cleanup();
    await pg?.destroy();
  });

  it('a person signs in and approves a held push, each request answered by the next instance', async () => {
    const key = (await api(inst[0]!.url, 'POST', '/perimeters/reviewed/keys')).json.key as string;
    // The key reaches the other instances through the store's notice (issue 21 §1 times that elsewhere); this test is
    // about the page, so it waits until instance 1 admits the key before the agent connects there.
    const admitted = async (): Promise<boolean> =>
      (await fetch(`${inst[1]!.url}/mcp/reviewed`, { headers: { authorization: `Bearer ${key}` } })).status === 200;
    for (let t = Date.now(); !(await admitted());) {
      if (Date.now() - t > 10_000) throw new Error('instance 1 never admitted the key issued through instance 0');
      await new Promise((r) => setTimeout(r, 100));
    }
    const agent = await modernAgent(inst[1]!.url, '/mcp/reviewed', key);
    const held = await agent.call('push_files', {
      message: 'through the balancer',
      files: [{ path: 'docs/lb.md', content: 'approved\n' }],
    });
    await agent.close();
    expect(held.isError, held.text).toBe(false);
    const id = held.structured.proposal_id as string;

    const page = await browser.context.newPage();
    const statuses: number[] = [];
    page.on('response', (r) => statuses.push(r.status()));
    await page.goto(`${lb.url}/ui/`);
    expect(new URL(page.url()).pathname).toBe('/ui/signin');
    await page.fill('#token', CLUSTER_OPS_TOKEN);
    await page.click('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/ui/proposals');
    // Signed in on every instance: each of the next pages is answered by another one.
    const first = lb.hits.length;
    for (let n = 0; n < 3; n++) {
      await page.goto(`${lb.url}/ui/proposals`);
      expect(new URL(page.url()).pathname).toBe('/ui/proposals');
    }
    expect(new Set(lb.hits.slice(first))).toEqual(new Set([0, 1, 2]));

    await page.goto(`${lb.url}/ui/proposals/${id}`);
    await page.click('button.approve');
    expect(new URL(page.url()).pathname).toBe(`/ui/proposals/${id}`);
    expect(await page.locator('main > p').first().textContent()).toContain('applied');
    expect(statuses.filter((s) => s === 403 || s >= 500)).toEqual([]);
    expect((await repo.git('show', 'main:docs/lb.md')).trim()).toBe('approved');
    for (const i of inst) expect((await api(i.url, 'GET', `/proposals/${id}`)).json.proposal.status).toBe('applied');

    // Signed out through one instance, out on all of them.
    await page.goto(`${lb.url}/ui/console`);
    await page.click('form[action="/ui/signout"] button');
    for (let n = 0; n < 3; n++) {
      await page.goto(`${lb.url}/ui/proposals`);
      expect(new URL(page.url()).pathname).toBe('/ui/signin');
    }
    await page.close();
  });
});
