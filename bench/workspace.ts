// Section "workspace" (issue 13): workspace_status and workspace_diff on a 50,000-file working tree with 500 modified
// files, against the raw `git status --porcelain=v2` and `git diff` they wrap. Target: each ≤ 2× raw git.
// Standalone: `npx tsx bench/workspace.ts [--smoke]` prints the section's JSON (never rewrites REPORT.md).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import { createLocalWorkspace } from '../src/workspace/localfs/index.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent } from './clients.js';
import { cachedRepo } from './genrepo.js';
import { progress, ratio, summarize } from './stats.js';

const exec = promisify(execFile);

async function timed(runs: number, fn: () => Promise<unknown>): Promise<ReturnType<typeof summarize>> {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    await fn();
    t.push(performance.now() - s);
  }
  return summarize(t);
}

/** Runs the workspace section. */
export async function benchWorkspace(smoke: boolean): Promise<Record<string, unknown>> {
  const files = smoke ? 2_000 : 50_000;
  const modified = smoke ? 50 : 500;
  const runs = smoke ? 2 : 7;
  const paths = Array.from({ length: files }, (_, k) => `pkg${k % 50}/src/mod${Math.floor(k / 50) % 20}/f${k}.ts`);
  const repo = await cachedRepo(`worktree-${files}`, () => ({ paths, commits: 5 }));
  const root = await mkdtemp(join(tmpdir(), 'gb-bench-ws-'));
  const tree = join(root, 'tree');
  try {
    const t0 = performance.now();
    await exec('git', ['clone', '-q', '--shared', repo.dir, tree], { maxBuffer: 64 << 20 });
    progress(`workspace: checked out ${files} files in ${Math.round(performance.now() - t0)} ms`);
    for (let i = 0; i < modified; i++) {
      const p = join(tree, paths[(i * 97) % files] as string);
      await writeFile(p, `${await readFile(p, 'utf8')}// edited ${i}\n`);
    }
    // One refresh so both sides start from a fresh index (git-blinder never writes it; a raw `git status` would).
    await exec('git', ['-C', tree, 'update-index', '-q', '--refresh']).catch(() => undefined);
    const srv = await startTestServer({ upstream: createLocalGitUpstream(), workspace: createLocalWorkspace() });
    try {
      await srv.perimeter({ id: 'all', repo: tree, read: ['**'], write: [] });
      const agent = await connectAgent(`${srv.url}/mcp/all`);
      const first = await agent.call('workspace_status', {});
      const listed = first.structuredContent?.counts?.unstaged;
      const diff = await agent.call('workspace_diff', {});
      if (diff.isError) progress(`workspace: workspace_diff failed: ${JSON.stringify(diff.content).slice(0, 300)}`);
      const status = await timed(runs, () => agent.call('workspace_status', {}));
      progress(`workspace: workspace_status ${status.median} ms`);
      const diffMs = await timed(runs, () => agent.call('workspace_diff', {}));
      progress(`workspace: workspace_diff ${diffMs.median} ms`);
      await agent.close();
      const git = (args: string[]) =>
        timed(runs, () => exec('git', ['-C', tree, '--no-optional-locks', ...args], { maxBuffer: 512 << 20 }));
      const rawStatus = await git(['status', '--porcelain=v2', '-z', '--untracked-files=all']);
      const rawDiff = await git(['diff', '--no-ext-diff', '--no-textconv']);
      return {
        repository: { files, modified, runs_per_call: runs },
        workspace_status: {
          ms: status,
          unstaged_listed: listed,
          error: first.isError === true,
          vs_git: ratio(status.median, rawStatus.median),
        },
        workspace_diff: {
          ms: diffMs,
          files_on_first_page: diff.structuredContent?.files?.length,
          total_files: diff.structuredContent?.totals?.files,
          error: diff.isError === true,
          vs_git: ratio(diffMs.median, rawDiff.median),
        },
        raw_git_ms: { status_porcelain_v2: rawStatus, diff: rawDiff },
      };
    } finally {
      await srv.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await benchWorkspace(process.argv.includes('--smoke')), null, 2)}\n`);
}
