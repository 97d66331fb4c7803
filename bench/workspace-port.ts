// The working-tree port against the raw git it wraps, on a 50,000-file working tree with 500 modified files:
// `status()` vs `git status --porcelain=v2 -z`, `diff(index)` vs `git diff`. Standalone: `npx tsx bench/workspace-port.ts [files] [modified]`.
// The tree is built once under bench/.cache/ (a plain checkout, one commit); each run re-dirties the same files.
import { execFile } from 'node:child_process';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createLocalWorkspace } from '../src/workspace/localfs/index.js';
import { CACHE_DIR, contentOf } from './genrepo.js';
import { summarize } from './stats.js';

const exec = promisify(execFile);
const files = Number(process.argv[2] ?? 50_000);
const modified = Number(process.argv[3] ?? 500);
const runs = 5;
const env = {
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: CACHE_DIR,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = async (dir: string, ...args: string[]): Promise<string> =>
  (await exec('git', args, { cwd: dir, env, maxBuffer: 1 << 30 })).stdout;

async function tree(): Promise<string> {
  const dir = join(CACHE_DIR, `worktree-${files}`);
  if (
    await stat(join(dir, '.git')).then(
      () => true,
      () => false,
    )
  )
    return dir;
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  for (let k = 0; k < files; k++) {
    const p = join(dir, `pkg${k % 50}`, `mod${Math.floor(k / 50) % 20}`, `f${k}.ts`);
    if (k < 1000) await mkdir(join(p, '..'), { recursive: true });
    await writeFile(p, contentOf(p, k, 1));
  }
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'import');
  return dir;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    await fn();
    t.push(performance.now() - s);
  }
  return summarize(t).median;
}

const dir = await tree();
for (let k = 0; k < modified; k++) {
  const p = join(dir, `pkg${k % 50}`, `mod${Math.floor(k / 50) % 20}`, `f${k}.ts`);
  await writeFile(p, contentOf(p, k, 2));
}
// Warm the index's stat data the way a person's own `git status` would, so both sides see the same index.
await git(dir, 'update-index', '-q', '--refresh').catch(() => undefined);
const opened = await createLocalWorkspace().open(dir, 'main');
if (!opened.ok || !opened.value) throw new Error('main is not checked out');
const wt = opened.value;
const rawStatus = await timed(() =>
  git(dir, '--no-optional-locks', 'status', '--porcelain=v2', '-z', '--untracked-files=all'),
);
const portStatus = await timed(() => wt.status());
const rawDiff = await timed(() => git(dir, '--no-optional-locks', 'diff'));
const portDiff = await timed(() => wt.diff({ against: 'index', staged: false }));
const d = await wt.diff({ against: 'index', staged: false });
console.log(
  JSON.stringify({
    files,
    modified,
    runs,
    diffFiles: d.ok ? d.value.files.length : d.error,
    status: {
      rawMs: Math.round(rawStatus),
      portMs: Math.round(portStatus),
      ratio: Math.round((portStatus / rawStatus) * 100) / 100,
    },
    diff: {
      rawMs: Math.round(rawDiff),
      portMs: Math.round(portDiff),
      ratio: Math.round((portDiff / rawDiff) * 100) / 100,
    },
  }),
);
