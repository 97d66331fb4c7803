// Section "reads_vs_git" (issue 11 item 1): get_file, get_tree recursive, list_commits 50 and get_commit on a
// real-sized generated repository (6,000 commits; cached under bench/.cache/), timed round-robin in one run three
// ways: the local adapter in-process, the same calls over HTTP through git-blinder, and the raw git command. Also
// counts the git processes each adapter call starts (src/gitcli/spawns.ts).
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { spawnCounts } from '../src/gitcli/spawns.js';
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent } from './clients.js';
import { cachedRepo, git } from './genrepo.js';
import { progress, ratio, round, summarize, timeInterleaved } from './stats.js';

const exec = promisify(execFile);

/** Fails loudly when a measured call errs: timing error answers would be meaningless. */
export async function must<T>(p: Promise<T>): Promise<T> {
  const r: any = await p;
  if (r && typeof r === 'object' && (r.isError || r.ok === false))
    throw new Error(`call failed: ${JSON.stringify(r).slice(0, 300)}`);
  return r;
}

/** The real-sized repository of this section (and of the cyanheads comparison), with the file and commit both read. */
export async function readsRepo(smoke: boolean): Promise<{
  files: number;
  commits: number;
  repo: Awaited<ReturnType<typeof cachedRepo>>;
  file: string;
  commit: string;
}> {
  const files = smoke ? 500 : 3_000;
  const commits = smoke ? 600 : 6_000;
  const paths = Array.from({ length: files }, (_, k) => `pkg${k % 30}/src/mod${Math.floor(k / 30) % 10}/f${k}.ts`);
  const repo = await cachedRepo(`reads-${files}-${commits}`, () => ({ paths, commits }));
  const file = paths[Math.floor(files / 2)] as string;
  const commit = (await git(repo.dir, 'rev-parse', 'main~10')).trim();
  return { files, commits, repo, file, commit };
}

/** Runs the section. */
export async function benchReadsVsGit(smoke: boolean): Promise<Record<string, unknown>> {
  const { files, commits, repo, file, commit } = await readsRepo(smoke);
  progress(`reads vs git: repository ${repo.built ? `built in ${repo.ms} ms` : 'from cache'}`);
  const load_start = loadavg().map((x) => round(x, 2));

  const up = createLocalGitUpstream();
  const srv = await startTestServer({ upstream: up });
  try {
    await srv.perimeter({ id: 'all', repo: repo.dir, read: ['**'], write: [] });
    const agent = await connectAgent(`${srv.url}/mcp/all`);
    const raw = (args: string[]) => () => exec('git', ['-C', repo.dir, ...args], { maxBuffer: 512 << 20 });
    const calls = {
      get_file: {
        adapter: () => must(up.readFiles(repo.dir, 'main', [file])),
        http: () => must(agent.call('get_file', { path: file })),
        git: raw(['show', `main:${file}`]),
        git_command: `git show main:${file}`,
      },
      get_tree_recursive: {
        adapter: () => must(up.getTree(repo.dir, 'main', '')),
        http: () => must(agent.call('get_tree', { recursive: true })),
        git: raw(['ls-tree', '-r', '-l', 'main']),
        git_command: 'git ls-tree -r -l main',
      },
      list_commits_50: {
        adapter: () => must(up.listCommits(repo.dir, 'main', { paths: [''], skip: 0, limit: 50 })),
        http: () => must(agent.call('list_commits', { per_page: 50 })),
        git: raw(['log', '-50', '--name-only', 'main']),
        git_command: 'git log -50 --name-only main',
      },
      get_commit: {
        adapter: () => must(up.getCommit(repo.dir, commit, 'main')),
        http: () => must(agent.call('get_commit', { sha: commit })),
        git: raw(['show', commit]),
        git_command: 'git show <sha>',
      },
    };
    const out: Record<string, unknown> = {};
    for (const [name, c] of Object.entries(calls)) {
      // Processes one adapter call starts once the repository's readers run.
      await c.adapter();
      const before = spawnCounts().total;
      await c.adapter();
      const processes = spawnCounts().total - before;
      const t = await timeInterleaved(
        smoke ? 10 : 200,
        smoke ? 2 : 10,
        { adapter: c.adapter, http: c.http, git: c.git },
        smoke ? 1_500 : 15_000,
        smoke ? 5 : 20,
      );
      const s = { adapter: summarize(t.adapter ?? []), http: summarize(t.http ?? []), git: summarize(t.git ?? []) };
      out[name] = {
        git_command: c.git_command,
        processes_per_adapter_call: processes,
        median_ms: { adapter: s.adapter.median, http: s.http.median, git: s.git.median },
        p90_ms: { adapter: s.adapter.p90, http: s.http.p90, git: s.git.p90 },
        n: s.git.n,
        adapter_vs_git: ratio(s.adapter.median, s.git.median),
        http_vs_git: ratio(s.http.median, s.git.median),
      };
      progress(
        `reads vs git: ${name} adapter ${s.adapter.median} ms, http ${s.http.median} ms, git ${s.git.median} ms, ${processes} process(es)`,
      );
    }
    await agent.close();
    return {
      repository: { files, commits, built_now: repo.built },
      load_start,
      load_end: loadavg().map((x) => round(x, 2)),
      calls: out,
    };
  } finally {
    await srv.close();
    await up.close();
  }
}

type R = Record<string, any>;

/** The report section (markdown). */
export function readsVsGitSection(r: R): string {
  const rows = Object.entries(r.calls as R).map(
    ([k, c]: [string, R]) =>
      `| ${k} | ${c.processes_per_adapter_call} | ${c.median_ms.adapter} | ${c.median_ms.http} | ${c.median_ms.git} (\`${c.git_command}\`) | ${c.adapter_vs_git} | ${c.http_vs_git} | ${c.n} |`,
  );
  return [
    '## Reads vs raw git (local upstream, issue 11 item 1)',
    '',
    `Generated repository: ${r.repository.files.toLocaleString('en')} files, ${r.repository.commits.toLocaleString('en')} commits. Round-robin in one run (adapter in-process, over HTTP through git-blinder, raw \`git\` spawned). Load average ${r.load_start.join(' / ')} at start, ${r.load_end.join(' / ')} at end.`,
    '',
    '| call | git processes per adapter call | adapter median ms | HTTP median ms | raw git median ms | adapter ÷ git | HTTP ÷ git | rounds |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
