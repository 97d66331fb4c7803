// A realistic pull request for measuring what the PR tools cost upstream (bench section 4 and the issue-22 request
// cost test share it, so the test guards the figures the bench reports). On a bare repository holding at least
// a/src/f0–f12.ts, b/src/f0–f5.ts and c/src/f0–f3.ts on main: a branch `feat-pr` whose net change is 30 files in three
// commits (23 readable under a/ and b/: modified, added, one deleted, one renamed; 7 hidden under c/ and d/), its PR
// with reviews and review comments on readable and hidden paths, conversation comments, two check runs annotating
// readable and hidden paths, and a commit status. `pr-new-<run>` branches each change one writable file, for
// create_pull_request to open a fresh PR per run.
import { spawn } from 'node:child_process';
import type { PullController } from './github-emulator/index.js';
import { gitIn } from './gitdir.js';

/** What the perimeter measured reads: a/ and b/ (c/, d/ and the rest hidden), writes a/, PRs to main. */
export function pullCostPerimeter(id: string, repo: string, runs: readonly number[]): Record<string, unknown> {
  return {
    id,
    repo,
    read: ['a/**', 'b/**'],
    write: ['a/**'],
    branches: ['feat-pr', ...runs.map(newBranch)],
    pulls: { base: 'main', max_open: 20 },
  };
}

export const newBranch = (run: number): string => `pr-new-${run}`;

/** One agent call of the measurement: the branch its session is bound to and its arguments. */
export interface PullCall {
  readonly name: string;
  readonly tool: string;
  readonly branch: (run: number) => string;
  readonly args: (ctx: { pr: number; run: number }) => Record<string, unknown>;
}

/** A readable path the PR modifies (the one `get_pull_request_files { path }` asks for). */
export const PATCH_PATH = 'a/src/f3.ts';

export const PULL_CALLS: readonly PullCall[] = [
  {
    name: 'create_pull_request',
    tool: 'create_pull_request',
    branch: newBranch,
    args: ({ run }) => ({ title: `Bench change ${run}`, body: 'Measured by the bench.' }),
  },
  { name: 'list_pull_requests', tool: 'list_pull_requests', branch: () => 'feat-pr', args: () => ({}) },
  { name: 'get_pull_request', tool: 'get_pull_request', branch: () => 'feat-pr', args: ({ pr }) => ({ number: pr }) },
  {
    name: 'get_pull_request_files, list',
    tool: 'get_pull_request_files',
    branch: () => 'feat-pr',
    args: ({ pr }) => ({ number: pr }),
  },
  {
    name: 'get_pull_request_files, one path',
    tool: 'get_pull_request_files',
    branch: () => 'feat-pr',
    args: ({ pr }) => ({ number: pr, path: PATCH_PATH }),
  },
  {
    name: 'list_pull_request_comments',
    tool: 'list_pull_request_comments',
    branch: () => 'feat-pr',
    args: ({ pr }) => ({ number: pr }),
  },
  {
    name: 'get_pull_request_status',
    tool: 'get_pull_request_status',
    branch: () => 'feat-pr',
    args: ({ pr }) => ({ number: pr }),
  },
];

/** Commits `files` (content, or null to delete) on `branch` of a bare repository, from `from`; returns the commit. */
async function commitOn(
  bare: string,
  branch: string,
  from: string,
  message: string,
  files: Record<string, string | null>,
): Promise<string> {
  const env = { GIT_INDEX_FILE: `${bare}/pull-cost-index` };
  const base = (await gitIn(bare, ['rev-parse', `${from}^{commit}`])).trim();
  await gitIn(bare, ['read-tree', base], env);
  for (const [path, content] of Object.entries(files)) {
    // A bare repository has no work tree for --force-remove: mode 0 in --index-info removes the entry.
    const line =
      content === null
        ? `0 ${'0'.repeat(40)}\t${path}\n`
        : `100644 ${await withInput(bare, ['hash-object', '-w', '--stdin'], content)}\t${path}\n`;
    await withInput(bare, ['update-index', '--index-info'], line, env);
  }
  const tree = (await gitIn(bare, ['write-tree'], env)).trim();
  const commit = (await gitIn(bare, ['commit-tree', tree, '-p', base, '-m', message])).trim();
  await gitIn(bare, ['update-ref', `refs/heads/${branch}`, commit]);
  return commit;
}

/** Runs git in `bare` with `input` on stdin; returns trimmed stdout. */
async function withInput(
  bare: string,
  args: string[],
  input: string,
  env: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', bare, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args[0]}: exit ${code}`))));
    child.stdin.end(input);
  });
}

/** A few changed lines in the middle and at the end of a file, so patches have more than one hunk. */
async function edited(bare: string, path: string, tag: string): Promise<string> {
  const lines = (await gitIn(bare, ['show', `main:${path}`])).split('\n');
  lines.splice(1, 0, `// reviewed: ${tag}`);
  return lines.join('\n') + `export const touched = '${tag}';\n`;
}

function firstOf(review: { comments: number[] }): number {
  const id = review.comments[0];
  if (id === undefined) throw new Error('pull-cost seed: a review lost its comment');
  return id;
}

const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

/** Builds the branches and seeds the PR; returns its number. */
export async function seedCostPull(
  bare: string,
  pulls: PullController,
  repo: string,
  runs: readonly number[],
): Promise<number> {
  const a = (i: number) => `a/src/f${i}.ts`;
  const first: Record<string, string | null> = {};
  for (const i of range(12)) first[a(i)] = await edited(bare, a(i), 'one');
  for (const i of range(4)) first[`c/src/f${i}.ts`] = await edited(bare, `c/src/f${i}.ts`, 'hidden');
  await commitOn(bare, 'feat-pr', 'main', 'Rework the a/ sources', first);
  const second: Record<string, string | null> = { [a(12)]: null };
  for (const i of range(4)) second[`a/new/n${i}.ts`] = `export const n${i} = ${i};\n`;
  for (const i of range(5)) second[`b/src/f${i}.ts`] = await edited(bare, `b/src/f${i}.ts`, 'two');
  await commitOn(bare, 'feat-pr', 'feat-pr', 'Add a/new, edit b/', second);
  const third: Record<string, string | null> = {
    'b/src/f5.ts': null,
    'b/moved/f5.ts': await gitIn(bare, ['show', 'main:b/src/f5.ts']),
  };
  for (const i of range(3)) third[`d/secret/s${i}.txt`] = `secret ${i}\n`;
  await commitOn(bare, 'feat-pr', 'feat-pr', 'Move b/src/f5, add secrets', third);
  for (const run of runs)
    await commitOn(bare, newBranch(run), 'main', `Change for run ${run}`, {
      [a(50)]: `export const run = ${run};\n`,
      [`a/pr/r${run}.ts`]: `export const r = ${run};\n`,
    });

  const n = await pulls.open({
    repo,
    head: 'feat-pr',
    base: 'main',
    title: 'Rework a/ and b/',
    body: 'Thirty files; see the commits.',
  });
  const readable = await pulls.review({
    repo,
    number: n,
    state: 'CHANGES_REQUESTED',
    body: 'A few things.',
    comments: [
      { path: a(0), line: 2, body: 'Why this line?' },
      { path: 'b/src/f1.ts', line: 2, body: 'Same here.' },
      { path: 'c/src/f0.ts', line: 2, body: 'And in the hidden part.' },
    ],
  });
  const hiddenOnly = await pulls.review({
    repo,
    number: n,
    state: 'COMMENTED',
    body: '',
    comments: [{ path: 'd/secret/s0.txt', line: 1, body: 'Do not commit secrets.' }],
  });
  await pulls.reviewComment({ repo, number: n, path: a(0), body: 'Because of X.', inReplyTo: firstOf(readable) });
  await pulls.reviewComment({
    repo,
    number: n,
    path: 'd/secret/s0.txt',
    body: 'Removed.',
    inReplyTo: firstOf(hiddenOnly),
  });
  await pulls.review({ repo, number: n, state: 'APPROVED', body: 'Fine by me.', user: 'second-reviewer' });
  pulls.comment({ repo, number: n, body: 'Is this ready?' });
  pulls.comment({ repo, number: n, body: 'Almost.', user: 'author' });
  await pulls.checkRun({
    repo,
    sha: 'feat-pr',
    name: 'build',
    status: 'completed',
    conclusion: 'failure',
    output: { title: 'Type errors', summary: 'Three errors.' },
    annotations: [
      { path: a(1), startLine: 2, message: 'Type error.' },
      { path: 'b/src/f2.ts', startLine: 3, message: 'Unused value.', level: 'warning' },
      { path: 'c/src/f2.ts', startLine: 1, message: 'Hidden error.' },
    ],
  });
  await pulls.checkRun({
    repo,
    sha: 'feat-pr',
    name: 'lint',
    status: 'completed',
    conclusion: 'success',
    output: { title: 'Lint', summary: 'Two notes.' },
    annotations: [
      { path: 'a/new/n0.ts', startLine: 1, message: 'Prefer const.', level: 'notice' },
      { path: 'd/secret/s1.txt', startLine: 1, message: 'Hidden note.', level: 'notice' },
    ],
  });
  await pulls.status({ repo, sha: 'feat-pr', context: 'deploy/preview', state: 'pending', description: 'Deploying' });
  return n;
}
