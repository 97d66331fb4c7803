// Attack (review after issue 24): a PR's `updated_at` on GitHub moves with any activity on it, so an agent watching
// its own PR learned when someone pushed work it cannot see (a commit touching only hidden files moves the head and
// the host's time). An agent now reads the latest of the PR's opening, closing and merge only. GitHub emulator over
// real git, the real server, a real MCP client.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Served } from '../support/both-upstreams.js';
import { servePullWindow } from '../support/pull-window.js';

let s: Served;
beforeAll(async () => {
  s = await servePullWindow();
}, 60_000);
afterAll(async () => s?.close());

it('a push touching only hidden files does not move the updated_at an agent reads', async () => {
  const em = s.emulator!.pulls;
  em.clock(() => '2030-01-01T00:00:00Z');
  const a = await s.srv.connect('/mcp/infra/feat-aws');
  const made = await a.call('create_pull_request', { title: 'AWS', body: '' });
  expect(made.isError, made.text).toBeFalsy();
  const before = (await a.call('get_pull_request', {})).structured as Record<string, unknown>;
  expect(before.updated_at).toBe('2030-01-01T00:00:00Z');
  // Someone else pushes work the agent cannot see; the host stamps the PR later.
  em.clock(() => '2031-06-01T12:00:00Z');
  await s.git.commit({ message: 'hidden work', branch: 'feat-aws', files: { 'secret/later.txt': 'x\n' } });
  const after = (await a.call('get_pull_request', {})).structured as Record<string, unknown>;
  // Only the accepted channel moves: the hidden file is counted in omitted_count (SPEC §3.5).
  expect({ ...after, omitted_count: before.omitted_count }).toEqual(before);
  expect(after.omitted_count).toBe(1);
  const listed = await a.call('list_pull_requests', {});
  expect(listed.text).not.toContain('2031');
  // Closing it is visible (its state says so), and the time follows.
  await em.close({ repo: s.repo, number: before.number as number });
  const closed = (await a.call('get_pull_request', { number: before.number })).structured as Record<string, unknown>;
  expect(closed).toMatchObject({ state: 'closed', updated_at: '2031-06-01T12:00:00Z' });
  em.clock(undefined);
}, 60_000);
