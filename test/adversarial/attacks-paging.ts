// Attacks on paged answers (issue 11 item 6): get_tree pages and get_commit files pages are cut on the visible list
// only. A page number must not tell a hidden directory from a missing one, count hidden entries, carry a hidden
// entry, or escape the answer cap. Runs against a perimeter with the smallest cap (1 KiB), so pages are many.
import type { Agent } from '../support/server.js';
import { sameAnswers, whole, type Ctx } from './context.js';
import { APP_READ } from './fixture.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

const CAP = 1024;

/** One tight agent per fixture, created at the first attack that needs it (a perimeter of its own, with a key). */
const tightAgents = new WeakMap<Ctx, Promise<Agent>>();
function tightAgent(ctx: Ctx): Promise<Agent> {
  let a = tightAgents.get(ctx);
  if (!a) {
    a = (async () => {
      const { srv, repo } = ctx.fx;
      await srv.perimeter({ id: 'tight', repo, read: APP_READ, write: [], limits: { max_answer_bytes: CAP } });
      const key = (await srv.api('POST', '/api/perimeters/tight/keys')).json.key as string;
      return srv.connect('/mcp/tight', 'legacy', { authorization: `Bearer ${key}` });
    })();
    tightAgents.set(ctx, a);
  }
  return a;
}

const within = (r: { text: string; structured: unknown }, what: string): void => {
  const text = Buffer.byteLength(r.text);
  const json = Buffer.byteLength(JSON.stringify(r.structured ?? null));
  check(text <= CAP && json <= CAP, `${what}: ${text} text bytes, ${json} JSON bytes over the ${CAP}-byte cap`);
};

export function pagingAttacks(ctx: Ctx): Attack[] {
  return [
    {
      category: 'paging',
      name: 'get_tree: walking every page of app/ recursively shows no hidden entry and no page over the cap',
      run: async () => {
        const tight = await tightAgent(ctx);
        const seen = new Set<string>();
        for (let page: number | undefined = 1, n = 0; page !== undefined; n++) {
          check(n < 200, 'paging did not end');
          const r = await callTool(tight, 'get_tree', { path: 'app', recursive: true, page });
          check(!r.isError, r.text.slice(0, 200));
          within(r, `page ${page}`);
          noLeak(ctx.fx, whole(r), {});
          for (const e of r.structured.entries as { path: string }[]) {
            check(!seen.has(e.path), `${e.path} on two pages`);
            seen.add(e.path);
          }
          page = r.structured.next_page;
        }
        check(
          seen.has('app/main.ts') && !seen.has('app/.env') && !seen.has('app/certs/server.pem'),
          [...seen].join(', '),
        );
      },
    },
    {
      category: 'paging',
      name: 'get_tree: page 2 of a directory holding only hidden files reads like page 2 of a missing one',
      run: async () =>
        sameAnswers(ctx, [
          { tool: 'get_tree', args: { path: 'app/certs', page: 2 }, mask: ['app/certs'], agent: await tightAgent(ctx) },
          {
            tool: 'get_tree',
            args: { path: 'app/nothing', page: 2 },
            mask: ['app/nothing'],
            agent: await tightAgent(ctx),
          },
        ]),
    },
    {
      category: 'paging',
      name: 'get_tree: a page past the end counts visible pages only (app/config holds only a hidden file)',
      run: async () => {
        const tight = await tightAgent(ctx);
        const r = await callTool(tight, 'get_tree', { path: 'app', page: 1_000_000 });
        check(r.isError === true && /this answer has \d+ pages?\.$/.test(r.text), r.text.slice(0, 200));
        const pages = Number(/has (\d+) page/.exec(r.text)?.[1]);
        let walked = 0;
        for (let page: number | undefined = 1; page !== undefined; walked++)
          page = (await callTool(tight, 'get_tree', { path: 'app', page })).structured?.next_page;
        check(pages === walked, `the refusal says ${pages} pages, walking gives ${walked}`);
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'paging',
      name: 'get_tree: a page number over the schema bound is refused as invalid, not served',
      run: async () => {
        const r = await callTool(await tightAgent(ctx), 'get_tree', { path: 'app', page: 1_000_001 });
        check(r.isError === true && !r.text.includes('entries'), r.text.slice(0, 200));
      },
    },
    {
      category: 'paging',
      name: 'get_commit: files_page 2 of a commit touching only hidden files reads like a nonexistent commit',
      run: async () =>
        sameAnswers(ctx, [
          {
            tool: 'get_commit',
            args: { sha: ctx.fx.shas.hiddenOnly, files_page: 2 },
            mask: [ctx.fx.shas.hiddenOnly],
            agent: await tightAgent(ctx),
          },
          {
            tool: 'get_commit',
            args: { sha: 'f'.repeat(40), files_page: 2 },
            mask: ['f'.repeat(40)],
            agent: await tightAgent(ctx),
          },
        ]),
    },
    {
      category: 'paging',
      name: 'get_commit: the pages of a mixed commit list its visible file only, within the cap, the hidden one only counted',
      run: async () => {
        const tight = await tightAgent(ctx);
        const files: string[] = [];
        for (let p: number | undefined = 1, n = 0; p !== undefined; n++) {
          check(n < 50, 'paging did not end');
          const r = await callTool(tight, 'get_commit', { sha: ctx.fx.shas.mixed, files_page: p });
          check(!r.isError, r.text.slice(0, 200));
          within(r, `files_page ${p}`);
          noLeak(ctx.fx, whole(r), {});
          check(r.structured.omitted_count === 1, `omitted_count ${r.structured.omitted_count}`);
          files.push(...(r.structured.files as { path: string }[]).map((f) => f.path));
          p = r.structured.next_files_page;
        }
        check(files.join(',') === 'app/main.ts', files.join(','));
        const past = await callTool(tight, 'get_commit', { sha: ctx.fx.shas.mixed, files_page: 2 });
        check(past.isError === true && past.text.endsWith('this answer has 1 page.'), past.text.slice(0, 200));
      },
    },
  ];
}
