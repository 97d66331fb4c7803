// Attacks through path arguments: traversal, encodings, look-alikes, glob syntax, privacy zones, symlinks, submodules.
import { blockedRead, sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

/** Hostile paths, each trying to reach something outside the window (`secret/`, the host, git's metadata). */
export const HOSTILE: readonly [category: string, name: string, path: string][] = [
  ['traversal', 'dotdot', '../secret/keys.txt'],
  ['traversal', 'dotdot inside', 'app/../secret/keys.txt'],
  ['traversal', 'dotdot deep', 'app/lib/../../secret/keys.txt'],
  ['traversal', 'dotdot out of the repository', '../../../../etc/passwd'],
  ['traversal', 'dot segment', './secret/keys.txt'],
  ['traversal', 'dot then dotdot', 'app/./../secret/keys.txt'],
  ['traversal', 'empty segment then dotdot', 'app//../secret/keys.txt'],
  ['traversal', 'trailing slash', 'secret/'],
  ['traversal', 'triple dot', '.../secret/keys.txt'],
  ['traversal', 'tilde home', '~/secret/keys.txt'],
  ['traversal', 'shell variable', '$HOME/.ssh/id_rsa'],
  ['traversal', 'absolute', '/secret/keys.txt'],
  ['traversal', 'absolute host file', '/etc/passwd'],
  ['traversal', 'double slash absolute', '//secret/keys.txt'],
  ['traversal', 'drive letter', 'C:secret/keys.txt'],
  ['traversal', 'drive letter backslash', 'C:\\secret\\keys.txt'],
  ['traversal', 'UNC path', '\\\\server\\share\\keys.txt'],
  ['traversal', 'backslash dotdot', '..\\secret\\keys.txt'],
  ['traversal', 'backslash inside', 'app\\..\\secret\\keys.txt'],
  ['traversal', 'overlong path', 'app/' + 'a/'.repeat(2100) + 'x'],
  ['traversal', 'overlong segment', 'app/' + 'a'.repeat(300)],
  ['encoding', 'percent dotdot', '%2e%2e/secret/keys.txt'],
  ['encoding', 'percent dotdot upper', '%2E%2E/secret/keys.txt'],
  ['encoding', 'percent slash', 'app%2F..%2Fsecret%2Fkeys.txt'],
  ['encoding', 'percent dotdot inside', 'app/%2e%2e/secret/keys.txt'],
  ['encoding', 'percent backslash', 'app%5c..%5csecret%5ckeys.txt'],
  ['encoding', 'percent NUL', 'app/main.ts%00/../../secret/keys.txt'],
  ['encoding', 'double percent', 'app/%252e%252e/secret/keys.txt'],
  ['encoding', 'overlong UTF-8 escapes', '%c0%ae%c0%ae/secret/keys.txt'],
  ['encoding', 'overlong UTF-8 as latin-1', '\u00c0\u00ae\u00c0\u00ae/secret/keys.txt'],
  ['encoding', 'fullwidth dots', '\uff0e\uff0e/secret/keys.txt'],
  ['encoding', 'division slash', 'app/..\u2215secret\u2215keys.txt'],
  ['encoding', 'fraction slash', '..\u2044secret/keys.txt'],
  ['encoding', 'fullwidth solidus', 'app\uff0f..\uff0fsecret\uff0fkeys.txt'],
  ['control-chars', 'NUL then dotdot', 'app/main.ts\u0000/../../secret/keys.txt'],
  ['control-chars', 'NUL suffix', 'secret/keys.txt\u0000.md'],
  ['control-chars', 'newline', 'app/\n../secret/keys.txt'],
  ['control-chars', 'carriage return', 'secret/keys.txt\r'],
  ['control-chars', 'tab', 'app/\t/../secret'],
  ['control-chars', 'DEL', 'app/\u007f../secret/keys.txt'],
  ['control-chars', 'C1 control', 'app/\u0085secret'],
  ['control-chars', 'zero width space', 'app\u200b/../secret/keys.txt'],
  ['control-chars', 'zero width joiner', '\u200dsecret/keys.txt'],
  ['control-chars', 'bidi override', 'app/\u202etxt.syek/terces'],
  ['control-chars', 'bidi isolate', '\u2066secret/keys.txt'],
  ['control-chars', 'byte order mark', '\ufeffsecret/keys.txt'],
  ['control-chars', 'line separator', 'secret/keys.txt\u2028'],
  ['control-chars', 'lone surrogate', 'secret/keys\ud800.txt'],
  ['pathspec', 'git dir', '.git/config'],
  ['pathspec', 'git HEAD', '.git/HEAD'],
  ['pathspec', 'pathspec top magic', ':/secret/keys.txt'],
  ['pathspec', 'pathspec glob magic', ':(glob)secret/**'],
  ['pathspec', 'pathspec exclude magic', ':!app'],
  ['pathspec', 'pathspec icase', ':(icase)SECRET/keys.txt'],
  ['pathspec', 'rev:path syntax', 'main:secret/keys.txt'],
  ['pathspec', 'HEAD:path syntax', 'HEAD:secret/keys.txt'],
  ['pathspec', 'option injection', '--output=/tmp/gb-owned'],
  ['pathspec', 'short option injection', '-p'],
];

/** Look-alike spellings of `app/` and the private files inside it, all committed with a canary. */
export const LOOKALIKES: readonly [category: string, name: string, dir: string][] = [
  ['case-unicode', 'capitalised dir', 'App'],
  ['case-unicode', 'upper-case dir', 'APP'],
  ['case-unicode', 'fullwidth dir', '\uff41\uff50\uff50'],
  ['case-unicode', 'Cyrillic a dir', '\u0430pp'],
  ['case-unicode', 'combining dot dir', 'app\u0307'],
  ['prefix', 'trailing space dir', 'app '],
  ['prefix', 'infra2-style dir', 'app2'],
  ['prefix', 'infra.bak-style dir', 'app.bak'],
  ['prefix', 'dash suffix dir', 'app-old'],
];

export const GLOBS: readonly string[] = [
  'app/*',
  '*',
  '**',
  '**/keys.txt',
  'secret/*',
  's[e]cret/keys.txt',
  '{app,secret}/keys.txt',
  'secret/key?.txt',
  '+(secret)/keys.txt',
  '!(app)/keys.txt',
  '@(secret)/keys.txt',
  '*/keys.txt',
  '**/.env',
  'app/.e*',
  'app/**',
  'docs/**',
];

export const PRIVATE: readonly string[] = [
  'app/.env',
  'app/.ENV',
  'app/.env.',
  'app/id_rsa',
  'app/ID_RSA.pub',
  'app/certs/server.pem',
  'app/config/credentials.json',
  'app/config/credentials.csv',
  'app/.aws/sso/cache/token.json',
  'app/data/app.sqlite.bak',
  'app/.git/config',
];

/** Every read tool, with the argument shape that carries one path. */
const READERS: readonly [tool: string, args: (p: string) => Record<string, unknown>][] = [
  ['get_file', (p) => ({ path: p })],
  ['get_files', (p) => ({ paths: [p] })],
  ['get_tree', (p) => ({ path: p, recursive: true })],
  ['list_commits', (p) => ({ path: p, per_page: 100 })],
];

export function pathAttacks(ctx: Ctx): Attack[] {
  const out: Attack[] = [];
  // Each hostile path goes to get_file and to one other read tool in turn (path validation is shared by all tools;
  // test/core covers the validator itself exhaustively, here we check the wiring of every tool).
  const pair = (i: number) => [READERS[0], READERS[1 + (i % 3)]] as const;
  for (const [i, [category, name, path]] of HOSTILE.entries()) {
    for (const reader of pair(i)) {
      if (!reader) continue;
      const [tool, args] = reader;
      out.push({
        category,
        name: `${tool}: ${name}`,
        ...(tool === 'list_commits' ? { only: 'local' as const } : {}),
        run: async () => void (await blockedRead(ctx, tool, args(path))),
      });
    }
  }
  for (const [category, name, dir] of LOOKALIKES) {
    for (const [tool, args] of [READERS[0], READERS[2]].flatMap((r) => (r ? [r] : []))) {
      const p =
        tool === 'get_tree' || tool === 'list_commits' ? dir : `${dir}/${dir === 'app2' ? 'leak.ts' : 'main.ts'}`;
      out.push({ category, name: `${tool}: ${name}`, run: async () => void (await blockedRead(ctx, tool, args(p))) });
    }
  }
  for (const [label, path] of [
    ['nested doc below a one-level glob', 'docs/internal/plan.md'],
    ['sibling extension of a *.md glob', 'docs/notes.txt'],
    ['prefix of a literal segment', 'ap/main.ts'],
    ['case variant of a readable file', 'app/MAIN.ts'],
  ] as const) {
    for (const [tool, args] of READERS.slice(0, 2)) {
      out.push({
        category: 'prefix',
        name: `${tool}: ${label}`,
        run: async () => void (await blockedRead(ctx, tool, args(path))),
      });
    }
  }
  for (const [i, g] of GLOBS.entries()) {
    for (const [tool, args] of pair(i).flatMap((r) => (r ? [r] : []))) {
      out.push({
        category: 'glob',
        name: `${tool}: glob syntax ${g}`,
        ...(tool === 'list_commits' ? { only: 'local' as const } : {}),
        run: async () => void (await blockedRead(ctx, tool, args(g), { listOk: true })),
      });
    }
  }
  for (const p of PRIVATE) {
    out.push({
      category: 'privacy',
      name: `get_file: ${p}`,
      run: async () => void (await blockedRead(ctx, 'get_file', { path: p })),
    });
    out.push({
      category: 'privacy',
      name: `list_commits: ${p}`,
      only: 'local',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: p })),
    });
  }
  out.push(
    {
      category: 'privacy',
      name: 'get_files: every private file at once',
      run: async () => void (await blockedRead(ctx, 'get_files', { paths: [...PRIVATE] })),
    },
    {
      category: 'privacy',
      name: 'get_tree: wholly private directory',
      run: async () => void (await blockedRead(ctx, 'get_tree', { path: 'app/certs' })),
    },
    {
      category: 'privacy',
      name: 'get_tree: .git below a readable dir',
      run: async () => void (await blockedRead(ctx, 'get_tree', { path: 'app/.git' })),
    },
    {
      category: 'privacy',
      name: 'get_tree: recursive listing names no private file',
      run: async () => {
        const r = await callTool(ctx.app, 'get_tree', { path: 'app', recursive: true });
        const paths: string[] = r.structured.entries.map((e: { path: string }) => e.path);
        for (const p of PRIVATE) check(!paths.includes(p), `listed ${p}`);
        check(!paths.includes('app/certs'), 'listed the wholly private app/certs');
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'listing',
      name: 'get_tree: recursive root lists nothing hidden',
      run: async () => {
        const r = await callTool(ctx.app, 'get_tree', { recursive: true });
        for (const e of r.structured.entries as { path: string }[]) {
          check(
            e.path.startsWith('app/') || e.path === 'app' || e.path === 'docs' || e.path === 'docs/guide.md',
            `listed ${e.path}`,
          );
        }
        noLeak(ctx.fx, whole(r), {});
      },
    },
  );
  out.push(...symlinkAttacks(ctx), ...submoduleAttacks(ctx));
  return out;
}

function symlinkAttacks(ctx: Ctx): Attack[] {
  // A link whose target is not readable reads as missing (issue 9 item 8): its text would name the hidden path.
  const target = (path: string, text: string): Attack => ({
    category: 'symlink',
    name: `get_file: symlink ${path} (-> ${text}) reads as missing`,
    run: () =>
      sameAnswers(ctx, [
        { tool: 'get_file', args: { path }, mask: [path] },
        { tool: 'get_file', args: { path: 'app/no-link' }, mask: ['app/no-link'] },
      ]),
  });
  return [
    target('app/link-out', '../secret/keys.txt'),
    target('app/link-abs', '/etc/passwd'),
    target('app/link-up', '../../../../../../etc/hostname'),
    target('app/link-dir', '../secret'),
    target('app/link-env', '.env'),
    {
      category: 'symlink',
      name: 'get_file: through a symlinked directory',
      run: async () => void (await blockedRead(ctx, 'get_file', { path: 'app/link-dir/keys.txt' })),
    },
    {
      category: 'symlink',
      name: 'get_tree: a symlinked directory',
      run: async () =>
        void (await blockedRead(ctx, 'get_tree', { path: 'app/link-dir', recursive: true }, { mustFail: true })),
    },
    {
      category: 'symlink',
      name: 'get_files: symlinks and paths through them',
      run: async () => {
        const r = await blockedRead(ctx, 'get_files', { paths: ['app/link-dir/keys.txt', 'app/link-abs/x'] });
        check(r.structured.found === 0, 'read through a symlink');
      },
    },
    {
      category: 'symlink',
      name: 'get_files: symlink targets stay text',
      run: async () => {
        const r = await callTool(ctx.app, 'get_files', { paths: ['app/link-out', 'app/link-env', 'app/link-abs'] });
        check(r.structured.found === 0, `served ${r.structured.found} links to unreadable targets`);
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'symlink',
      name: 'list_commits: path through a symlinked directory',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: 'app/link-dir/keys.txt' })),
    },
    {
      category: 'symlink',
      name: 'push_files: write through a symlinked directory',
      run: async () => {
        const before = await ctx.fx.lsTree();
        const r = await callTool(ctx.app, 'push_files', {
          message: 'x',
          files: [{ path: 'app/link-dir/evil.txt', content: 'owned\n' }],
        });
        noLeak(ctx.fx, whole(r), {});
        const after = await ctx.fx.lsTree();
        check(!after.includes('secret/evil.txt'), 'wrote into secret/ through a symlink');
        check(
          after.filter((p) => p.startsWith('secret/')).join() === before.filter((p) => p.startsWith('secret/')).join(),
          'secret/ changed',
        );
      },
    },
  ];
}

function submoduleAttacks(ctx: Ctx): Attack[] {
  return [
    {
      category: 'submodule',
      name: 'get_file: the gitlink itself',
      run: async () => void (await blockedRead(ctx, 'get_file', { path: 'app/vendor/lib' })),
    },
    {
      category: 'submodule',
      name: 'get_file: a file inside the submodule',
      run: async () => void (await blockedRead(ctx, 'get_file', { path: 'app/vendor/lib/README.md' })),
    },
    {
      category: 'submodule',
      name: 'get_file: the submodule git dir',
      run: async () => void (await blockedRead(ctx, 'get_file', { path: 'app/vendor/lib/.git' })),
    },
    {
      category: 'submodule',
      name: 'get_tree: into the submodule',
      run: async () => void (await blockedRead(ctx, 'get_tree', { path: 'app/vendor/lib' }, { mustFail: true })),
    },
    {
      category: 'submodule',
      name: 'get_file: the hidden .gitmodules',
      run: async () => void (await blockedRead(ctx, 'get_file', { path: '.gitmodules' })),
    },
    {
      category: 'submodule',
      name: 'get_tree: listing the vendor dir shows no submodule URL',
      run: async () => {
        const r = await callTool(ctx.app, 'get_tree', { path: 'app/vendor', recursive: true });
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'submodule',
      name: 'get_commit: the submodule commit omits .gitmodules',
      run: async () => {
        const r = await callTool(ctx.app, 'get_commit', { sha: ctx.fx.shas.submodule });
        check(!r.isError, r.text);
        // .gitmodules is in this perimeter's write globs: a write-only path is never counted (issue 9 item 3).
        check(r.structured.omitted_count === 0, `omitted_count ${r.structured.omitted_count}`);
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'submodule',
      name: 'get_files: gitlink and inside',
      run: async () =>
        void (await blockedRead(ctx, 'get_files', { paths: ['app/vendor/lib', 'app/vendor/lib/x', '.gitmodules'] })),
    },
  ];
}

/** Hidden, private and missing things must read the same for every read tool. */
export function indistinguishableReads(ctx: Ctx): Attack[] {
  const three = (
    tool: string,
    args: (p: string) => Record<string, unknown>,
    paths: string[],
    agent = ctx.app,
    label = '',
    only?: 'local',
  ): Attack => ({
    ...(only ? { only } : {}),
    category: 'indistinguishable',
    name: `${tool}${label}: out-of-scope vs private vs missing (${paths.join(' | ')})`,
    run: () =>
      sameAnswers(
        ctx,
        paths.map((p) => ({ tool, args: args(p), mask: [p], agent })),
      ),
  });
  return [
    three('get_file', (p) => ({ path: p }), ['secret/keys.txt', 'app/.env', 'app/nope.ts']),
    three('get_file', (p) => ({ path: p }), ['app2/leak.ts', 'app/id_rsa', 'app/none.ts']),
    three('get_file', (p) => ({ path: p }), ['README.md', 'app/certs/server.pem', 'docs/none.md']),
    three('get_files', (p) => ({ paths: [p] }), ['secret/keys.txt', 'app/.env', 'app/nope.ts']),
    three('get_files', (p) => ({ paths: ['app/main.ts', p] }), [
      '.github/workflows/ci.yml',
      'app/config/credentials.json',
      'app/nope.json',
    ]),
    three('get_tree', (p) => ({ path: p }), ['secret', 'app/certs', 'app/nodir']),
    three('get_tree', (p) => ({ path: p, recursive: true }), ['app2', 'app/.git', 'nodir']),
    three('list_commits', (p) => ({ path: p }), ['secret/keys.txt', 'app/.env', 'app/nope.ts']),
    three('list_commits', (p) => ({ path: p }), ['secret', 'app/certs', 'nodir'], ctx.app, '', 'local'),
    three(
      'get_file',
      (p) => ({ path: p }),
      ['secret/keys.txt', 'app/.env', 'app/nope.ts'],
      ctx.modern,
      ' (2026 client)',
    ),
    three(
      'get_file',
      (p) => ({ path: p }),
      ['secret/keys.txt', 'app/.env', 'app/nope.ts'],
      ctx.narrow,
      ' (narrow perimeter)',
    ),
  ];
}
