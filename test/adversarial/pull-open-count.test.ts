// Attack (noted after issue 24): create_pull_request counted the perimeter's open PRs (for max_open) and looked for
// this branch's own open PR in one listing of the repository's open PRs, newest first, capped at ten host pages. Open
// PRs the agent cannot see (other branches') filled those pages: past a thousand of them, the agent's own older PR was
// no longer found, and the call answered differently — an error instead of "existing pull request" — telling the
// agent how many hidden PRs were open. The perimeter's PRs are now listed branch by branch. GitHub emulator over real
// git, the real server, a real MCP client.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Served } from '../support/both-upstreams.js';
import { unfence } from '../support/fence.js';
import { servePullWindow } from '../support/pull-window.js';

let s: Served;
beforeAll(async () => {
  s = await servePullWindow([{ message: 'other', branch: 'other-team', files: { 'secret/theirs.txt': 't\n' } }]);
}, 60_000);
afterAll(async () => s?.close());

it("finds the agent's own open PR however many hidden PRs were opened after it", async () => {
  const em = s.emulator!.pulls;
  em.clock(() => '2030-01-01T00:00:00Z');
  const a = await s.srv.connect('/mcp/infra/feat-aws');
  const made = await a.call('create_pull_request', { title: 'AWS', body: '' });
  expect(made.isError, made.text).toBeFalsy();
  const again = await a.call('create_pull_request', { title: 'AWS', body: '' });
  expect(again.isError, again.text).toBeFalsy();
  expect(again.text).toMatch(/^existing pull request/);
  // Another team opens more than ten host pages of PRs the agent cannot see, all newer than the agent's.
  for (let i = 0; i < 1005; i += 67)
    await Promise.all(
      Array.from({ length: Math.min(67, 1005 - i) }, () =>
        em.open({ repo: s.repo, head: 'other-team', base: 'main', title: 'theirs' }),
      ),
    );
  const after = await a.call('create_pull_request', { title: 'AWS', body: '' });
  // The same answer, but for the fence around untrusted text (random per answer).
  const unfenced = (r: typeof again) => ({ ...r, text: unfence(r.text) });
  expect(unfenced(after)).toEqual(unfenced(again));
  em.clock(undefined);
}, 120_000);
