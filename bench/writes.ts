// Section "writes" (issue 24): `push_files` of one file against the raw git plumbing that makes the same commit
// (hash-object, a temporary index, write-tree, commit-tree, update-ref), round-robin in one run. git-blinder is
// `bin/git-blinder serve` in its own process, called over HTTP (2026-07-28 requests, keep-alive); the plumbing runs as
// separate processes from this one. Each side writes to its own branch of the same bare repository.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildRepo, git } from './genrepo.js';
import { rawPost } from './raw-post.js';
import { serveArgs } from './serve-config.js';
import { startListening, startServerProcess, type ServerProcess } from './server-process.js';
import { progress, ratio, round, summarize, timeInterleaved } from './stats.js';

const exec = promisify(execFile);

/** Runs git with stdin, like the adapter does (no shell). */
function gitIn(dir: string, args: string[], input: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd: dir, env: { ...process.env, ...env } }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
    child.stdin?.end(input);
  });
}

/** The same commit by hand: what a careful script does to commit one file to a bare repository's branch. */
async function plumbing(dir: string, branch: string, path: string, content: string, n: number): Promise<void> {
  const blob = (await gitIn(dir, ['hash-object', '-w', '--stdin'], content)).trim();
  const tmp = await mkdtemp(join(tmpdir(), 'gb-bench-idx-'));
  try {
    const env = { GIT_INDEX_FILE: join(tmp, 'index') };
    const head = (await exec('git', ['rev-parse', `refs/heads/${branch}`], { cwd: dir })).stdout.trim();
    await exec('git', ['read-tree', head], { cwd: dir, env: { ...process.env, ...env } });
    await gitIn(dir, ['update-index', '--index-info'], `100644 ${blob}\t${path}\n`, env);
    const tree = (await exec('git', ['write-tree'], { cwd: dir, env: { ...process.env, ...env } })).stdout.trim();
    const commit = (
      await gitIn(dir, ['commit-tree', tree, '-p', head], `write ${n}\n`, {
        GIT_AUTHOR_NAME: 'bench',
        GIT_AUTHOR_EMAIL: 'bench@example.invalid',
        GIT_COMMITTER_NAME: 'bench',
        GIT_COMMITTER_EMAIL: 'bench@example.invalid',
      })
    ).trim();
    await exec('git', ['update-ref', `refs/heads/${branch}`, commit, head], { cwd: dir });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** One push_files over HTTP (2026-07-28 request); throws on anything but a commit. */
async function push(agent: Agent, url: string, path: string, content: string, n: number): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    method: 'tools/call',
    params: {
      name: 'push_files',
      arguments: { message: `write ${n}`, files: [{ path, content }] },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const a = await rawPost(
    agent,
    new URL(url),
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'push_files' },
    body,
  );
  if (a.status !== 200 || !a.body.includes('"commit"') || a.body.includes('"isError":true'))
    throw new Error(`push_files answered ${a.status}: ${a.body.slice(0, 300)}`);
}

/** Runs the section. */
export async function benchWrites(smoke: boolean): Promise<Record<string, unknown>> {
  const rounds = smoke ? 10 : 120;
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-writes-'));
  const dir = join(work, 'repo.git');
  const files = smoke ? 200 : 3_000;
  const paths = Array.from({ length: files }, (_, k) => `pkg${k % 30}/src/mod${Math.floor(k / 30) % 10}/f${k}.ts`);
  await buildRepo(dir, { paths, commits: smoke ? 20 : 200, branches: ['agent', 'script', 'before'] });
  const config = join(work, 'perimeters.yaml');
  const perimeter = (id: string, branch: string) => [
    `  ${id}:`,
    `    repo: ${dir}`,
    `    branches: [${branch}]`,
    '    read: ["**"]',
    '    write: ["**"]',
    '    limits: { calls_per_minute: 1000000, commits_per_hour: 1000000 }',
  ];
  await writeFile(
    config,
    ['perimeters:', ...perimeter('agent', 'agent'), ...perimeter('before', 'before'), ''].join('\n'),
  );
  let blinder: ServerProcess | undefined;
  let baseline: ServerProcess | undefined;
  const load_start = loadavg().map((x) => round(x, 2));
  try {
    blinder = await startServerProcess(serveArgs(join(work, 'state'), config));
    const baseDir = process.env.GB_BENCH_BASELINE;
    if (baseDir)
      baseline = await startListening(
        process.execPath,
        [join(baseDir, 'bin/git-blinder'), 'serve', ...serveArgs(join(work, 'state-base'), config)],
        {},
        /listening on (http:\/\/\S+)/,
      );
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const path = paths[Math.floor(files / 2)]!;
    let n = 0;
    const fns: Record<string, () => Promise<unknown>> = {
      push_files: () => push(agent, `${blinder!.url}/mcp/agent/agent`, path, `// version ${++n}\n`, n),
      plumbing: () => plumbing(dir, 'script', path, `// version ${++n}\n`, n),
    };
    if (baseline)
      fns.push_files_before = () => push(agent, `${baseline!.url}/mcp/before/before`, path, `// v ${++n}\n`, n);
    const t = await timeInterleaved(rounds, 3, fns, smoke ? 5_000 : 60_000, 10);
    agent.destroy();
    const s = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, summarize(v)]));
    const commits = Number((await git(dir, 'rev-list', '--count', 'agent')).trim());
    progress(
      `writes: push_files ${s.push_files?.median} ms, plumbing ${s.plumbing?.median} ms${s.push_files_before ? `, before ${s.push_files_before.median} ms` : ''}`,
    );
    return {
      repository: { files, branch_commits_after: commits },
      rounds: s.push_files?.n,
      push_files_ms: s.push_files,
      plumbing_ms: s.plumbing,
      ...(s.push_files_before ? { push_files_before_ms: s.push_files_before } : {}),
      ratio: ratio(s.push_files!.median, s.plumbing!.median),
      ...(s.push_files_before ? { ratio_before: ratio(s.push_files_before.median, s.plumbing!.median) } : {}),
      target: 1.5,
      met: (ratio(s.push_files!.median, s.plumbing!.median) ?? Infinity) <= 1.5,
      load_start,
      load_end: loadavg().map((x) => round(x, 2)),
    };
  } finally {
    await blinder?.stop();
    await baseline?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type R = Record<string, any>;

/** The report section (markdown). */
export function writesSection(r: R): string {
  const row = (name: string, x: R | undefined) =>
    x ? [`| ${name} | ${x.median} | ${x.p90} | ${x.p99} | ${x.n} |`] : [];
  return [
    '## Writes: push_files against the raw plumbing (issue 24)',
    '',
    `One file (${r.repository.files}-file bare repository) committed to a branch, round-robin in one run: \`push_files\` through \`bin/git-blinder serve\` over HTTP (2026-07-28 requests, keep-alive, perimeter writing \`**\`), and the same commit by hand from this process: \`hash-object -w --stdin\`, \`rev-parse\`, \`read-tree\` into a temporary index, \`update-index --index-info\`, \`write-tree\`, \`commit-tree\`, \`update-ref\` with the old value. Load average ${r.load_start.join(' / ')} at start, ${r.load_end.join(' / ')} at end.`,
    '',
    '| side | median ms | p90 ms | p99 ms | n |',
    '| --- | --- | --- | --- | --- |',
    ...row('push_files (git-blinder, HTTP)', r.push_files_ms),
    ...row('push_files, before this change', r.push_files_before_ms),
    ...row('raw plumbing', r.plumbing_ms),
    '',
    `push_files ÷ plumbing: **${r.ratio}**${r.ratio_before !== undefined ? ` (before: ${r.ratio_before})` : ''}; target ≤ ${r.target}×: ${r.met ? 'met' : '**missed**'}.`,
  ].join('\n');
}
