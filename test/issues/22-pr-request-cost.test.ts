// Issue 22, last "Done when" item: what each PR tool costs upstream, counted in the GitHub emulator's request log on
// the realistic PR the bench measures (30 changed files, 7 hidden; reviews and comments on readable and hidden paths;
// two annotated check runs; a status). Each call must stay within the server's default `upstream_requests_per_call`,
// and within the count measured when the tools were written (bench/REPORT.md §4): a change that multiplies a tool's
// requests (a request per file, per comment, per annotation…) fails here. Lower the figures when a tool gets cheaper;
// raise one only on purpose, and update the bench report with it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_LIMITS, RateLimiter } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { PULL_CALLS, pullCostPerimeter, seedCostPull } from '../support/pull-cost.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue22PullRequestCost0123456789abcdef';
const REPO = 'acme/prcost';

/** Requests per call measured on a cold adapter cache, in PULL_CALLS order (the bench's "cache on, cold" column). */
const MEASURED: Record<string, number> = {
  // The perimeter's open PRs are listed branch by branch (three branches here), not as one repository-wide listing
  // whose page cap counted hidden PRs (test/adversarial/pull-open-count.test.ts).
  create_pull_request: 7,
  list_pull_requests: 13,
  get_pull_request: 5,
  'get_pull_request_files, list': 3,
  'get_pull_request_files, one path': 3,
  list_pull_request_comments: 6,
  get_pull_request_status: 7,
};

let repo: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
let srv: TestServer;
let pr: number;

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const top of ['a', 'b', 'c', 'd'])
    for (let i = 0; i < 60; i++) files[`${top}/src/f${i}.ts`] = `// ${top} ${i}\nexport const v = ${i};\n`;
  repo = await makeRepo([{ message: 'init', files }], { bare: true });
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { [REPO]: repo.dir } });
  pr = await seedCostPull(repo.dir, emulator.pulls, REPO, [1]);
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const gh = github;
  // The server's default limits apply, as in production: a call over the per-call budget is refused.
  srv = await startTestServer({
    upstream: gh,
    upstreamFor: () => gh,
    limiter: new RateLimiter(),
    policy: { defaultLimits: DEFAULT_LIMITS },
  });
  await srv.perimeter(pullCostPerimeter('prcost', REPO, [1]));
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
});

it('keeps every PR tool within the default per-call request limit and its measured count', async () => {
  const counts: Record<string, number> = {};
  const answers: Record<string, any> = {};
  for (const c of PULL_CALLS) {
    const agent = await srv.connect(`/mcp/prcost/${c.branch(1)}`);
    const before = emulator.requests.length;
    const r = await agent.call(c.tool, c.args({ pr, run: 1 }));
    counts[c.name] = emulator.requests.length - before;
    expect(r.isError, `${c.name}: ${r.text}`).toBeFalsy();
    answers[c.name] = r.structured;
  }
  // The calls answered the realistic PR, cut: the counts are those of real work, not of a refusal or an empty PR.
  expect(answers['get_pull_request']).toMatchObject({ changed_files: 24, omitted_count: 7 });
  expect(answers['get_pull_request_files, list'].files).toHaveLength(24);
  expect(answers['get_pull_request_files, one path'].files[0].patch).toContain("+export const touched = 'one';");
  expect(answers['list_pull_request_comments'].items).toHaveLength(7);
  const annotations = answers['get_pull_request_status'].check_runs.flatMap((run: any) => run.annotations);
  expect(annotations.map((x: any) => x.path).sort()).toEqual(['a/new/n0.ts', 'a/src/f1.ts', 'b/src/f2.ts']);
  expect(Object.keys(counts)).toEqual(Object.keys(MEASURED));
  for (const [name, n] of Object.entries(counts)) {
    expect(n, name).toBeGreaterThan(0);
    expect(n, name).toBeLessThanOrEqual(DEFAULT_LIMITS.upstream_requests_per_call);
  }
  expect(counts).toEqual(MEASURED);
});
