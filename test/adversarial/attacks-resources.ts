// Attacks on shared resources (issue 9 item 5): one perimeter's key trying to multiply an answer, scan history
// without bound, or flood the process. Each must stay bounded and answer the same whatever is hidden.
import { DEFAULT_PROPOSAL_BOUNDS, MAX_AGENT_REASON, type Proposal } from '../../src/core/index.js';
import type { NewProposal } from '../../src/registry/proposals.js';
import { blockedRead, sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

const FLOOD = 40;

export function resourceAttacks(ctx: Ctx): Attack[] {
  const repeat = (p: string, n = 100) => Array.from({ length: n }, () => p);
  return [
    {
      category: 'resources',
      name: 'get_files: one readable path 100 times is answered once',
      run: async () => {
        const r = await callTool(ctx.app, 'get_files', { paths: repeat('app/main.ts') });
        check(!r.isError && r.structured.files.length === 1 && r.structured.found === 1, r.text.slice(0, 200));
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'resources',
      name: 'get_files: a hidden path 100 times reads like a missing one 100 times',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_files', args: { paths: repeat('secret/keys.txt') }, mask: ['secret/keys.txt'] },
          { tool: 'get_files', args: { paths: repeat('app/nothing-here.ts') }, mask: ['app/nothing-here.ts'] },
        ]),
    },
    {
      category: 'resources',
      name: 'get_files: hidden repeats mixed with a readable file do not change its answer',
      run: async () => {
        const r = await blockedRead(
          ctx,
          'get_files',
          { paths: [...repeat('secret/keys.txt', 50), 'app/main.ts'] },
          { mustFail: false },
        );
        check(r.structured.files.length === 2 && r.structured.found === 1, r.text.slice(0, 200));
      },
    },
    {
      category: 'resources',
      name: 'list_commits: page 1000 × 100 is refused before any upstream work',
      run: async () => {
        const r = await callTool(ctx.app, 'list_commits', { page: 1000, per_page: 100 });
        check(r.isError === true && r.text.includes('at most 5000 commits deep'), r.text.slice(0, 200));
      },
    },
    {
      category: 'resources',
      name: 'list_commits: a deep page narrowed to a hidden path reads like one narrowed to a missing path',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'list_commits', args: { path: 'secret', page: 500, per_page: 100 }, mask: ['secret'] },
          {
            tool: 'list_commits',
            args: { path: 'app/nothing-here', page: 500, per_page: 100 },
            mask: ['app/nothing-here'],
          },
        ]),
    },
    {
      category: 'resources',
      name: 'list_commits: the deepest allowed page answers (empty or not) without error',
      run: async () => {
        const r = await callTool(ctx.app, 'list_commits', { page: 50, per_page: 100 });
        check(!r.isError && Array.isArray(r.structured.commits), r.text.slice(0, 200));
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'resources',
      name: `many concurrent calls: ${FLOOD} at once are each answered or told to retry, and the lane frees`,
      run: async () => {
        const answers = await Promise.all(
          Array.from({ length: FLOOD }, () => callTool(ctx.app, 'get_files', { paths: repeat('app/main.ts') })),
        );
        for (const r of answers) {
          check(r.isError ? r.text.startsWith('Busy:') : r.structured.files.length === 1, r.text.slice(0, 200));
          noLeak(ctx.fx, whole(r), {});
        }
        check(
          answers.some((r) => !r.isError),
          'no call of the flood was served',
        );
        const after = await callTool(ctx.app, 'get_file', { path: 'app/main.ts' });
        check(!after.isError, `lane still busy: ${after.text.slice(0, 200)}`);
      },
    },
    ...storeAttacks(ctx),
  ];
}

/**
 * Issue 19 class 10: what one perimeter can make the server store. Made through the proposal service, as every
 * propose_* tool and approval-mode push_files make them (the bound is the store's, whatever the tool), so the flood
 * is not slowed by the call-rate limit it would meet over MCP.
 */
function storeAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const request = (perimeter: string, n: number, over: Partial<NewProposal> = {}): NewProposal => ({
    perimeter,
    repo: fx.repo,
    branch: 'main',
    base: '0'.repeat(40),
    agent: 'flood-agent',
    change: {
      kind: 'push_files',
      message: `flood ${n}`,
      files: [{ path: 'app/flood.md', content: `${n}\n`, encoding: 'utf-8' }],
      deletes: [],
    },
    facts: { paths: ['app/flood.md'], protected_paths: [] },
    ...over,
  });
  return [
    {
      category: 'store',
      only: 'local',
      name: `proposals: a create-and-cancel flood keeps at most ${DEFAULT_PROPOSAL_BOUNDS.maxRecords} records of its perimeter, another perimeter's proposal untouched`,
      run: async () => {
        const bystander = await fx.proposals.create(request('bystander', 0));
        check(bystander.ok, 'the bystander could not propose');
        const rounds = DEFAULT_PROPOSAL_BOUNDS.maxRecords + 25;
        for (let i = 0; i < rounds; i++) {
          const made = await fx.proposals.create(request('flood', i));
          check(made.ok, `flood proposal ${i} refused: ${made.ok ? '' : made.message}`);
          if (made.ok) check((await fx.proposals.cancel('flood', made.value.id)).ok, `flood cancel ${i} refused`);
        }
        const kept = await fx.proposals.list({ perimeter: 'flood' });
        check(kept.length === DEFAULT_PROPOSAL_BOUNDS.maxRecords, `flood perimeter keeps ${kept.length} records`);
        const theirs: Proposal | undefined = bystander.ok ? await fx.proposals.get(bystander.value.id) : undefined;
        check(theirs?.status === 'pending', `bystander's proposal is ${theirs?.status ?? 'gone'}`);
      },
    },
    {
      category: 'store',
      only: 'local',
      name: 'proposals: a change over the record bound is refused in words and nothing is stored',
      run: async () => {
        const before = (await fx.proposals.list({ perimeter: 'bulky' })).length;
        const big = 'b'.repeat(DEFAULT_PROPOSAL_BOUNDS.maxRecordBytes);
        const made = await fx.proposals.create(
          request('bulky', 1, {
            change: {
              kind: 'push_files',
              message: 'big',
              files: [{ path: 'app/big.md', content: big, encoding: 'utf-8' }],
              deletes: [],
            },
          }),
        );
        check(!made.ok && made.message.includes('too large to hold for approval'), made.ok ? 'stored' : made.message);
        check((await fx.proposals.list({ perimeter: 'bulky' })).length === before, 'something was stored');
      },
    },
    {
      category: 'store',
      only: 'local',
      name: 'proposals: an over-long reason or idempotency key is refused whatever the tool',
      run: async () => {
        const reason = await fx.proposals.create(
          request('bulky', 2, { agentReason: 'r'.repeat(MAX_AGENT_REASON + 1) }),
        );
        check(!reason.ok && reason.code === 'invalid', reason.ok ? 'stored a long reason' : reason.message);
        const key = await fx.proposals.create(request('bulky', 3, { idempotencyKey: 'k'.repeat(100_000) }));
        check(!key.ok && key.code === 'invalid', key.ok ? 'stored a long key' : key.message);
      },
    },
  ];
}
