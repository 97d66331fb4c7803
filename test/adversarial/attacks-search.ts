// Issue 12: search_code, line windows and change cursors under attack. Hits from hidden files, privacy zones or other
// branches; regex bombs; pathspec magic and escapes in `path`; control characters; forged, foreign and JSON cursors.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitIn } from '../support/gitdir.js';
import { APP_READ } from './fixture.js';
import { sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

const BOMBS = ['(a+)+$', '(a|aa)+b', '(.*a){25}', '([a-z]+)*!', '(x+x+)+y', '^(\\w+\\s?)*$'];
const BAD_PATHS = [
  ':(glob)**',
  ':(glob)secret/**',
  ':!app',
  ':(exclude)app',
  ':/',
  ':(top)secret',
  'app/../secret',
  '/etc',
  '../',
  'secret',
  'app/certs',
  '.',
  'app/.env',
];
export const HIDDEN_WORDS = [
  'CANARY',
  'CANARY_SECRET_KEYS',
  'canary_env_file',
  'DB_PASSWORD=CANARY',
  'CANARY_BRANCH_FILE',
  'CANARY_PEM',
];

/** Attacks on search_code and changes_since; get_file windows on hidden files. */
export function searchAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const out: Attack[] = [];
  const search = (args: Record<string, unknown>) => callTool(ctx.app, 'search_code', args);

  for (const query of HIDDEN_WORDS) {
    for (const regex of [false, true]) {
      out.push({
        category: 'search-hidden',
        name: `search_code ${JSON.stringify(query)} regex=${regex}: no hit from a hidden file, privacy zone or another branch`,
        run: async () => {
          const r = await search({ query, regex });
          check(!r.isError, r.text);
          noLeak(fx, whole(r), { query });
          for (const m of r.structured.matches as { path: string }[])
            check(
              /^app\/|^docs\/[^/]+\.md$/.test(m.path) && !/\.env|id_rsa|\.pem|credentials/i.test(m.path),
              `hit in ${m.path}`,
            );
        },
      });
    }
  }
  out.push({
    category: 'search-hidden',
    name: 'search_code: a word only hidden files hold answers byte-for-byte like a word nobody holds',
    run: () =>
      sameAnswers(ctx, [
        { tool: 'search_code', args: { query: 'CANARY_SECRET_KEYS' }, mask: ['CANARY_SECRET_KEYS'] },
        { tool: 'search_code', args: { query: 'NOPE_NOWHERE_00000' }, mask: ['NOPE_NOWHERE_00000'] },
      ]),
  });
  out.push({
    category: 'search-hidden',
    name: 'search_code: a hidden directory as `path` answers like a missing one',
    run: () =>
      sameAnswers(ctx, [
        { tool: 'search_code', args: { query: 'x', path: 'secret' }, mask: ['secret'] },
        { tool: 'search_code', args: { query: 'x', path: 'app/certs' }, mask: ['app/certs'] },
        { tool: 'search_code', args: { query: 'x', path: 'nosuchdir' }, mask: ['nosuchdir'] },
      ]),
  });
  for (const path of BAD_PATHS) {
    out.push({
      category: 'search-path',
      name: `search_code path ${JSON.stringify(path)}: refused or empty, never a hidden hit`,
      run: async () => {
        const r = await search({ query: 'CANARY', path });
        noLeak(fx, whole(r), { path });
        if (!r.isError)
          for (const m of r.structured.matches as { path: string }[])
            check(m.path.startsWith('app/') && !/\.env/.test(m.path), `hit in ${m.path}`);
      },
    });
  }
  for (const pattern of BOMBS) {
    out.push({
      category: 'search-redos',
      name: `search_code regex bomb ${pattern}: bounded time, no leak`,
      run: async () => {
        const started = Date.now();
        const r = await search({ query: pattern, regex: true });
        check(Date.now() - started < 9000, `took ${Date.now() - started} ms`);
        check(!r.isError || /too expensive|not valid|not supported/.test(r.text), r.text);
        noLeak(fx, whole(r), { pattern });
      },
    });
  }
  // Issue 19: the agent's pattern runs on readable bytes only. A guess that makes PCRE give up on a hidden line (a
  // privacy zone under a readable prefix, or a hidden file under a literal prefix of a read glob) answers exactly
  // like a guess that matches nothing anywhere: no refusal, no skipped note, one bit fewer per call.
  const guess = (prefix: string) => `^(?=${prefix})(\\w+\\s?)*$`;
  for (const [label, right] of [
    ['privacy-zone line under a readable prefix', 'CANARY_BOMB_ENV'],
    ['hidden file under a literal prefix of a read glob', 'CANARY_BOMB_DOCS'],
  ] as const) {
    out.push({
      category: 'search-engine',
      name: `search_code: a regex PCRE gives up on only on a ${label} answers like a wrong guess`,
      run: () =>
        sameAnswers(ctx, [
          { tool: 'search_code', args: { query: guess(right), regex: true }, mask: [] },
          { tool: 'search_code', args: { query: guess('XYZZY_NOWHERE'), regex: true }, mask: [] },
        ]),
    });
  }
  out.push({
    category: 'search-engine',
    name: 'search_code: the bomb pattern over the whole window is not refused for hidden lines',
    run: async () => {
      const r = await search({ query: '^(\\w+\\s?)*$', regex: true });
      check(!r.isError, r.text);
      check(r.structured.skipped === undefined, `skipped ${JSON.stringify(r.structured.skipped)}`);
      noLeak(fx, whole(r), {});
    },
  });
  out.push({
    category: 'search-engine',
    name: 'search_code: a directory kept only by a link to a hidden target answers like a missing directory',
    run: () =>
      sameAnswers(ctx, [
        { tool: 'search_code', args: { query: 'x', path: 'app/links' }, mask: ['app/links'] },
        { tool: 'search_code', args: { query: 'x', path: 'nosuchdir' }, mask: ['nosuchdir'] },
      ]),
  });
  const refusals: [string, Record<string, unknown>][] = [
    ['513-char query', { query: 'x'.repeat(513) }],
    ['empty query', { query: '' }],
    ['NUL in the query', { query: 'a\u0000b' }],
    ['newline in the query', { query: 'a\nCANARY' }],
    ['escape character in the query', { query: '\u001b[31m' }],
    ['max_results 100000', { query: 'export', max_results: 100_000 }],
    ['max_results 0', { query: 'export', max_results: 0 }],
    ['max_results 1.5', { query: 'export', max_results: 1.5 }],
    ['invalid regex', { query: '(unclosed', regex: true }],
    ['NUL in path', { query: 'x', path: 'app\u0000' }],
    ['unknown argument (branch)', { query: 'x', branch: 'feature-hidden' }],
    ['unknown argument (ref)', { query: 'x', ref: 'feature-hidden' }],
  ];
  for (const [label, args] of refusals) {
    out.push({
      category: 'search-input',
      name: `search_code ${label}: refused`,
      run: async () => {
        const r = await search(args);
        check(r.isError === true, r.text.slice(0, 200));
        noLeak(fx, whole(r), args);
      },
    });
  }
  for (const query of [
    'x'.repeat(512),
    '--all',
    '-e',
    '--no-index',
    '-f/etc/passwd',
    ':(glob)**',
    '--open-files-in-pager=id',
    '\\',
    '[',
  ]) {
    out.push({
      category: 'search-input',
      name: `search_code literal ${JSON.stringify(query.slice(0, 20))}: searched as text, nothing else`,
      run: async () => {
        const r = await search({ query });
        check(!r.isError, r.text);
        noLeak(fx, whole(r), { query });
        check(!r.text.includes('root:'), 'file outside the repository served');
      },
    });
  }
  out.push({
    category: 'search-input',
    name: 'search_code on a perimeter without the tool reads as an unknown tool',
    run: async () => {
      const r = await callTool(ctx.narrow, 'search_code', { query: 'export' });
      check(r.isError === true, r.text);
    },
  });
  out.push({
    category: 'window',
    name: 'get_file line window on a hidden file reads as missing, like a missing file',
    run: () =>
      sameAnswers(ctx, [
        { tool: 'get_file', args: { path: 'app/.env', start_line: 1, end_line: 1 }, mask: ['app/.env'] },
        { tool: 'get_file', args: { path: 'app/nope.ts', start_line: 1, end_line: 1 }, mask: ['app/nope.ts'] },
      ]),
  });

  // Change cursors.
  const changes = (cursor: unknown) => callTool(ctx.app, 'changes_since', cursor === undefined ? {} : { cursor });
  const freshOnly = (label: string, make: () => Promise<unknown>): Attack => ({
    category: 'cursor',
    name: `changes_since with ${label}: a fresh start, no changes, no reason given`,
    run: async () => {
      const cursor = await make();
      const r = await changes(cursor);
      check(!r.isError, r.text);
      check(r.structured.fresh_instance === true && r.structured.changes.length === 0, r.text.slice(0, 300));
      noLeak(fx, whole(r), { cursor });
    },
  });
  const otherCursor = async (): Promise<string> => {
    const other = await fx.srv.connect('/mcp/other', 'legacy', { authorization: `Bearer ${fx.keys.other}` });
    try {
      return (await other.call('changes_since', {})).structured.cursor as string;
    } finally {
      await other.close();
    }
  };
  const payload = async (branch: string, who = 'agent:app') =>
    JSON.stringify({ v: 1, who, repo: fx.repo, branch, commit: fx.shas.privateOnly });
  out.push(freshOnly("another perimeter's cursor", otherCursor));
  out.push(
    freshOnly("base64 of another perimeter's cursor", async () => Buffer.from(await otherCursor()).toString('base64')),
  );
  out.push(
    freshOnly("another perimeter's cursor with one byte flipped", async () => {
      const c = await otherCursor();
      const raw = Buffer.from(c.slice(5), 'base64url');
      raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 1;
      return `gbc1.${raw.toString('base64url')}`;
    }),
  );
  out.push(freshOnly('a JSON cursor naming an old commit', () => payload('main')));
  out.push(freshOnly('a base64 JSON cursor', async () => Buffer.from(await payload('main')).toString('base64')));
  out.push(freshOnly('a JSON cursor for a hidden branch', () => payload('feature-hidden')));
  out.push(freshOnly('a bare prefix', async () => 'gbc1.'));
  out.push(freshOnly('an empty string', async () => ''));
  out.push(freshOnly('a cursor with a NUL', async () => 'gbc1.\u0000AAAA'));
  out.push({
    category: 'cursor',
    name: 'changes_since with a 5000-character cursor: refused by the schema, nothing leaks',
    run: async () => {
      const r = await changes('A'.repeat(5000));
      check(r.isError === true, r.text.slice(0, 200));
      noLeak(fx, whole(r), {});
    },
  });
  out.push({
    category: 'cursor',
    name: 'changes_since followed from a fresh cursor: only readable paths, never a hidden name',
    run: async () => {
      const first = await changes(undefined);
      check(first.structured.fresh_instance === true, first.text);
      const r = await changes(first.structured.cursor);
      check(!r.isError && r.structured.fresh_instance === false, r.text);
      for (const c of r.structured.changes as { path: string; previous_path?: string }[]) {
        for (const p of [c.path, c.previous_path ?? 'app/x'])
          check(/^app\/|^docs\/[^/]+\.md$/.test(p) && !/\.env|id_rsa|\.pem|credentials/i.test(p), `change names ${p}`);
      }
      noLeak(fx, whole(r), {});
    },
  });
  out.push({
    category: 'cursor',
    name: 'changes_since after links to hidden targets land: only the link get_tree shows is listed (issue 19)',
    run: async () => {
      // A branch of its own (the other attacks compare main's head), moved beside the server by git plumbing.
      const branch = `links-19-${fx.kind}`;
      const base = (await gitIn(fx.bare, ['rev-parse', 'refs/heads/main'])).trim();
      await gitIn(fx.bare, ['update-ref', `refs/heads/${branch}`, base]);
      await fx.srv.perimeter({ id: 'linky', repo: fx.repo, read: APP_READ, write: [], branches: [branch] });
      const key = await fx.srv.api('POST', '/api/perimeters/linky/keys');
      const agent = await fx.srv.connect(`/mcp/linky/${branch}`, 'legacy', { authorization: `Bearer ${key.json.key}` });
      try {
        const first = await callTool(agent, 'changes_since', {});
        check(first.structured?.fresh_instance === true, first.text.slice(0, 200));
        const links: Record<string, string> = {
          'app/l19-ok': 'main.ts',
          'app/l19-out': '../secret/keys.txt',
          'app/l19-env': '.env',
          'app/l19-abs': '/etc/passwd',
          'app/l19-dir': '../secret',
        };
        const scratch = await mkdtemp(join(tmpdir(), 'gb-links19-'));
        try {
          const env = { GIT_INDEX_FILE: join(scratch, 'index') };
          await gitIn(fx.bare, ['read-tree', base], env);
          for (const [path, target] of Object.entries(links)) {
            const id = (await hashText(fx.bare, target)).trim();
            await gitIn(fx.bare, ['update-index', '--add', '--cacheinfo', `120000,${id},${path}`], env);
          }
          const tree = (await gitIn(fx.bare, ['write-tree'], env)).trim();
          const commit = (await gitIn(fx.bare, ['commit-tree', tree, '-p', base, '-m', 'links'])).trim();
          await gitIn(fx.bare, ['update-ref', `refs/heads/${branch}`, commit]);
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
        const r = await callTool(agent, 'changes_since', { cursor: first.structured.cursor });
        check(!r.isError, r.text.slice(0, 200));
        check(
          JSON.stringify(r.structured.changes) === JSON.stringify([{ path: 'app/l19-ok', change: 'added' }]),
          `changes: ${JSON.stringify(r.structured.changes)}`,
        );
        noLeak(fx, whole(r), {});
      } finally {
        await agent.close();
      }
    },
  });
  return out;
}

/** Writes `text` as a blob (no final newline: a symlink's target) and answers its id. */
function hashText(bare: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', ['hash-object', '-w', '--stdin'], { cwd: bare }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
    child.stdin?.end(text);
  });
}
