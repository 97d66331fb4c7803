// A real browser for page tests: Debian's chromium driven by playwright-core (no browser download), one fresh
// user-data directory per launch. Tests skip loudly when /usr/bin/chromium is missing, never silently.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** True when the browser is installed; otherwise prints why the browser tests will be skipped. */
export function haveChromium(): boolean {
  if (existsSync(CHROMIUM)) return true;
  console.warn(
    `\n*** SKIPPING BROWSER TESTS: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium ***\n`,
  );
  return false;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless chromium with a fresh profile; `close` removes the profile. */
export async function launchBrowser(): Promise<Browser> {
  const dir = await mkdtemp(join(tmpdir(), 'gb-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
