// Issue 15: instances sharing one GitHub token share GitHub's budget. Once any instance has seen it spent, another one
// answers rate_limited from the store's sighting, without sending GitHub a request that would only be refused.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { openPostgresState } from '../../src/state/postgres/index.js';
import type { SharedState } from '../../src/state/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const TOKEN = 'ghp_issue15SharedQuota0123456789abcdefgh';
let pg: SharedPostgres;
let bare: GitDir;
let emulator: Emulator;
const states: SharedState[] = [];
const ups: GitHubUpstream[] = [];

beforeAll(async () => {
  pg = await sharedPostgres();
  const url = await pg.database('quota');
  bare = await makeRepo([{ message: 'init', files: { 'a.md': 'a\n' } }], { bare: true });
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/docs': bare.dir }, rateLimit: { limit: 3 } });
  for (let i = 0; i < 2; i++) {
    const s = await openPostgresState({
      url,
      instance: { id: `q${i}`, version: 't' },
      log: () => undefined,
      beatMs: 100,
    });
    if (!s.ok) throw new Error(s.message);
    states.push(s.value);
    const st = s.value;
    ups.push(
      createGitHubUpstream({
        token: TOKEN,
        baseUrl: emulator.url,
        retryDelayMs: 5,
        maxRateLimitWaitSeconds: 0,
        sharedQuota: { saw: (q) => st.sawQuota(q), last: () => st.quota() },
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  for (const u of ups) await u.close();
  for (const s of states) await s.close();
  await emulator?.close();
  await bare?.cleanup();
  await pg?.destroy();
});

it('refuses on instance B, without a request, once instance A has seen the budget spent', async () => {
  const [a, b] = [ups[0]!, ups[1]!];
  expect((await a.defaultBranch('acme/docs')).ok).toBe(true);
  expect((await a.branchHead('acme/docs', 'main')).ok).toBe(true);
  await a.listBranches('acme/docs');
  // A's third answer said remaining 0; B hears it through the store.
  const until = Date.now() + 3000;
  while (states[1]!.quota()?.remaining !== 0) {
    if (Date.now() > until) throw new Error(`B never saw the spent budget: ${JSON.stringify(states[1]!.quota())}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const sent = emulator.requests.length;
  const refused = await b.defaultBranch('acme/docs');
  expect(refused.ok).toBe(false);
  if (!refused.ok) expect(refused.error.code).toBe('rate_limited');
  expect(emulator.requests.length).toBe(sent);
});
