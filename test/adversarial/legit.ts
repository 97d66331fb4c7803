// Ordinary work that the defences must leave intact.
import { gitIn } from '../support/gitdir.js';
import { OPS_TOKEN } from '../support/server.js';
import type { Ctx } from './context.js';
import { callTool, check, INIT, JSON_HEADERS, raw, type LegitUse } from './harness.js';

export function legitUses(ctx: Ctx): LegitUse[] {
  const { fx } = ctx;
  const base = fx.srv.url;
  const ok = async (tool: string, args: Record<string, unknown>, agent = ctx.app) => {
    const r = await callTool(agent, tool, args);
    check(r.isError === undefined, `${tool} failed: ${r.text.slice(0, 300)}`);
    return r.structured;
  };
  const paths = (entries: { path: string }[]) => entries.map((e) => e.path);
  return [
    {
      name: 'tools/list shows the ten agent tools, then presence and leases',
      run: async () => {
        const names = (await ctx.app.client.listTools()).tools.map((t) => t.name);
        check(
          JSON.stringify(names) ===
            '["get_tree","get_file","get_files","search_code","changes_since","push_files","edit_file","edit_files","list_commits","get_commit","activity","lease_acquire","lease_release"]',
          JSON.stringify(names),
        );
      },
    },
    {
      name: 'search_code finds a readable symbol with its line and column',
      run: async () => {
        const r = await ok('search_code', { query: 'const main', case_sensitive: true });
        check(
          JSON.stringify(r.matches) === '[{"path":"app/main.ts","line":1,"column":8,"text":"export const main = 2;"}]',
          JSON.stringify(r),
        );
      },
    },
    {
      name: 'get_file serves a line window',
      run: async () => {
        const r = await ok('get_file', { path: 'app/main.ts', start_line: 1, end_line: 1 });
        check(r.content === 'export const main = 2;\n' && r.total_lines === 1 && r.end_line === 1, JSON.stringify(r));
      },
    },
    {
      name: 'changes_since gives a cursor, then no changes on an unmoved branch',
      run: async () => {
        const first = await ok('changes_since', {});
        const again = await ok('changes_since', { cursor: first.cursor });
        check(
          first.fresh_instance === true && again.fresh_instance === false && again.changes.length === 0,
          JSON.stringify(again),
        );
      },
    },
    {
      name: 'get_file reads a readable file',
      run: async () =>
        check((await ok('get_file', { path: 'app/main.ts' })).content === 'export const main = 2;\n', 'content'),
    },
    {
      name: 'get_file reads a file under a one-level glob',
      run: async () => check((await ok('get_file', { path: 'docs/guide.md' })).content === '# guide\n', 'content'),
    },
    {
      name: 'get_file reads an env template',
      run: async () =>
        check((await ok('get_file', { path: 'app/.env.example' })).content === 'DB_PASSWORD=\n', 'content'),
    },
    {
      name: 'get_file returns a symlink to a readable file as its target text',
      run: async () => {
        const s = await ok('get_file', { path: 'app/link-ok' });
        check(s.symlink === true && s.content === 'lib/util.ts', JSON.stringify(s));
      },
    },
    {
      name: 'get_files reads several files and reports a missing one',
      run: async () => {
        const s = await ok('get_files', { paths: ['app/main.ts', 'app/lib/util.ts', 'app/missing.ts'] });
        check(s.found === 2 && s.missing === 1, JSON.stringify(s));
      },
    },
    {
      name: 'get_tree lists the root',
      run: async () =>
        check(JSON.stringify(paths((await ok('get_tree', {})).entries)) === '["app","docs"]', 'root listing'),
    },
    {
      name: 'get_tree lists a directory recursively',
      run: async () => {
        const p = paths((await ok('get_tree', { path: 'app', recursive: true })).entries);
        for (const want of ['app/lib', 'app/lib/util.ts', 'app/.env.example', 'app/arrived.ts'])
          check(p.includes(want), `missing ${want}`);
      },
    },
    {
      name: 'get_tree shows a submodule entry',
      run: async () => {
        const e = (await ok('get_tree', { path: 'app/vendor' })).entries;
        check(e.length === 1 && e[0].type === 'submodule' && e[0].path === 'app/vendor/lib', JSON.stringify(e));
      },
    },
    {
      name: 'list_commits lists the visible history',
      run: async () => {
        const msgs = (await ok('list_commits', { per_page: 100 })).commits.map((c: { message: string }) =>
          c.message.trim(),
        );
        for (const m of ['vendor lib', 'rename in', 'rename out', 'mixed update', 'initial layout'])
          check(msgs.includes(m), `missing ${m}: ${msgs}`);
      },
    },
    {
      name: 'list_commits narrowed to a file',
      run: async () => {
        const msgs = (await ok('list_commits', { path: 'app/main.ts' })).commits.map((c: { message: string }) =>
          c.message.trim(),
        );
        check(msgs.includes('mixed update') && msgs.includes('initial layout'), JSON.stringify(msgs));
      },
    },
    {
      name: 'list_commits pages',
      run: async () => {
        const p1 = await ok('list_commits', { per_page: 1, page: 1 });
        const p2 = await ok('list_commits', { per_page: 1, page: 2 });
        check(
          p1.commits.length === 1 &&
            p2.commits.length === 1 &&
            p1.commits[0].sha !== p2.commits[0].sha &&
            p1.has_more === true,
          'paging',
        );
      },
    },
    {
      name: 'get_commit shows a visible commit',
      run: async () => check((await ok('get_commit', { sha: fx.shas.init })).files.length > 5, 'files'),
    },
    {
      name: 'push_files lands one commit on the bound branch',
      run: async () => {
        const before = await fx.head();
        const s = await ok('push_files', {
          message: 'legit write',
          files: [{ path: 'app/legit.ts', content: 'export const legit = 1;\n' }],
        });
        check(s.branch === 'main' && s.commit === (await fx.head()), 'commit is not the head');
        check((await fx.srv.api('GET', '/api/perimeters/app')).status === 200, 'api');
        const parent = await gitIn(fx.bare, ['rev-parse', `${s.commit}^`]);
        check(parent.trim() === before, 'parent is not the old head');
        check((await ok('get_file', { path: 'app/legit.ts' })).content === 'export const legit = 1;\n', 'read back');
      },
    },
    {
      name: 'push_files deletes a file in scope',
      run: async () => {
        await ok('push_files', { message: 'delete legit', files: [], delete: ['app/legit.ts'] });
        check(!(await fx.lsTree()).includes('app/legit.ts'), 'still there');
      },
    },
    {
      name: 'push_files writes a write-only path',
      run: async () =>
        void (await ok('push_files', { message: 'drop', files: [{ path: 'drop/out.txt', content: 'out\n' }] })),
    },
    {
      name: 'an allowlisted branch URL (raw /) reads that branch',
      run: async () => {
        const a = await fx.srv.connect('/mcp/app/feature/ok', 'legacy', { authorization: `Bearer ${fx.keys.app}` });
        check((await ok('get_file', { path: 'app/feature.ts' }, a)).content.includes('feature'), 'content');
      },
    },
    {
      name: 'an allowlisted branch URL (encoded %2F) writes to that branch only',
      run: async () => {
        const a = await fx.srv.connect('/mcp/app/feature%2Fok', 'legacy', { authorization: `Bearer ${fx.keys.app}` });
        const main = await fx.head();
        const s = await ok(
          'push_files',
          { message: 'on feature', files: [{ path: 'app/feature2.ts', content: '2\n' }] },
          a,
        );
        check(
          s.branch === 'feature/ok' && (await fx.head()) === main && (await fx.head('feature/ok')) === s.commit,
          'wrong branch',
        );
      },
    },
    {
      name: 'a 2026-07-28 stateless client reads',
      run: async () =>
        check(
          (await ok('get_file', { path: 'app/main.ts' }, ctx.modern)).content === 'export const main = 2;\n',
          'content',
        ),
    },
    {
      name: 'the narrow perimeter reads with its one tool',
      run: async () => void (await ok('get_file', { path: 'app/lib/util.ts' }, ctx.narrow)),
    },
    {
      name: 'status GET with the key describes the endpoint',
      run: async () => {
        const r = await raw(base, {
          method: 'GET',
          path: '/mcp/app',
          headers: { authorization: `Bearer ${fx.keys.app}` },
        });
        check(r.status === 200 && JSON.parse(r.text).perimeter === 'app', r.text);
      },
    },
    {
      name: "a lower-case bearer scheme and the server's own localhost Origin are accepted",
      run: async () => {
        const origin = `http://localhost:${new URL(base).port}`;
        const r = await raw(base, {
          path: '/mcp/app',
          headers: { ...JSON_HEADERS, authorization: `bearer ${fx.keys.app}`, origin },
          body: INIT,
        });
        check(r.status === 200, `status ${r.status}`);
      },
    },
    {
      name: 'the operator keeps the root surface',
      run: async () => {
        const root = await fx.srv.connect('/mcp/root', 'legacy', { authorization: `Bearer ${OPS_TOKEN}` });
        const r = await callTool(root, 'list_branches', { repo: fx.repo });
        check(
          !r.isError && r.structured.branches.some((b: { name: string }) => b.name === 'feature-hidden'),
          r.text.slice(0, 200),
        );
      },
    },
    {
      name: 'the operator reads filtered history through /api',
      run: async () => {
        const r = await fx.srv.api('GET', '/api/perimeters/app/commits?per_page=100');
        check(r.status === 200 && !JSON.stringify(r.json).includes('CANARY_MSG'), JSON.stringify(r.json).slice(0, 200));
      },
    },
  ];
}
