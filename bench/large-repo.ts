// Section 6: a large generated repository (50,000 files, 20,000 commits; cached under bench/.cache/): recursive
// get_tree, list_commits under a deep glob, get_commit on a 3,000-file commit, and the process's memory.
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent } from './clients.js';
import { cachedRepo, git } from './genrepo.js';
import { progress, ratio, round, summarize } from './stats.js';

const exec = promisify(execFile);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (b: number) => round(b / 2 ** 20, 1);

async function timed<T>(runs: number, fn: () => Promise<T>): Promise<{ ms: ReturnType<typeof summarize>; last: T }> {
  const t: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    last = await fn();
    t.push(performance.now() - s);
  }
  return { ms: summarize(t), last: last as T };
}

/** Runs section 6. */
export async function benchLargeRepo(smoke: boolean): Promise<Record<string, unknown>> {
  const files = smoke ? 2_000 : 50_000;
  const commits = smoke ? 500 : 20_000;
  const bigFiles = smoke ? 300 : 3_000;
  const at = Math.floor(commits / 2);
  const paths = Array.from({ length: files }, (_, k) => `pkg${k % 50}/src/mod${Math.floor(k / 50) % 20}/f${k}.ts`);
  const repo = await cachedRepo(`large-${files}-${commits}`, () => ({
    paths,
    commits,
    bigCommit: { at, files: bigFiles },
    message: (c, changed) =>
      c === 1
        ? 'Initial import'
        : c === at
          ? `Big refactor touching ${changed.length} files`
          : `Change ${changed.length} file(s)`,
  }));
  progress(`large repo: ${repo.built ? `built in ${repo.ms} ms` : 'from cache'}`);
  const big = (await git(repo.dir, 'log', '--format=%H', '--grep=Big refactor', '-n', '1', 'main')).trim();
  const packBytes = Number((await git(repo.dir, 'count-objects', '-v')).match(/size-pack: (\d+)/)?.[1] ?? 0) * 1024;

  const srv = await startTestServer({ upstream: createLocalGitUpstream() });
  try {
    await srv.perimeter({ id: 'all', repo: repo.dir, read: ['**'], write: [] });
    await srv.perimeter({ id: 'deep', repo: repo.dir, read: ['**/mod7/**/*.ts'], write: [] });
    const all = await connectAgent(`${srv.url}/mcp/all`);
    const deep = await connectAgent(`${srv.url}/mcp/deep`);
    gc();
    const before = process.memoryUsage();
    const runs = smoke ? 1 : 3;
    const size = (r: any) => Buffer.byteLength((r.content ?? []).map((c: any) => c.text).join(''));
    // The whole result (text block + structuredContent): what the answer cap bounds, page by page (issue 11).
    const whole = (r: any) => ({
      answer_bytes: size(r),
      structured_bytes: Buffer.byteLength(JSON.stringify(r.structuredContent ?? null)),
      result_bytes: Buffer.byteLength(JSON.stringify(r)),
      paged: r.structuredContent?.truncated === true,
    });
    const tree = await timed(runs, () => all.call('get_tree', { recursive: true }));
    progress(`large repo: get_tree ${tree.ms.median} ms`);
    const history = await timed(runs, () => deep.call('list_commits', { per_page: 30 }));
    progress(`large repo: list_commits deep glob ${history.ms.median} ms`);
    const commit = await timed(runs, () => all.call('get_commit', { sha: big }));
    progress(`large repo: get_commit ${commit.ms.median} ms`);
    const afterCalls = process.memoryUsage();
    gc();
    const afterGc = process.memoryUsage();
    const gitMs = async (args: string[]) => {
      const s = performance.now();
      await exec('git', ['-C', repo.dir, ...args], { maxBuffer: 512 << 20 });
      return round(performance.now() - s, 1);
    };
    const raw = {
      ls_tree_r: await gitMs(['ls-tree', '-r', '-l', 'main']),
      log_30_deep_glob: await gitMs(['log', '-30', '--name-only', 'main', '--', ':(glob)**/mod7/**/*.ts']),
      show_big_commit: await gitMs(['show', big]),
    };
    await all.close();
    await deep.close();
    return {
      repository: {
        files,
        commits,
        big_commit_files: bigFiles,
        pack_mb: mb(packBytes),
        built_now: repo.built,
        build_ms: repo.ms,
      },
      runs_per_call: runs,
      get_tree_recursive: {
        ms: tree.ms,
        ...whole(tree.last),
        error: tree.last.isError === true,
        entries: tree.last.structuredContent?.count,
        vs_git: ratio(tree.ms.median, raw.ls_tree_r),
      },
      list_commits_deep_glob: {
        glob: '**/mod7/**/*.ts',
        ms: history.ms,
        listed: history.last.structuredContent?.commits?.length,
        error: history.last.isError === true,
        vs_git: ratio(history.ms.median, raw.log_30_deep_glob),
      },
      get_commit_big: {
        ms: commit.ms,
        ...whole(commit.last),
        files: commit.last.structuredContent?.files?.length,
        error: commit.last.isError === true,
        vs_git: ratio(commit.ms.median, raw.show_big_commit),
      },
      raw_git_ms: raw,
      memory_mb: {
        note: 'bench process (server and clients in-process)',
        rss_before: mb(before.rss),
        heap_before: mb(before.heapUsed),
        rss_after_calls: mb(afterCalls.rss),
        heap_after_calls: mb(afterCalls.heapUsed),
        heap_after_gc: mb(afterGc.heapUsed),
        max_rss_process: round(process.resourceUsage().maxRSS / 1024, 1),
      },
    };
  } finally {
    await srv.close();
  }
}
