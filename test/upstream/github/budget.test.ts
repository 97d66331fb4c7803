// The GitHub adapter charges a call's budget per attempt, and a load shared by two calls never fails the second one
// because the first ran out of budget.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestBudget } from '../../../src/upstream/types.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let repo: string;

beforeAll(async () => {
  h = await startHarness();
  ({ name: repo } = await h.repo([
    { message: 'one', files: { 'a.txt': 'a\n' } },
    { message: 'two', files: { 'b.txt': 'b\n' } },
  ]));
});
afterAll(async () => {
  await h.close();
});

const budget = (n: number): RequestBudget & { spent: number } => {
  const b = {
    spent: 0,
    take: () => (b.spent >= n ? { code: 'over_budget' as const, message: 'spent' } : ((b.spent += 1), undefined)),
    refund: () => undefined,
  };
  return b;
};

it('sends nothing once the budget is spent, and counts each request it sends', async () => {
  const u = h.upstream();
  const b = budget(1);
  const mark = h.mark();
  const r = await u.withBudget?.(b).getTree(repo, 'main', '');
  expect(r).toMatchObject({ ok: false, error: { code: 'over_budget', message: 'spent' } });
  expect(mark()).toHaveLength(1);
  expect(b.spent).toBe(1);
});

it("does not fail a call that joined another call's load when that call's budget ran out", async () => {
  const u = h.upstream();
  const head = await u.listCommits(repo, 'main', { paths: [''], skip: 0, limit: 1 });
  const sha = head.ok ? (head.value.commits[0]?.sha ?? '') : '';
  const poor = u.withBudget?.(budget(0));
  const rich = u.withBudget?.(budget(10));
  const [a, b] = await Promise.all([poor?.getCommit(repo, sha), rich?.getCommit(repo, sha)]);
  expect(a).toMatchObject({ ok: false, error: { code: 'over_budget' } });
  expect(b).toMatchObject({ ok: true, value: { sha } });
});
