// Section "throughput" (issue 11): reads only, 100 concurrent SDK clients, git-blinder against the minimal SDK server
// on the same mix and repository. Both servers run as their own processes (the clients share the machine, in this
// process); phases alternate between the two servers so load swings on the shared machine hit both alike.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectAgent, type AgentClient } from './clients.js';
import { selfFixture } from './fixtures.js';
import { git } from './genrepo.js';
import { perimeterIds, serveArgs, writeReadPerimeters } from './serve-config.js';
import { startListening, startServerProcess, type ServerProcess } from './server-process.js';
import { progress, ratio, round, summarize } from './stats.js';

const PERIMETERS = 10;
type Op = 'get_file' | 'get_tree' | 'list_commits' | 'get_commit';
/** The read mix (weights), shared with the cluster section. */
export const MIX: readonly [Op, number][] = [
  ['get_file', 40],
  ['get_tree', 20],
  ['list_commits', 20],
  ['get_commit', 20],
];

/** What one side's clients measured. */
export interface Tally {
  latencies: number[];
  errors: number;
  samples: string[];
}

/** A seeded generator, so every side replays the same sequence of calls. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One client's loop until the deadline: a weighted pick from the mix, the same sequence for both servers. */
export async function loop(
  agent: Pick<AgentClient, 'call'>,
  files: readonly string[],
  shas: readonly string[],
  rnd: () => number,
  deadline: number,
  t: Tally,
): Promise<void> {
  const total = MIX.reduce((n, [, w]) => n + w, 0);
  while (performance.now() < deadline) {
    let pick = rnd() * total;
    let op: Op = 'get_file';
    for (const [name, w] of MIX)
      if ((pick -= w) < 0) {
        op = name;
        break;
      }
    const args: Record<string, unknown> =
      op === 'get_file'
        ? { path: files[Math.floor(rnd() * files.length)] }
        : op === 'get_tree'
          ? { recursive: true }
          : op === 'list_commits'
            ? { per_page: 20 }
            : { sha: shas[Math.floor(rnd() * shas.length)] };
    const start = performance.now();
    try {
      const r = await agent.call(op, args);
      t.latencies.push(performance.now() - start);
      if (r.isError) {
        t.errors++;
        if (t.samples.length < 3) t.samples.push(`${op}: ${JSON.stringify(r.content).slice(0, 160)}`);
      }
    } catch (err) {
      t.errors++;
      if (t.samples.length < 3) t.samples.push(`${op}: ${String(err).slice(0, 160)}`);
    }
  }
}

async function connectAll(urlOf: (k: number) => string, n: number): Promise<AgentClient[]> {
  const out: AgentClient[] = [];
  for (let i = 0; i < n; i += 10)
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, (_, j) => connectAgent(urlOf(i + j), `tp-${i + j}`)),
      )),
    );
  return out;
}

/** Runs the section. */
export async function benchThroughput(smoke: boolean): Promise<Record<string, unknown>> {
  const clients = smoke ? 20 : 100;
  const rounds = smoke ? 1 : 3;
  const seconds = smoke ? 2 : 12;
  const fx = await selfFixture();
  const files = (await git(fx.dir, 'ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean);
  const shas = (await git(fx.dir, 'rev-list', '-n', '40', 'main')).split('\n').filter(Boolean);
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-tp-'));
  // Default limits (4 calls at once per perimeter, 32 queued): what an operator gets; ten perimeters of ten clients.
  const config = await writeReadPerimeters(work, fx.dir, perimeterIds(PERIMETERS));
  const tsx = new URL('../node_modules/tsx/dist/esm/index.mjs', import.meta.url).pathname;
  let blinder: ServerProcess | undefined;
  let minimal: ServerProcess | undefined;
  try {
    blinder = await startServerProcess(serveArgs(join(work, 'state'), config, ['--session-idle', '600']));
    minimal = await startListening(
      process.execPath,
      ['--import', tsx, new URL('./minimal-serve.ts', import.meta.url).pathname, fx.dir],
      {},
      /minimal listening on (http:\/\/\S+)/,
    );
    const b = blinder;
    const m = minimal;
    const sides = {
      blinder: {
        agents: await connectAll((k) => `${b.url}/mcp/p${k % PERIMETERS}`, clients),
        tally: { latencies: [], errors: 0, samples: [] } as Tally,
        seconds: 0,
      },
      minimal: {
        agents: await connectAll(() => m.url, clients),
        tally: { latencies: [], errors: 0, samples: [] } as Tally,
        seconds: 0,
      },
    };
    let seed = 1;
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 === 0 ? (['minimal', 'blinder'] as const) : (['blinder', 'minimal'] as const)) {
        const side = sides[name];
        const t0 = performance.now();
        const deadline = t0 + seconds * 1000;
        seed += 1000;
        await Promise.all(side.agents.map((a, k) => loop(a, files, shas, lcg(seed + k), deadline, side.tally)));
        side.seconds += (performance.now() - t0) / 1000;
        progress(`throughput round ${r + 1} ${name}: ${side.tally.latencies.length} calls so far`);
      }
    }
    await Promise.all([...sides.blinder.agents, ...sides.minimal.agents].map((a) => a.close(true)));
    const figures = (s: { tally: Tally; seconds: number }) => {
      const sum = summarize(s.tally.latencies);
      return {
        calls: s.tally.latencies.length,
        per_s: round(s.tally.latencies.length / s.seconds, 1),
        p50_ms: sum.median,
        p99_ms: sum.p99,
        errors: s.tally.errors,
        error_samples: s.tally.samples,
      };
    };
    const bl = figures(sides.blinder);
    const mi = figures(sides.minimal);
    return {
      clients,
      perimeters: PERIMETERS,
      mix: Object.fromEntries(MIX),
      rounds,
      seconds_per_phase: seconds,
      repository: { files: files.length, commits: fx.commits },
      blinder: bl,
      minimal: mi,
      ratio: ratio(bl.per_s, mi.per_s),
      target: 0.7,
      met: (ratio(bl.per_s, mi.per_s) ?? 0) >= 0.7,
    };
  } finally {
    await blinder?.stop();
    await minimal?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type R = Record<string, any>;

/** The report section (markdown). */
export function throughputSection(r: R): string {
  const row = (name: string, x: R) => `| ${name} | ${x.calls} | ${x.per_s} | ${x.p50_ms} | ${x.p99_ms} | ${x.errors} |`;
  return [
    '## Reads throughput, 100 concurrent clients (git-blinder vs the minimal SDK server)',
    '',
    `${r.clients} SDK clients (2025-era sessions) in the bench process, each server its own process on the same machine: git-blinder (\`bin/git-blinder serve\`, ${r.perimeters} perimeters reading \`**\` with default concurrency limits, ten clients each) and \`bench/minimal-server.ts\` (same SDK, same adapter, no policy). Mix (weights): ${Object.entries(
      r.mix,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )} on the clone of this repository (${r.repository.files} files). ${r.rounds} rounds of ${r.seconds_per_phase} s per server, alternating.`,
    '',
    '| server | calls | calls/s | p50 ms | p99 ms | errors |',
    '| --- | --- | --- | --- | --- | --- |',
    row('git-blinder', r.blinder),
    row('minimal SDK server', r.minimal),
    '',
    `git-blinder ÷ minimal: **${r.ratio}** (target ≥ ${r.target}: ${r.met ? 'met' : '**missed**'}).`,
    r.blinder.error_samples.length
      ? `\nError samples: ${r.blinder.error_samples.map((e: string) => `\`${e}\``).join('; ')}`
      : '',
  ].join('\n');
}
