// What an idle 2025-era session costs in the resident memory of the real server process (`bin/git-blinder serve`),
// measured as a slope over several session counts rather than one delta: sessions are opened in steps (e.g. 200, 500,
// 1000) with raw HTTP requests (no SDK client objects in any process but the bench), and at each step the server's
// RSS is read twice: after it sat idle long enough for V8's memory reducer to shrink the heap ("idle"), then after a
// forced full GC ("after GC"). The forced GC needs `--expose-gc`: the server is started through a bench-only preload
// (bench/gc-on-signal.mjs) that collects on SIGUSR2; the product never exposes gc.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteSession, openIdleSession, openStream } from './raw-session.js';
import { perimeterIds, serveArgs, writeReadPerimeters } from './serve-config.js';
import { startListening, type ServerProcess } from './server-process.js';
import { progress, round } from './stats.js';

/**
 * How clients hold their sessions: 'bare' opens every session over one shared pool of four keep-alive sockets and
 * holds nothing open (the server's floor per session); 'held' gives each session its own keep-alive socket and the
 * GET stream SDK clients open after initialize and keep while idle (each agent is its own process in real use).
 */
export type HoldMode = 'bare' | 'held';

export interface IdleRssStep {
  readonly sessions: number;
  /** VmRSS after `settleS` idle seconds (the memory reducer had its chance), KB. */
  readonly rss_idle_kb: number;
  /** VmRSS after three forced full collections, KB. */
  readonly rss_gc_kb: number;
  /** V8 heap used after those collections, KB. */
  readonly heap_gc_kb: number;
  /** V8 heap committed after those collections (what it keeps whether live or not), KB. */
  readonly heap_total_gc_kb: number;
  /** Committed size of each V8 space after GC, KB (where RSS beyond the live heap sits). */
  readonly spaces_gc_kb: Record<string, number>;
  /** Memory of ArrayBuffers and other off-heap objects V8 tracks, after GC, KB. */
  readonly external_gc_kb: number;
  /** VmRSS each second of the idle wait, KB. */
  readonly idle_trace_kb: readonly number[];
}

export interface IdleRssRun {
  readonly mode: HoldMode;
  readonly settle_s: number;
  /** Step 0 is the baseline: the server after a warm-up of a few sessions, before the measured ones. */
  readonly steps: IdleRssStep[];
  /** Least-squares slope over the steps, KB per session. */
  readonly per_session_kb: {
    rss_idle: number;
    rss_gc: number;
    heap_gc: number;
    heap_total_gc: number;
    external_gc: number;
  };
}

/** Least-squares slope of y over x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((xs[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface GcReading {
  readonly seq: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly spaces: Record<string, { size: number; used: number }>;
}

/** Signals the server to collect and waits for the preload's report of that collection. */
async function forcedGc(srv: ServerProcess, out: string, last: number): Promise<GcReading> {
  process.kill(srv.pid, 'SIGUSR2');
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    await sleep(100);
    const text = await readFile(out, 'utf8').catch(() => '');
    if (!text) continue;
    const r = JSON.parse(text) as GcReading;
    if (r.seq > last) return r;
  }
  throw new Error('the server did not report a forced GC within 30 s');
}

/**
 * One server process, sessions opened up to each count of `steps` (ascending), RSS read idle and after GC at each.
 * `repo` is any repository; the perimeters read all of it (open perimeters: each perimeter is its own key, so it holds
 * at most 32 sessions by default; sessions are spread over enough perimeters to stay under that cap).
 */
export async function idleRss(
  repo: string,
  mode: HoldMode,
  steps: readonly number[],
  settleS: number,
): Promise<IdleRssRun> {
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-idle-rss-'));
  const max = steps[steps.length - 1] as number;
  const ids = perimeterIds(Math.max(1, Math.ceil(max / 25)));
  const config = await writeReadPerimeters(work, repo, ids);
  const out = join(work, 'gc.json');
  const bin = new URL('../bin/git-blinder', import.meta.url).pathname;
  const hook = new URL('./gc-on-signal.mjs', import.meta.url).href;
  const pool = new Agent({ keepAlive: true, maxSockets: 4 });
  const own: Agent[] = [];
  const streams: { destroy(): void }[] = [];
  let srv: ServerProcess | undefined;
  try {
    srv = await startListening(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        hook,
        bin,
        'serve',
        ...serveArgs(join(work, 'state'), config, ['--session-idle', '3600']),
      ],
      { GB_BENCH_GC_OUT: out },
      /listening on (http:\/\/\S+)/,
    );
    const s = srv;
    const urlOf = (k: number) => `${s.url}/mcp/${ids[k % ids.length] as string}`;
    let opened = 0;
    const open = async (k: number): Promise<void> => {
      if (mode === 'bare') {
        await openIdleSession(pool, urlOf(k));
        return;
      }
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      own.push(agent);
      await openStream(urlOf(k), await openIdleSession(agent, urlOf(k)), streams);
    };
    const openUpTo = async (n: number): Promise<void> => {
      while (opened < n) {
        const batch = Math.min(10, n - opened);
        await Promise.all(Array.from({ length: batch }, (_, j) => open(opened + j)));
        opened += batch;
      }
    };
    let seq = 0;
    const reading = async (sessions: number): Promise<IdleRssStep> => {
      // VmRSS once a second while idle: shows whether (and when) the memory reducer gave pages back.
      const trace: number[] = [];
      for (let t = 0; t < settleS; t++) {
        await sleep(1000);
        trace.push(s.rssKb());
      }
      const idle = s.rssKb();
      const g = await forcedGc(s, out, seq);
      seq = g.seq;
      return {
        sessions,
        rss_idle_kb: idle,
        rss_gc_kb: Math.round(g.rss / 1024),
        heap_gc_kb: Math.round(g.heapUsed / 1024),
        heap_total_gc_kb: Math.round(g.heapTotal / 1024),
        spaces_gc_kb: Object.fromEntries(Object.entries(g.spaces).map(([k, v]) => [k, Math.round(v.size / 1024)])),
        external_gc_kb: Math.round(g.external / 1024),
        idle_trace_kb: trace,
      };
    };
    // Warm-up: every code path a session takes (held or not) runs before the baseline; then the warm-up sessions
    // leave (DELETE), so the measured ones can use the whole server cap (1,000 agent sessions by default).
    const warm: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const sid = await openIdleSession(pool, urlOf(i));
      await openStream(urlOf(i), sid, streams);
      warm.push(sid);
    }
    for (const [i, sid] of warm.entries()) await deleteSession(pool, urlOf(i), sid);
    for (const r of streams.splice(0)) r.destroy();
    const rows: IdleRssStep[] = [{ ...(await reading(0)) }];
    for (const n of steps) {
      await openUpTo(n);
      rows.push(await reading(n));
      const r = rows[rows.length - 1] as IdleRssStep;
      progress(
        `idle-rss ${mode}: ${n} sessions, RSS idle ${r.rss_idle_kb} KB, after GC ${r.rss_gc_kb} KB, heap ${r.heap_gc_kb} KB`,
      );
    }
    const xs = rows.map((r) => r.sessions);
    const per = (f: (r: IdleRssStep) => number) => round(slope(xs, rows.map(f)), 1);
    return {
      mode,
      settle_s: settleS,
      steps: rows,
      per_session_kb: {
        rss_idle: per((r) => r.rss_idle_kb),
        rss_gc: per((r) => r.rss_gc_kb),
        heap_gc: per((r) => r.heap_gc_kb),
        heap_total_gc: per((r) => r.heap_total_gc_kb),
        external_gc: per((r) => r.external_gc_kb),
      },
    };
  } finally {
    for (const r of streams) r.destroy();
    for (const a of own) a.destroy();
    pool.destroy();
    await srv?.stop();
    await rm(work, { recursive: true, force: true });
  }
}
