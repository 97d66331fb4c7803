// Attacks through history and refs: renames across the boundary, other branches, SHA prefixes, argument pivots.
import { blockedRead, sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

const ZERO = '0'.repeat(40);

export function historyAttacks(ctx: Ctx): Attack[] {
  const { shas } = ctx.fx;
  const out: Attack[] = [];

  /** A whole-file add or delete patch of `n` lines: every line after the header carries `mark`. */
  const wholeFile = (patch: string | undefined, mark: '+' | '-', n: number): boolean => {
    const lines = (patch ?? '').split('\n');
    const header = mark === '+' ? `@@ -0,0 +1,${n} @@` : `@@ -1,${n} +0,0 @@`;
    return lines[0] === header && lines.length === n + 1 && lines.slice(1).every((l) => l.startsWith(mark));
  };
  // Renames across the boundary.
  out.push(
    {
      category: 'rename',
      name: 'get_commit: rename out of the perimeter hides the new path',
      run: async () => {
        const r = await callTool(ctx.app, 'get_commit', { sha: shas.renameOut });
        check(!r.isError, r.text);
        const files = r.structured.files as { path: string; status: string; previous_path?: string; patch?: string }[];
        check(
          files.length === 1 && files[0]?.path === 'app/moved.ts' && files[0].status === 'removed',
          JSON.stringify(files),
        );
        // Shown as the plain delete it would be unpaired (issue 9): the whole old file, nothing of the hidden side.
        check(
          files[0]?.previous_path === undefined && wholeFile(files[0]?.patch, '-', 30),
          `rename pair or partial patch shown: ${files[0]?.patch?.slice(0, 80)}`,
        );
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'rename',
      name: 'get_commit: rename into the perimeter hides the old path and its lines',
      run: async () => {
        const r = await callTool(ctx.app, 'get_commit', { sha: shas.renameIn });
        check(!r.isError, r.text);
        const files = r.structured.files as { path: string; status: string; previous_path?: string; patch?: string }[];
        check(
          files.length === 1 && files[0]?.path === 'app/arrived.ts' && files[0].status === 'added',
          JSON.stringify(files),
        );
        check(
          files[0]?.previous_path === undefined && wholeFile(files[0]?.patch, '+', 30),
          `rename pair or partial patch shown: ${files[0]?.patch?.slice(0, 80)}`,
        );
        check(r.structured.omitted_count === 0 || r.structured.omitted_count === 1, 'odd omitted_count');
        noLeak(ctx.fx, whole(r), {});
      },
    },
    {
      category: 'rename',
      // Issue 19 class 8: git pairs renames over the whole tree, so any pairing an agent sees may depend on hidden files.
      name: 'get_commit: agent views pair nothing and list files in path order',
      run: async () => {
        for (const sha of [shas.renameOut, shas.renameIn, shas.mixed, shas.init]) {
          const r = await callTool(ctx.app, 'get_commit', { sha });
          check(!r.isError, r.text);
          const files = r.structured.files as { path: string; status: string; previous_path?: string }[];
          check(
            files.every((f) => f.previous_path === undefined && f.status !== 'renamed' && f.status !== 'copied'),
            `a pairing shows in ${sha}: ${JSON.stringify(files)}`,
          );
          const paths = files.map((f) => f.path);
          check(
            paths.every((p, i) => i === 0 || Buffer.compare(Buffer.from(paths[i - 1]!), Buffer.from(p)) < 0),
            `not in path order: ${paths.join(', ')}`,
          );
        }
      },
    },
    {
      category: 'rename',
      name: 'list_commits: narrowed to the renamed-out file',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: 'app/moved.ts' })),
    },
    {
      category: 'rename',
      name: 'list_commits: narrowed to the renamed-in file',
      only: 'local',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: 'app/arrived.ts' })),
    },
    {
      category: 'rename',
      name: 'get_commit: rename out through the 2026 client',
      run: async () =>
        void (await blockedRead(ctx, 'get_commit', { sha: shas.renameOut }, { agent: ctx.modern, mustFail: false })),
    },
    {
      category: 'rename',
      name: 'get_file: the hidden rename target',
      run: async () => void (await blockedRead(ctx, 'get_file', { path: 'secret/CANARY_PATH_moved.ts' })),
    },
  );

  // Commits that exist only on other branches.
  out.push(
    {
      category: 'other-branch',
      name: 'get_commit: commit only on a non-allowlisted branch',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_commit', args: { sha: shas.branchOnly }, mask: [shas.branchOnly] },
          { tool: 'get_commit', args: { sha: ZERO }, mask: [ZERO] },
        ]),
    },
    {
      category: 'other-branch',
      name: 'get_commit: commit only on another allowlisted branch',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_commit', args: { sha: shas.featureOk }, mask: [shas.featureOk] },
          { tool: 'get_commit', args: { sha: ZERO }, mask: [ZERO] },
        ]),
    },
    {
      category: 'other-branch',
      name: 'get_file: file only on another branch',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_file', args: { path: 'app/branch-only.ts' }, mask: ['app/branch-only.ts'] },
          { tool: 'get_file', args: { path: 'app/nothing-x.ts' }, mask: ['app/nothing-x.ts'] },
        ]),
    },
    {
      category: 'other-branch',
      name: 'list_commits: every page of main omits the other branch',
      only: 'local',
      run: async () => {
        for (let page = 1; page <= 2; page++) await blockedRead(ctx, 'list_commits', { per_page: 4, page });
      },
    },
    {
      category: 'other-branch',
      name: 'list_commits: narrowed to the branch-only file',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: 'app/branch-only.ts' })),
    },
    {
      category: 'other-branch',
      name: 'get_commit: branch-only commit through the 2026 client',
      run: async () => void (await blockedRead(ctx, 'get_commit', { sha: shas.branchOnly }, { agent: ctx.modern })),
    },
  );

  // Hidden-only commits.
  out.push(
    {
      category: 'hidden-history',
      name: 'get_commit: commit touching only out-of-scope files',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_commit', args: { sha: shas.hiddenOnly }, mask: [shas.hiddenOnly] },
          { tool: 'get_commit', args: { sha: ZERO }, mask: [ZERO] },
        ]),
    },
    {
      category: 'hidden-history',
      name: 'get_commit: commit touching only a private file',
      run: () =>
        sameAnswers(ctx, [
          { tool: 'get_commit', args: { sha: shas.privateOnly }, mask: [shas.privateOnly] },
          { tool: 'get_commit', args: { sha: ZERO }, mask: [ZERO] },
        ]),
    },
    {
      category: 'hidden-history',
      name: 'get_commit: mixed commit names no hidden file',
      run: async () => {
        const r = await callTool(ctx.app, 'get_commit', { sha: shas.mixed });
        check(!r.isError && r.structured.omitted_count === 1, r.text);
        check(
          JSON.stringify(r.structured.files.map((f: { path: string }) => f.path)) === '["app/main.ts"]',
          'wrong files',
        );
        check(r.structured.parents === undefined, 'parent SHAs shown to an agent');
        noLeak(ctx.fx, whole(r), {});
      },
    },
    // Links whose target is not readable are shown without their patch (issue 9 item 8): no target text leaks.
    {
      category: 'hidden-history',
      name: 'get_commit: initial commit lists readable files only',
      run: async () => void (await blockedRead(ctx, 'get_commit', { sha: shas.init }, { mustFail: false })),
    },
    {
      category: 'hidden-history',
      name: 'list_commits: whole history leaks no hidden commit',
      run: async () => {
        const r = await blockedRead(ctx, 'list_commits', { per_page: 100 });
        for (const c of r.structured.commits as { parents?: unknown }[])
          check(c.parents === undefined, 'parents shown');
      },
    },
    {
      category: 'hidden-history',
      name: 'list_commits: narrowed to a hidden directory',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: 'secret' })),
    },
    {
      category: 'hidden-history',
      name: 'list_commits: narrowed to the private file',
      only: 'local',
      run: async () => void (await blockedRead(ctx, 'list_commits', { path: 'app/.env' })),
    },
    {
      category: 'hidden-history',
      name: 'get_commit: hidden-only commit through the narrow perimeter',
      run: async () => void (await blockedRead(ctx, 'get_commit', { sha: shas.hiddenOnly }, { agent: ctx.narrow })),
    },
  );

  // SHA prefixes and ref syntax instead of a full SHA.
  const sha = shas.mixed;
  const bad: [string, unknown][] = [
    ['7-char prefix', sha.slice(0, 7)],
    ['12-char prefix', sha.slice(0, 12)],
    ['39-char prefix', sha.slice(0, 39)],
    ['prefix of a hidden commit', shas.hiddenOnly.slice(0, 8)],
    ['prefix of a branch-only commit', shas.branchOnly.slice(0, 10)],
    ['upper-case SHA', sha.toUpperCase()],
    ['41 characters', `${sha}0`],
    ['SHA with newline', `${sha}\n`],
    ['SHA with leading space', ` ${sha}`],
    ['HEAD', 'HEAD'],
    ['branch name', 'main'],
    ['hidden branch name', 'feature-hidden'],
    ['full ref', 'refs/heads/feature-hidden'],
    ['ancestry', 'HEAD~1'],
    ['parent of main', 'main^'],
    ['reflog', '@{-1}'],
    ['tree of a commit', `${sha}^{tree}`],
    ['blob path syntax', `${sha}:secret/keys.txt`],
    ['range', `${shas.init}..${sha}`],
    ['number', 1234567],
    ['array', [sha]],
    ['empty', ''],
  ];
  for (const [label, value] of bad) {
    out.push({
      category: 'sha',
      name: `get_commit: ${label}`,
      run: async () => void (await blockedRead(ctx, 'get_commit', { sha: value })),
    });
  }

  // Branch and repository pivots through tool arguments: strict schemas refuse them, nothing is read elsewhere.
  const pivots: [string, string, Record<string, unknown>][] = [
    ['get_file', 'ref', { path: 'app/branch-only.ts', ref: 'feature-hidden' }],
    ['get_file', 'branch', { path: 'app/branch-only.ts', branch: 'feature-hidden' }],
    ['get_file', 'repo', { path: 'secret/keys.txt', repo: ctx.fx.repo }],
    ['get_file', 'owner', { path: 'app/main.ts', owner: 'acme' }],
    ['get_file', 'sha', { path: 'app/branch-only.ts', sha: shas.branchOnly }],
    ['get_file', 'perimeter', { path: 'secret/keys.txt', perimeter: 'other' }],
    ['get_file', '__proto__', JSON.parse('{"path":"app/branch-only.ts","__proto__":{"ref":"feature-hidden"}}')],
    ['get_file', 'constructor', { path: 'app/branch-only.ts', constructor: { ref: 'feature-hidden' } }],
    ['get_files', 'ref', { paths: ['app/branch-only.ts'], ref: 'feature-hidden' }],
    ['get_tree', 'ref', { path: 'app', ref: 'feature-hidden', recursive: true }],
    ['get_tree', 'branch', { branch: 'feature-hidden', recursive: true }],
    ['list_commits', 'ref', { ref: 'feature-hidden' }],
    ['list_commits', 'sha', { sha: 'feature-hidden' }],
    ['list_commits', 'repo', { repo: ctx.fx.repo }],
    ['get_commit', 'ref', { sha: shas.branchOnly, ref: 'feature-hidden' }],
    ['get_commit', 'repo', { sha: shas.hiddenOnly, repo: ctx.fx.repo }],
  ];
  for (const [tool, key, args] of pivots) {
    out.push({
      category: 'pivot',
      name: `${tool}: pivot through "${key}"`,
      run: async () => void (await blockedRead(ctx, tool, args, { mustFail: true })),
    });
  }
  for (const key of ['branch', 'ref', 'repo', 'owner']) {
    out.push({
      category: 'pivot',
      name: `push_files: pivot through "${key}"`,
      run: async () => {
        const heads = await ctx.fx.heads();
        const value = key === 'repo' ? ctx.fx.repo : key === 'owner' ? 'acme' : 'feature-hidden';
        const r = await callTool(ctx.app, 'push_files', {
          message: 'pivot',
          files: [{ path: 'app/pivot.ts', content: 'x\n' }],
          [key]: value,
        });
        check(r.isError === true, `push accepted: ${r.text}`);
        noLeak(ctx.fx, whole(r), { key, value });
        check((await ctx.fx.heads()) === heads, 'a branch moved');
      },
    });
  }
  return out;
}
