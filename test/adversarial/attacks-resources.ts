// Attacks on shared resources (issue 9 item 5): one perimeter's key trying to multiply an answer, scan history
// without bound, or flood the process. Each must stay bounded and answer the same whatever is hidden.
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
        const r = await blockedRead(ctx, 'get_files', { paths: [...repeat('secret/keys.txt', 50), 'app/main.ts'] }, { mustFail: false });
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
          { tool: 'list_commits', args: { path: 'app/nothing-here', page: 500, per_page: 100 }, mask: ['app/nothing-here'] },
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
        const answers = await Promise.all(Array.from({ length: FLOOD }, () => callTool(ctx.app, 'get_files', { paths: repeat('app/main.ts') })));
        for (const r of answers) {
          check(r.isError ? r.text.startsWith('Busy:') : r.structured.files.length === 1, r.text.slice(0, 200));
          noLeak(ctx.fx, whole(r), {});
        }
        check(answers.some((r) => !r.isError), 'no call of the flood was served');
        const after = await callTool(ctx.app, 'get_file', { path: 'app/main.ts' });
        check(!after.isError, `lane still busy: ${after.text.slice(0, 200)}`);
      },
    },
  ];
}
