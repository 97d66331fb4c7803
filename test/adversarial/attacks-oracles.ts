// Oracles (issue 9 items 2, 3, 8): answers whose ids, counts or presence depend on hidden content. Tree ids that
// hash hidden entries, omitted_count on the agent's own commit over write-only paths, symlinks naming hidden paths.
import { createHash } from 'node:crypto';
import { gitIn } from '../support/gitdir.js';
import { sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, redact, type Attack, type CallOut } from './harness.js';

/** The git blob id of UTF-8 text (what `git hash-object` prints in a SHA-1 repository). */
const blobId = (text: string): string => {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
};

const LISTINGS: Record<string, unknown>[] = [
  {},
  { recursive: true },
  { path: 'app' },
  { path: 'app', recursive: true },
  { path: 'app/lib' },
  { path: 'docs' },
  { path: 'app/vendor' },
];
const DIRS = ['', 'app', 'app/lib', 'app/config', 'app/certs', 'app/vendor', 'app/links', 'docs', 'docs/internal'];

/** Reads that must not carry an id hashing hidden content, and symlinks that must not name a hidden path. */
export function oracleReadAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const treeIds = async () =>
    Promise.all(DIRS.map(async (d) => (await gitIn(fx.bare, ['rev-parse', `main:${d}`])).trim()));
  const out: Attack[] = [];
  for (const args of LISTINGS) {
    out.push({
      category: 'oracle-ids',
      name: `get_tree ${JSON.stringify(args)}: no directory id, no real tree id anywhere`,
      run: async () => {
        const r = await callTool(ctx.app, 'get_tree', args);
        check(!r.isError, r.text);
        for (const e of r.structured.entries as { type: string; sha?: string; path: string }[])
          check(e.type !== 'dir' || e.sha === undefined, `directory ${e.path} carries ${e.sha}`);
        const text = whole(r);
        for (const id of await treeIds()) check(!text.includes(id), `a real tree id (${id}) was served`);
        noLeak(fx, text, args);
      },
    });
  }
  out.push({
    category: 'oracle-ids',
    name: 'get_tree: every served id is the blob of that readable path or a pinned submodule commit',
    run: async () => {
      const r = await callTool(ctx.app, 'get_tree', { recursive: true });
      for (const e of r.structured.entries as { type: string; sha?: string; path: string }[]) {
        if (e.type === 'dir') continue;
        const real = (await gitIn(fx.bare, ['rev-parse', `main:${e.path}`])).trim();
        check(e.sha === real, `${e.path}: served ${e.sha}, object is ${real}`);
      }
    },
  });
  out.push({
    category: 'oracle-ids',
    name: 'get_tree: a wholly hidden directory vs a missing one (no id to tell them apart)',
    run: () =>
      sameAnswers(ctx, [
        { tool: 'get_tree', args: { path: 'app/certs' }, mask: ['app/certs'] },
        { tool: 'get_tree', args: { path: 'app/none-dir' }, mask: ['app/none-dir'] },
      ]),
  });

  // Symlinks (issue 9 item 8): the target, resolved inside the repository, must be readable.
  const missingLike = (path: string, label: string): Attack => ({
    category: 'oracle-symlink',
    name: `get_file: ${label} reads as missing`,
    run: () =>
      sameAnswers(ctx, [
        { tool: 'get_file', args: { path }, mask: [path] },
        { tool: 'get_file', args: { path: 'app/not-a-link' }, mask: ['app/not-a-link'] },
      ]),
  });
  out.push(
    missingLike('app/links/only-bad', 'link two levels up into secret/'),
    missingLike('app/link-up', 'link escaping the repository root'),
    missingLike('app/link-abs', 'absolute link'),
    {
      category: 'oracle-symlink',
      name: 'get_files: bad links answer like missing files, one by one',
      run: async () => {
        const norm = (r: CallOut, p: string) => redact(JSON.stringify(r.structured), p);
        const none = norm(await callTool(ctx.app, 'get_files', { paths: ['app/not-a-link'] }), 'app/not-a-link');
        for (const p of [
          'app/link-out',
          'app/link-env',
          'app/link-dir',
          'app/link-abs',
          'app/link-up',
          'app/links/only-bad',
        ]) {
          check(
            norm(await callTool(ctx.app, 'get_files', { paths: [p] }), p) === none,
            `${p} answers unlike a missing file`,
          );
        }
      },
    },
    {
      category: 'oracle-symlink',
      name: 'get_tree: a directory holding only a bad link reads as missing',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_tree', args: { path: 'app/links' }, mask: ['app/links'] },
          { tool: 'get_tree', args: { path: 'app/none-dir' }, mask: ['app/none-dir'] },
        ]),
    },
    {
      category: 'oracle-symlink',
      name: 'get_tree: recursive listing shows good links only',
      run: async () => {
        const r = await callTool(ctx.app, 'get_tree', { path: 'app', recursive: true });
        const links = (r.structured.entries as { type: string; path: string }[])
          .filter((e) => e.type === 'symlink')
          .map((e) => e.path)
          .sort();
        check(JSON.stringify(links) === '["app/link-chain","app/link-doc","app/link-ok"]', `links listed: ${links}`);
        check(
          !(r.structured.entries as { path: string }[]).some((e) => e.path === 'app/links'),
          'listed app/links, which holds only a bad link',
        );
      },
    },
    {
      category: 'oracle-symlink',
      name: 'get_file: a chain of links is judged on its own text (names a readable path, never the hidden end)',
      run: async () => {
        const r = await callTool(ctx.app, 'get_file', { path: 'app/link-chain' });
        check(!r.isError && r.structured.content === 'link-out' && r.structured.symlink === true, r.text);
        noLeak(fx, whole(r), {});
        const next = await callTool(ctx.app, 'get_file', { path: 'app/link-out' });
        check(next.isError === true, 'the next link of the chain was served');
      },
    },
    {
      category: 'oracle-symlink',
      // Issue 19 class 5: as absent from the commit as from get_tree (not even a path with zero counts).
      name: 'get_commit: a bad link added in a commit is left out (no path, no target text)',
      run: async () => {
        const r = await callTool(ctx.app, 'get_commit', { sha: fx.shas.init });
        const files = r.structured.files as { path: string; patch?: string; additions: number }[];
        for (const p of ['app/link-out', 'app/link-abs', 'app/link-up', 'app/link-dir', 'app/link-env']) {
          const f = files.find((x) => x.path === p);
          check(
            f === undefined && !r.text.includes(`${p}\n`) && !r.text.includes(`${p} `),
            `${p}: ${JSON.stringify(f)}`,
          );
        }
        check(
          files.find((x) => x.path === 'app/link-ok')?.patch?.includes('+lib/util.ts') === true,
          'the good link lost its patch',
        );
        noLeak(fx, whole(r), {}, ['lib/util.ts', '../docs/guide.md']);
      },
    },
    {
      category: 'oracle-symlink',
      name: 'get_files: link to a readable file in another readable glob is served',
      run: async () => {
        const r = await callTool(ctx.app, 'get_files', { paths: ['app/link-doc', 'app/link-ok'] });
        check(r.structured.found === 2, r.text);
        noLeak(fx, whole(r), {}, ['../docs/guide.md', 'lib/util.ts']);
      },
    },
    {
      category: 'oracle-symlink',
      name: 'get_file: narrow perimeter (app/** only) does not get the link into docs/',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_file', args: { path: 'app/link-doc' }, mask: ['app/link-doc'], agent: ctx.narrow },
          { tool: 'get_file', args: { path: 'app/not-a-link' }, mask: ['app/not-a-link'], agent: ctx.narrow },
        ]),
    },
  );
  return out;
}

const MULTI = ['alpha', 'beta', 'ORACLE_PIN_LINE=7', 'delta', 'epsilon', 'zeta'].join('\n') + '\n';

/** The agent's own commits over write-only paths (drop/**): no answer may depend on the hidden state. */
export function oracleWriteAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const push = async (args: Record<string, unknown>) => {
    const r = await callTool(ctx.app, 'push_files', args);
    check(!r.isError, `push refused: ${r.text}`);
    return r;
  };
  /** Pushes, then reads the commit back; the answers with the commit's own ids and the agent's paths masked. */
  const probe = async (
    own: string,
    extra: { files?: { path: string; content: string }[]; delete?: string[]; ownContent?: string },
    hiddenPath: string,
  ) => {
    const w = await push({
      message: 'probe',
      files: [{ path: own, content: extra.ownContent ?? 'p\n' }, ...(extra.files ?? [])],
      ...(extra.delete ? { delete: extra.delete } : {}),
    });
    const sha = w.structured.commit as string;
    const c = await callTool(ctx.app, 'get_commit', { sha });
    noLeak(fx, whole(c), { own, hiddenPath });
    const body = {
      isError: c.isError ?? false,
      files: c.structured?.files,
      stats: c.structured?.stats,
      omitted_count: c.structured?.omitted_count,
    };
    // Each written file's blob id is the hash of the bytes this call sent (a function of its own arguments): checked
    // against git's own hash of those bytes, then left out of the comparison.
    const sent = [{ path: own, content: extra.ownContent ?? 'p\n' }, ...(extra.files ?? [])];
    const files = (w.structured.files ?? []) as { path: string; blob_sha: string }[];
    for (const [i, f] of files.entries()) {
      const want = blobId(sent[i]?.content ?? '');
      check(f.blob_sha === want, `${f.path}: answered blob ${f.blob_sha}, its content hashes to ${want}`);
    }
    const { files: _files, ...rest } = w.structured as Record<string, unknown>;
    return {
      push: redact(JSON.stringify(rest), sha, own, hiddenPath),
      commit: redact(JSON.stringify(body), own),
    };
  };
  const pair = (
    name: string,
    setup: (() => Promise<unknown>) | undefined,
    a: Parameters<typeof probe>,
    b: Parameters<typeof probe>,
  ): Attack => ({
    category: 'oracle-omitted',
    name,
    run: async () => {
      if (setup) await setup();
      const x = await probe(...a);
      const y = await probe(...b);
      check(x.commit === y.commit, `get_commit differs:\n  ${x.commit}\n  ${y.commit}`);
      check(x.push === y.push, `push answer differs:\n  ${x.push}\n  ${y.push}`);
    },
  });
  return [
    pair(
      'get_commit of own commit: delete an existing write-only file vs a missing one',
      () => push({ message: 'setup', files: [{ path: 'drop/oracle-del.txt', content: 'CANARY_ORACLE_DEL\n' }] }),
      ['app/oracle-d1.ts', { delete: ['drop/oracle-del.txt'] }, 'drop/oracle-del.txt'],
      ['app/oracle-d2.ts', { delete: ['drop/oracle-none.txt'] }, 'drop/oracle-none.txt'],
    ),
    pair(
      'get_commit of own commit: right vs wrong guess of a write-only file',
      () => push({ message: 'setup', files: [{ path: 'drop/oracle-guess.txt', content: 'CANARY_ORACLE_PIN=1234\n' }] }),
      [
        'app/oracle-g1.ts',
        { files: [{ path: 'drop/oracle-guess.txt', content: 'CANARY_ORACLE_PIN=1234\n' }] },
        'drop/oracle-guess.txt',
      ],
      [
        'app/oracle-g2.ts',
        { files: [{ path: 'drop/oracle-guess.txt', content: 'CANARY_ORACLE_PIN=1235\n' }] },
        'drop/oracle-guess.txt',
      ],
    ),
    pair(
      'get_commit of own commit: overwrite an existing write-only file vs create one',
      () => push({ message: 'setup', files: [{ path: 'drop/oracle-over.txt', content: 'CANARY_ORACLE_OVER\n' }] }),
      ['app/oracle-o1.ts', { files: [{ path: 'drop/oracle-over.txt', content: 'new\n' }] }, 'drop/oracle-over.txt'],
      ['app/oracle-o2.ts', { files: [{ path: 'drop/oracle-fresh.txt', content: 'new\n' }] }, 'drop/oracle-fresh.txt'],
    ),
    pair(
      'get_commit of own commit: a readable copy of a deleted write-only file reads like a plain add (rename pairing)',
      () => push({ message: 'setup', files: [{ path: 'drop/oracle-multi.txt', content: MULTI }] }),
      ['app/oracle-r1.txt', { ownContent: MULTI, delete: ['drop/oracle-multi.txt'] }, 'drop/oracle-multi.txt'],
      [
        'app/oracle-r2.txt',
        { ownContent: MULTI, delete: ['drop/oracle-multi-none.txt'] },
        'drop/oracle-multi-none.txt',
      ],
    ),
    pair(
      'get_commit of own commit: a near copy (one line guessed) of a deleted write-only file reads like a plain add',
      () => push({ message: 'setup', files: [{ path: 'drop/oracle-near.txt', content: MULTI }] }),
      [
        'app/oracle-n1.txt',
        { ownContent: MULTI.replace('ORACLE_PIN_LINE=7', 'ORACLE_PIN_LINE=8'), delete: ['drop/oracle-near.txt'] },
        'drop/oracle-near.txt',
      ],
      [
        'app/oracle-n2.txt',
        { ownContent: MULTI.replace('ORACLE_PIN_LINE=7', 'ORACLE_PIN_LINE=8'), delete: ['drop/oracle-near-none.txt'] },
        'drop/oracle-near-none.txt',
      ],
    ),
    {
      category: 'oracle-omitted',
      name: 'own commit touching only write-only paths: not found either way, history unchanged',
      run: async () => {
        await push({ message: 'setup', files: [{ path: 'drop/oracle-only.txt', content: 'CANARY_ORACLE_ONLY\n' }] });
        const history = JSON.stringify((await callTool(ctx.app, 'list_commits', { per_page: 5 })).structured);
        const answers: string[] = [];
        for (const p of ['drop/oracle-only.txt', 'drop/oracle-only-none.txt']) {
          const w = await push({ message: 'only', files: [], delete: [p] });
          const sha = w.structured.commit as string;
          answers.push(redact(JSON.stringify(await callTool(ctx.app, 'get_commit', { sha })), sha));
        }
        check(answers[0] === answers[1], `answers differ:\n  ${answers[0]}\n  ${answers[1]}`);
        check(
          JSON.stringify((await callTool(ctx.app, 'list_commits', { per_page: 5 })).structured) === history,
          'history changed',
        );
      },
    },
  ];
}
