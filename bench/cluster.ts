// Section "cluster" (issue 15): the read mix of the throughput section on one instance with the file store vs three
// instances of the BUILT server on one PostgreSQL. Both sides sit behind the same round-robin balancer (one backend vs
// three) and use 2026-07-28 (stateless) clients, which any instance serves, so the only difference is the shared store
// and the spread over processes. Phases alternate so load swings on the shared machine hit both alike.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { roundRobin } from '../test/support/cluster.js';
import { startPostgres, type TestPostgres } from '../test/support/postgres.js';
import { selfFixture } from './fixtures.js';
import { git } from './genrepo.js';
import { perimeterIds, serveArgs, writeReadPerimeters } from './serve-config.js';
import { startListening, type ServerProcess } from './server-process.js';
import { progress, ratio, round, summarize } from './stats.js';
import { lcg, loop, MIX, type Tally } from './throughput.js';

const PERIMETERS = 10;
const INSTANCES = 3;

interface ModernClient {
  call(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** A 2026-07-28 client without a key (the perimeters are open, loopback only), as in the throughput section. */
async function modernClient(url: string, name: string): Promise<ModernClient> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    call: (tool, args) => client.callTool({ name: tool, arguments: args }),
    close: () => client.close().catch(() => undefined),
  };
}

async function connectAll(url: (k: number) => string, n: number): Promise<ModernClient[]> {
  const out: ModernClient[] = [];
  for (let i = 0; i < n; i += 10)
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, (_, j) => modernClient(url(i + j), `cl-${i + j}`)),
      )),
    );
  return out;
}

/**
 * `bin/git-blinder serve` (dist/) with its own state dir; `store` set means the PostgreSQL store. The audit ledger is
 * on (serve's default, in <state dir>/audit): on the PostgreSQL side each instance also ships its entries to the
 * store's copy (issue 21), so the figures include that cost.
 */
function instance(config: string, stateDir: string, store?: string): Promise<ServerProcess> {
  const bin = new URL('../bin/git-blinder', import.meta.url).pathname;
  return startListening(
    process.execPath,
    [bin, 'serve', ...serveArgs(stateDir, config)],
    store ? { GIT_BLINDER_STORE: store } : {},
    /listening on (http:\/\/\S+)/,
  );
}

/** Runs the section. */
export async function benchCluster(smoke: boolean): Promise<Record<string, unknown>> {
  const clients = smoke ? 10 : 100;
  const rounds = smoke ? 1 : 3;
  const seconds = smoke ? 2 : 12;
  const fx = await selfFixture();
  const files = (await git(fx.dir, 'ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean);
  const shas = (await git(fx.dir, 'rev-list', '-n', '40', 'main')).split('\n').filter(Boolean);
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-cluster-'));
  const config = await writeReadPerimeters(work, fx.dir, perimeterIds(PERIMETERS));
  let pg: TestPostgres | undefined;
  const procs: ServerProcess[] = [];
  const balancers: { close(): Promise<void> }[] = [];
  try {
    pg = await startPostgres();
    const store = await pg.database('bench_cluster');
    const single = await instance(config, join(work, 'single'));
    procs.push(single);
    // One at a time: the first migrates the schema and loads the config; the others find it done.
    const shared: ServerProcess[] = [];
    for (let i = 0; i < INSTANCES; i++) shared.push(await instance(config, join(work, `inst-${i}`), store));
    procs.push(...shared);
    const lb1 = await roundRobin(() => [single.url]);
    const lbN = await roundRobin(() => shared.map((s) => s.url));
    balancers.push(lb1, lbN);
    const sides = {
      single: {
        agents: await connectAll((k) => `${lb1.url}/mcp/p${k % PERIMETERS}`, clients),
        tally: { latencies: [], errors: 0, samples: [] } as Tally,
        seconds: 0,
      },
      cluster: {
        agents: await connectAll((k) => `${lbN.url}/mcp/p${k % PERIMETERS}`, clients),
        tally: { latencies: [], errors: 0, samples: [] } as Tally,
        seconds: 0,
      },
    };
    // Warm-up, not counted: JIT and the instances' caches (bindings, git reads) warm on both sides before timing.
    const warm = performance.now() + (smoke ? 500 : 3000);
    for (const side of [sides.single, sides.cluster])
      await Promise.all(
        side.agents.map((a, k) =>
          loop(a, files, shas, lcg(k), warm + (side === sides.cluster ? (smoke ? 500 : 3000) : 0), {
            latencies: [],
            errors: 0,
            samples: [],
          }),
        ),
      );
    let seed = 7;
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 === 0 ? (['single', 'cluster'] as const) : (['cluster', 'single'] as const)) {
        const side = sides[name];
        const t0 = performance.now();
        seed += 1000;
        await Promise.all(
          side.agents.map((a, k) => loop(a, files, shas, lcg(seed + k), t0 + seconds * 1000, side.tally)),
        );
        side.seconds += (performance.now() - t0) / 1000;
        progress(`cluster round ${r + 1} ${name}: ${side.tally.latencies.length} calls so far`);
      }
    }
    await Promise.all([...sides.single.agents, ...sides.cluster.agents].map((a) => a.close()));
    // A clean stop ships what the ledgers still hold (bounded wait), so the store's copy can be compared with them.
    for (const s of shared) await s.stop();
    const audit = await auditShipped(
      store,
      shared.map((_, i) => join(work, `inst-${i}`, 'audit')),
    );
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
    const one = figures(sides.single);
    const many = figures(sides.cluster);
    return {
      clients,
      perimeters: PERIMETERS,
      instances: INSTANCES,
      mix: Object.fromEntries(MIX),
      rounds,
      seconds_per_phase: seconds,
      repository: { files: files.length, commits: fx.commits },
      load_at_end: loadavg().map((x) => round(x, 2)),
      single_file_store: one,
      cluster_postgres: many,
      // Requests (not calls: a call is several HTTP requests) each instance received from the balancer.
      requests_per_instance: Array.from({ length: INSTANCES }, (_, i) => lbN.hits.filter((h) => h === i).length),
      audit_shipping: audit,
      throughput_ratio: ratio(many.per_s, one.per_s),
      p99_ratio: ratio(many.p99_ms, one.p99_ms),
    };
  } finally {
    for (const b of balancers) await b.close();
    for (const p of procs) await p.stop();
    await pg?.destroy();
    await rm(work, { recursive: true, force: true });
  }
}

/** Entries (lines) in one instance's ledger directory: the live file and its rotated segments. */
async function ledgerLines(dir: string): Promise<number> {
  let n = 0;
  for (const name of await readdir(dir))
    if (name.startsWith('audit.jsonl'))
      n += (await readFile(join(dir, name), 'utf8')).split('\n').filter((l) => l !== '').length;
  return n;
}

/** What the instances' ledgers hold against what reached the store's copy (`gb_audit`), after they stopped. */
async function auditShipped(store: string, ledgerDirs: string[]): Promise<Record<string, number>> {
  const local = (await Promise.all(ledgerDirs.map(ledgerLines))).reduce((a, b) => a + b, 0);
  const db = new pg.Client({ connectionString: store });
  await db.connect();
  try {
    const r = await db.query<{ instances: string; rows: string; events: string }>(
      "SELECT count(DISTINCT instance) AS instances, count(*) AS rows, count(*) FILTER (WHERE kind = 'event') AS events FROM gb_audit",
    );
    const row = r.rows[0];
    return {
      ledger_entries: local,
      shipped_rows: Number(row?.rows ?? 0),
      shipped_events: Number(row?.events ?? 0),
      instances_shipping: Number(row?.instances ?? 0),
    };
  } finally {
    await db.end();
  }
}

type R = Record<string, any>;

/** The report section (markdown). */
export function clusterSection(r: R): string {
  const row = (name: string, x: R) => `| ${name} | ${x.calls} | ${x.per_s} | ${x.p50_ms} | ${x.p99_ms} | ${x.errors} |`;
  const samples = [...r.single_file_store.error_samples, ...r.cluster_postgres.error_samples];
  return [
    `## Several instances on one PostgreSQL (issue 15)`,
    '',
    `The read mix of the throughput section (${Object.entries(r.mix)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}) from ${r.clients} 2026-07-28 (stateless) SDK clients over ${r.perimeters} open perimeters, on the clone of this repository (${r.repository.files} files): one \`git-blinder serve\` (dist/) with the file store vs ${r.instances} instances on one PostgreSQL (a throwaway local server, fsync off), each side behind the same round-robin balancer in the bench process (one backend vs ${r.instances}). All of it shares this machine's cores, so ${r.instances} instances do not get ${r.instances}× the CPU: the ratio is the cost of the shared store and of the spread, not a scaling figure. ${r.rounds} rounds of ${r.seconds_per_phase} s per side, alternating, after an uncounted warm-up of each side. "errors" counts error answers: the mix picks any file, and a text-only perimeter refuses the binary ones alike on both sides.`,
    '',
    '| setup | calls | calls/s | p50 ms | p99 ms | errors |',
    '| --- | --- | --- | --- | --- | --- |',
    row('1 instance, file store', r.single_file_store),
    row(`${r.instances} instances, PostgreSQL`, r.cluster_postgres),
    '',
    `Requests per instance (round-robin): ${r.requests_per_instance.join(' / ')}. ${r.instances} instances ÷ 1 instance: throughput **${r.throughput_ratio}**, p99 ${r.p99_ratio} (reported; the issue sets no target).`,
    r.audit_shipping
      ? `\nThe audit ledger is on for every instance (serve's default; the single instance keeps its ledger in its state dir), and the ${r.instances} PostgreSQL instances ship their entries to the store's copy (issue 21): after they stopped, \`gb_audit\` held ${r.audit_shipping.shipped_rows} rows (${r.audit_shipping.shipped_events} call events) from ${r.audit_shipping.instances_shipping} instances, for ${r.audit_shipping.ledger_entries} entries in their local ledgers (warm-up included).`
      : '',
    samples.length ? `\nError samples: ${samples.map((e: string) => `\`${e}\``).join('; ')}` : '',
  ].join('\n');
}
