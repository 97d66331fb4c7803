// What the working-tree driver sends: every working-tree tool with arguments drawn from readable, hidden and missing
// paths, revisions (visible commits by label, hidden-only commits, commits of the hidden branch, the stash, made-up ids,
// branch names), pages and byte limits, and proposals of every kind (patches in every header form, resets, merges,
// rebases, branches, plans). Revisions and proposal ids are symbolic here and resolved per twin by the driver.
import fc from 'fast-check';

/** A commit named by label: each twin substitutes its own id (a made-up one when it has no such commit). */
export interface RevRef {
  readonly $rev: string;
}
/** The n-th proposal this twin created in this run (a made-up id when there is none). */
export interface ProposalRef {
  readonly $proposal: number;
}

export type ArgValue =
  string | number | boolean | RevRef | ProposalRef | readonly ArgValue[] | { readonly [k: string]: ArgValue };

/** One tool call as the driver sends it to both twins. */
export interface Call {
  readonly tool: string;
  readonly args: { readonly [k: string]: ArgValue };
}

const rev = (label: string): RevRef => ({ $rev: label });

/** Readable, hidden (outside read, privacy zone, write-only, behind a link) and missing paths. */
export const PATHS = [
  'app/a.ts',
  'app/b.ts',
  'app/c.txt',
  'app/r.txt',
  'app/new.ts',
  'app/moved.ts',
  'app/out.ts',
  'app/readme.md',
  'app/.env',
  'app/.env.local',
  'app/link-file',
  'app/link-dir',
  'app/link-dir/k.txt',
  'app/link-c',
  'app/none.ts',
  'secret/k.txt',
  'secret/c.txt',
  'secret',
  'wo/w.txt',
  'wo/c.txt',
  'wo',
  'nodir/x.ts',
] as const;
const DIRS = ['app', 'secret', 'wo', 'nodir', 'app/link-dir'] as const;

const path = fc.constantFrom(...PATHS);
const dirOrPath = fc.constantFrom<string>(...PATHS, ...DIRS);
/** Commit ids: visible (V0 root, V1, O1 on other), hidden-only on main, on the hidden branch, the stash, made up. */
const commit = fc.constantFrom('V0', 'V1', 'O1', 'H0', 'H1', 'Hlast', 'B1', 'B2', 'S0', 'X').map(rev);
/** A revision as a propose_* tool takes it: a commit id or a name (allowlisted, hidden, missing, relative). */
const revision = fc.oneof(
  commit,
  fc.constantFrom<ArgValue>('main', 'other', 'hid', 'nope', 'HEAD', 'HEAD~1', 'refs/stash', 'other~1'),
);
const reason = fc.constantFrom('twin check', 'tidy up');

const hunk = (path: string, from: string, to: string) =>
  `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-${from}\n+${to}\n`;
/** Patches in every header form git writes (app/readme.md is '# app\n' in every twin). */
export const PATCHES: readonly string[] = [
  `diff --git a/app/readme.md b/app/readme.md\nindex 0000000..1111111 100644\n${hunk('app/readme.md', '# app', '# app!')}`,
  hunk('app/readme.md', '# app', '# plain'),
  'diff --git a/app/p.ts b/app/p.ts\nnew file mode 100644\n--- /dev/null\n+++ b/app/p.ts\n@@ -0,0 +1 @@\n+export const p = 1;\n',
  'diff --git a/app/readme.md b/app/readme.md\ndeleted file mode 100644\n--- a/app/readme.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-# app\n',
  'diff --git a/app/readme.md b/app/readme2.md\nsimilarity index 100%\nrename from app/readme.md\nrename to app/readme2.md\n',
  'diff --git a/app/readme.md b/app/copy.md\nsimilarity index 100%\ncopy from app/readme.md\ncopy to app/copy.md\n',
  'diff --git a/app/readme.md b/app/readme.md\nold mode 100644\nnew mode 100755\n',
  // Across the boundary, into hidden, write-only and privacy-zone paths, through a link, and a quoted non-UTF-8 name.
  'diff --git a/secret/k.txt b/app/k.txt\nsimilarity index 100%\nrename from secret/k.txt\nrename to app/k.txt\n',
  'diff --git a/app/readme.md b/secret/readme.md\nsimilarity index 100%\nrename from app/readme.md\nrename to secret/readme.md\n',
  `diff --git a/wo/w.txt b/wo/w.txt\n${hunk('wo/w.txt', 'write-only v0', 'write-only guessed')}`,
  `diff --git a/wo/w.txt b/wo/w.txt\n${hunk('wo/w.txt', 'write-only v1', 'write-only guessed')}`,
  `diff --git a/secret/h.txt b/secret/h.txt\n${hunk('secret/h.txt', 'h v0', 'h guessed')}`,
  'diff --git a/app/.env b/app/.env\nnew file mode 100644\n--- /dev/null\n+++ b/app/.env\n@@ -0,0 +1 @@\n+TOKEN=x\n',
  `diff --git a/app/link-file b/app/link-file\n${hunk('app/link-file', 'key v0', 'key guessed')}`,
  `diff --git "a/secret/caf\\351.txt" "b/secret/caf\\351.txt"\n--- "a/secret/caf\\351.txt"\n+++ "b/secret/caf\\351.txt"\n@@ -1 +1 @@\n-caf v0\n+caf guessed\n`,
];

const commitStep = fc.record({
  kind: fc.constant('commit'),
  message: fc.constant('agent commit'),
  paths: fc.array(path, { minLength: 1, maxLength: 3 }),
});
const patchStep = fc.record({ kind: fc.constant('patch'), patch: fc.constantFrom(...PATCHES) });
const discardStep = fc.record({ kind: fc.constant('discard'), paths: fc.array(path, { minLength: 1, maxLength: 3 }) });
const mergeStep = fc.record({ kind: fc.constant('merge'), from: revision });
const rebaseStep = fc.record({ kind: fc.constant('rebase'), onto: revision });
const resetStep = fc.record({
  kind: fc.constant('reset'),
  mode: fc.constantFrom('soft', 'mixed', 'hard'),
  to: revision,
});
const branchName = fc.constantFrom('nb-1', 'nb-2', 'hid', 'other');
const branchStep = fc.record({ kind: fc.constant('branch'), name: branchName, from: revision });
const pushStep = fc.record({ kind: fc.constant('push') });
const step = fc.oneof(commitStep, patchStep, discardStep, mergeStep, rebaseStep, resetStep, branchStep, pushStep);

const call = (tool: string, args: fc.Arbitrary<Record<string, ArgValue>>): fc.Arbitrary<Call> =>
  args.map((a) => ({ tool, args: a }));
const noArgs = (tool: string) => fc.constant<Call>({ tool, args: {} });

/** One call of any working-tree tool. */
export const callArb: fc.Arbitrary<Call> = fc.oneof(
  noArgs('workspace_brief'),
  noArgs('workspace_status'),
  noArgs('submodule_status'),
  noArgs('integrity_check'),
  call(
    'workspace_diff',
    fc.record(
      {
        staged: fc.boolean(),
        path: dirOrPath,
        against: fc.oneof(fc.constantFrom<ArgValue>('index', 'head'), commit),
        offset: fc.constantFrom(0, 1, 2, 50),
      },
      { requiredKeys: [] },
    ),
  ),
  call('conflict_preflight', fc.record({ with: fc.constantFrom('other', 'main', 'hid', 'nope', 'origin/main') })),
  call('conflict_read', fc.record({ path, max_bytes_per_side: fc.constantFrom(4, 1000) }, { requiredKeys: ['path'] })),
  call('scope_summary', fc.record({ path: dirOrPath }, { requiredKeys: [] })),
  call(
    'get_file',
    fc.record(
      {
        path,
        source: fc.constantFrom('worktree', 'worktree', 'head'),
        start_line: fc.constantFrom(1, 2),
        end_line: fc.constantFrom(1, 3),
      },
      { requiredKeys: ['path', 'source'] },
    ),
  ),
  call(
    'propose_commit',
    fc.record({ message: fc.constant('agent commit'), paths: fc.array(path, { minLength: 1, maxLength: 3 }), reason }),
  ),
  call('propose_patch', fc.record({ patch: fc.constantFrom(...PATCHES), reason })),
  call('propose_discard', fc.record({ paths: fc.array(path, { minLength: 1, maxLength: 3 }), reason })),
  call('propose_merge', fc.record({ from: revision, reason })),
  call('propose_rebase', fc.record({ onto: revision, reason })),
  call('propose_reset', fc.record({ mode: fc.constantFrom('soft', 'mixed', 'hard'), to: revision, reason })),
  call('propose_branch', fc.record({ name: branchName, from: revision, reason })),
  call('propose_push', fc.record({ reason })),
  call('propose_plan', fc.record({ steps: fc.array(step, { minLength: 1, maxLength: 3 }), reason })),
  call(
    'proposal_status',
    fc.record({ proposal_id: fc.integer({ min: 0, max: 3 }).map((n): ProposalRef => ({ $proposal: n })) }),
  ),
  call(
    'proposal_cancel',
    fc.record({ proposal_id: fc.integer({ min: 0, max: 3 }).map((n): ProposalRef => ({ $proposal: n })) }),
  ),
);

/** Every tool once with its plainest arguments: each run drives the whole list whatever the draw. */
export const BASELINE: readonly Call[] = [
  { tool: 'workspace_brief', args: {} },
  { tool: 'workspace_status', args: {} },
  { tool: 'workspace_diff', args: {} },
  { tool: 'workspace_diff', args: { staged: true } },
  { tool: 'conflict_preflight', args: { with: 'other' } },
  { tool: 'conflict_read', args: { path: 'app/c.txt' } },
  { tool: 'conflict_read', args: { path: 'app/r.txt' } },
  { tool: 'submodule_status', args: {} },
  { tool: 'scope_summary', args: {} },
  { tool: 'scope_summary', args: { path: 'app' } },
  { tool: 'integrity_check', args: {} },
  { tool: 'get_file', args: { path: 'app/link-file', source: 'worktree' } },
  { tool: 'propose_commit', args: { message: 'agent commit', paths: ['app/link-file'], reason: 'twin check' } },
  { tool: 'propose_patch', args: { patch: PATCHES[0]!, reason: 'twin check' } },
  { tool: 'propose_discard', args: { paths: ['app/a.ts'], reason: 'twin check' } },
  { tool: 'propose_merge', args: { from: 'other', reason: 'twin check' } },
  { tool: 'propose_rebase', args: { onto: 'other', reason: 'twin check' } },
  { tool: 'propose_reset', args: { mode: 'hard', to: rev('V0'), reason: 'twin check' } },
  { tool: 'propose_reset', args: { mode: 'mixed', to: rev('V0'), reason: 'twin check' } },
  { tool: 'propose_branch', args: { name: 'nb-1', from: rev('B1'), reason: 'twin check' } },
  { tool: 'propose_push', args: { reason: 'twin check' } },
  {
    tool: 'propose_plan',
    args: {
      steps: [
        { kind: 'branch', name: 'nb-2', from: rev('V0') },
        { kind: 'reset', mode: 'soft', to: rev('H0') },
      ],
      reason: 'twin check',
    },
  },
  { tool: 'proposal_status', args: { proposal_id: { $proposal: 0 } } },
  { tool: 'proposal_cancel', args: { proposal_id: { $proposal: 0 } } },
];

/** The calls of one run: the baseline, then `n` drawn calls. */
export const callsArb = (n: number): fc.Arbitrary<readonly Call[]> =>
  fc.array(callArb, { minLength: 0, maxLength: n }).map((drawn) => [...BASELINE, ...drawn]);
