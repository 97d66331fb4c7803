// Section "cyanheads" (issue 11): git-blinder against cyanheads/git-mcp-server, the peer agents use for local git,
// both over HTTP as their own processes, on the repository of "reads vs git" and the calls both have (cyanheads has
// no tree listing): a file read, a 50-commit log, one commit. Round-robin in one run, one SDK client each.
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAgent, type AgentClient } from './clients.js';
import { readsRepo } from './reads-vs-git.js';
import { serveArgs, writeReadPerimeters } from './serve-config.js';
import { startListening, startServerProcess, type ServerProcess } from './server-process.js';
import { progress, ratio, summarize, timeInterleaved } from './stats.js';
import { freePort } from '../test/support/ports.js';

export const CYANHEADS = '@cyanheads/git-mcp-server@2.15.3';

/** The peer's entry script: BENCH_CYANHEADS, else the pinned devDependency; undefined when neither is there. */
function peerEntry(): string | undefined {
  const fromEnv = process.env.BENCH_CYANHEADS;
  if (fromEnv) return fromEnv;
  try {
    return createRequire(import.meta.url).resolve('@cyanheads/git-mcp-server/dist/index.js');
  } catch {
    return undefined;
  }
}

/** Connects once the peer answers (it prints nothing reliable when ready). */
async function connectWhenUp(url: string): Promise<AgentClient> {
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      return await connectAgent(url, 'bench-peer');
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/** Fails loudly when a measured call errs: timing error answers would be meaningless. */
async function must(p: Promise<any>): Promise<number> {
  const r = await p;
  if (r?.isError) throw new Error(`call failed: ${JSON.stringify(r).slice(0, 300)}`);
  return JSON.stringify(r).length;
}

/** Runs the section. */
export async function benchCyanheads(smoke: boolean): Promise<Record<string, unknown>> {
  const entry = peerEntry();
  if (!entry)
    return {
      cannot_run: `${CYANHEADS} is not installed (npm install, or BENCH_CYANHEADS=<path to its dist/index.js>)`,
    };
  const { files, commits, repo, file, commit } = await readsRepo(smoke);
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-cy-'));
  let blinder: ServerProcess | undefined;
  let peer: ServerProcess | undefined;
  const agents: AgentClient[] = [];
  try {
    const config = await writeReadPerimeters(work, repo.dir, ['all']);
    blinder = await startServerProcess(serveArgs(join(work, 'state'), config));
    const port = await freePort();
    peer = await startListening(
      process.execPath,
      [entry],
      {
        MCP_TRANSPORT_TYPE: 'http',
        MCP_HTTP_HOST: '127.0.0.1',
        MCP_HTTP_PORT: String(port),
        GIT_SIGN_COMMITS: 'false',
        MCP_LOG_LEVEL: 'error',
      },
      undefined,
      `http://127.0.0.1:${port}/mcp`,
    );
    const a = await connectAgent(`${blinder.url}/mcp/all`, 'bench-blinder');
    agents.push(a);
    const c = await connectWhenUp(peer.url);
    agents.push(c);
    const calls = {
      get_file: {
        blinder: () => must(a.call('get_file', { path: file })),
        peer: () => must(c.call('git_show', { path: repo.dir, object: 'main', filePath: file })),
        peer_call: 'git_show {object: "main", filePath}',
      },
      list_commits_50: {
        blinder: () => must(a.call('list_commits', { per_page: 50 })),
        peer: () => must(c.call('git_log', { path: repo.dir, maxCount: 50, branch: 'main' })),
        peer_call: 'git_log {maxCount: 50, branch: "main"}',
      },
      get_commit: {
        blinder: () => must(a.call('get_commit', { sha: commit })),
        peer: () => must(c.call('git_show', { path: repo.dir, object: commit })),
        peer_call: 'git_show {object: <sha>}',
      },
    };
    const out: Record<string, unknown> = {};
    for (const [name, k] of Object.entries(calls)) {
      const bytes = { blinder: await k.blinder(), cyanheads: await k.peer() };
      const t = await timeInterleaved(
        smoke ? 10 : 200,
        smoke ? 2 : 10,
        { blinder: k.blinder, cyanheads: k.peer },
        smoke ? 1_500 : 12_000,
        smoke ? 5 : 20,
      );
      const s = { blinder: summarize(t.blinder ?? []), cyanheads: summarize(t.cyanheads ?? []) };
      out[name] = {
        peer_call: k.peer_call,
        median_ms: { blinder: s.blinder.median, cyanheads: s.cyanheads.median },
        p90_ms: { blinder: s.blinder.p90, cyanheads: s.cyanheads.p90 },
        result_bytes: bytes,
        n: s.blinder.n,
        blinder_vs_cyanheads: ratio(s.blinder.median, s.cyanheads.median),
      };
      progress(`cyanheads: ${name} git-blinder ${s.blinder.median} ms, cyanheads ${s.cyanheads.median} ms`);
    }
    return {
      peer: CYANHEADS,
      repository: { files, commits },
      calls: out,
      note: 'cyanheads has no tree listing, so get_tree is not compared',
    };
  } finally {
    await Promise.all(agents.map((x) => x.close(true)));
    await blinder?.stop();
    await peer?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type R = Record<string, any>;

/** The report section (markdown). */
export function cyanheadsSection(r: R): string {
  if (r.cannot_run) return ['## git-blinder vs cyanheads/git-mcp-server', '', `Not run: ${r.cannot_run}.`].join('\n');
  const rows = Object.entries(r.calls as R).map(
    ([k, c]: [string, R]) =>
      `| ${k} | ${c.median_ms.blinder} | ${c.median_ms.cyanheads} (\`${c.peer_call}\`) | ${c.blinder_vs_cyanheads} | ${c.result_bytes.blinder} / ${c.result_bytes.cyanheads} | ${c.n} |`,
  );
  return [
    '## git-blinder vs cyanheads/git-mcp-server',
    '',
    `\`${r.peer}\` over HTTP (\`MCP_TRANSPORT_TYPE=http\`, loopback) and \`bin/git-blinder serve\`, each its own process, one SDK client each, round-robin in one run, on the repository of "Reads vs raw git" (${r.repository.files.toLocaleString('en')} files, ${r.repository.commits.toLocaleString('en')} commits). ${r.note}.`,
    '',
    '| call | git-blinder median ms | cyanheads median ms | git-blinder ÷ cyanheads | result bytes (git-blinder / cyanheads) | rounds |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
