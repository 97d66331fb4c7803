// Section "capacity" (issue 24): what one git-blinder process can serve, against the protocol floor (the SDK's own
// server answering the same texts precomputed, bench/floor-server.ts). Both servers are processes of their own; the
// load comes from bench/capacity-driver.ts, a light raw-HTTP loop in a third process, in both protocol eras, at 16
// and 64 sessions, one tool at a time. git-blinder and the floor alternate run by run so load swings hit both alike.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DriverPlan, DriverResult } from './capacity-driver.js';
import { answerOf, startFloorProcess, type FloorAnswer } from './floor-server.js';
import { git } from './genrepo.js';
import { readsRepo } from './reads-vs-git.js';
import { perimeterIds, serveArgs, writeReadPerimeters } from './serve-config.js';
import { startListening, startServerProcess } from './server-process.js';
import { progress, ratio, round } from './stats.js';

const exec = promisify(execFile);
const TSX = new URL('../node_modules/tsx/dist/esm/index.mjs', import.meta.url).pathname;
const here = (f: string) => new URL(f, import.meta.url).pathname;

export const CAPACITY_TOOLS = ['get_file', 'get_tree', 'list_commits', 'get_commit'] as const;
type Tool = (typeof CAPACITY_TOOLS)[number];
type Call = { tool: Tool; args: Record<string, unknown> };

const PERIMETERS = 4;
const load = (): number => round(loadavg()[0]!, 2);

/** Runs of one server in one cell as one result: calls over the total time; p99 the worst run's; runs' rates kept. */
function combined(runs: readonly DriverResult[]): DriverResult & { runs_per_s: number[] } {
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  return {
    calls,
    seconds: round(seconds, 3),
    per_s: round(calls / seconds, 1),
    p50_ms: round(runs.reduce((n, r) => n + r.p50_ms, 0) / runs.length, 3),
    p99_ms: Math.max(...runs.map((r) => r.p99_ms)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    samples: runs.flatMap((r) => r.samples).slice(0, 3),
    runs_per_s: runs.map((r) => r.per_s),
  };
}

async function runDriver(plan: DriverPlan): Promise<DriverResult> {
  const { stdout } = await exec(
    process.execPath,
    ['--import', TSX, here('./capacity-driver.ts'), JSON.stringify(plan)],
    {
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout) as DriverResult;
}

/** Runs the section. */
export async function benchCapacity(smoke: boolean): Promise<Record<string, unknown>> {
  const seconds = smoke ? 0.5 : 4;
  const sessionCounts = smoke ? [16] : [16, 64];
  // Smoke: one era and two tools, so `bench:smoke` stays quick; the full run drives every cell.
  const eras = smoke ? (['legacy'] as const) : (['legacy', 'modern'] as const);
  const tools: readonly Tool[] = smoke ? ['get_file', 'list_commits'] : CAPACITY_TOOLS;
  const { files, commits, repo } = await readsRepo(smoke);
  const paths = (await git(repo.dir, 'ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean);
  const shas = (await git(repo.dir, 'rev-list', '-n', '40', 'main')).split('\n').filter(Boolean);
  const dirs = [...new Set(paths.map((p) => p.split('/')[0]!))].slice(0, 10);
  const calls: Record<Tool, Call[]> = {
    get_file: paths
      .filter((_, i) => i % Math.ceil(paths.length / 40) === 0)
      .map((path) => ({ tool: 'get_file', args: { path } })),
    get_tree: dirs.map((path) => ({ tool: 'get_tree', args: { path, recursive: true } })),
    list_commits: [
      { tool: 'list_commits', args: { per_page: 50 } },
      ...dirs.slice(0, 4).map((path): Call => ({ tool: 'list_commits', args: { path, per_page: 50 } })),
    ],
    get_commit: shas.map((sha) => ({ tool: 'get_commit', args: { sha } })),
  };
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-cap-'));
  // Four perimeters with the operator's defaults, except a call rate that does not shape the load; sessions are
  // shared out between them (a key holds at most 32 sessions).
  const config = await writeReadPerimeters(work, repo.dir, perimeterIds(PERIMETERS));
  const blinder = await startServerProcess(serveArgs(join(work, 'state'), config));
  // GB_BENCH_BASELINE=<checkout with dist/>: an older build measured in the same runs (before/after side by side).
  const baselineDir = process.env.GB_BENCH_BASELINE;
  const baseline = baselineDir
    ? await startListening(
        process.execPath,
        [join(baselineDir, 'bin/git-blinder'), 'serve', ...serveArgs(join(work, 'state-base'), config)],
        {},
        /listening on (http:\/\/\S+)/,
      )
    : undefined;
  let floor: Awaited<ReturnType<typeof startListening>> | undefined;
  const load_start = loadavg().map((x) => round(x, 2));
  try {
    const bUrls = perimeterIds(PERIMETERS).map((p) => `${blinder.url}/mcp/${p}`);
    const bUrl = bUrls[0]!;
    const answers: FloorAnswer[] = [];
    for (const list of Object.values(calls))
      for (const c of list) answers.push({ tool: c.tool, args: c.args, result: await answerOf(bUrl, c) });
    floor = await startFloorProcess(work, answers);
    const fUrl = floor.url;
    const rows: Record<string, unknown>[] = [];
    // One untimed run per era, tool and server first: the first cell would otherwise pay what every later one finds
    // done (JIT, each perimeter's first answers; the driver's own warm-up is 3 calls per session). First calls are
    // measured by the "cold" rows of floor_overhead, not here.
    const sidesOf = baseline ? (['blinder', 'floor', 'baseline'] as const) : (['blinder', 'floor'] as const);
    const urlsOf = {
      blinder: bUrls,
      floor: [fUrl],
      baseline: bUrls.map((u) => u.replace(blinder.url, baseline?.url ?? '')),
    };
    for (const era of eras)
      for (const tool of tools)
        for (const side of sidesOf)
          await runDriver({
            urls: urlsOf[side],
            era,
            sessions: sessionCounts[0]!,
            seconds: smoke ? 0.2 : 1,
            warmup: 1,
            calls: calls[tool],
          });
    let flip = false;
    for (const era of eras)
      for (const sessions of sessionCounts)
        for (const tool of tools) {
          const plan = (urls: readonly string[]): DriverPlan => ({
            urls,
            era,
            sessions,
            seconds,
            warmup: smoke ? 1 : 3,
            calls: calls[tool],
          });
          const l0 = load();
          flip = !flip;
          // Two runs per server, in mirrored order (a b, b a), so a load swing during the cell hits both alike.
          const order = flip ? [...sidesOf] : [...sidesOf].reverse();
          const runs: Record<string, DriverResult[]> = {};
          for (const side of [...order, ...[...order].reverse()])
            (runs[side] ??= []).push(await runDriver(plan(urlsOf[side])));
          const got = Object.fromEntries(Object.entries(runs).map(([side, r]) => [side, combined(r)]));
          const b = got.blinder!;
          const f = got.floor!;
          rows.push({
            era,
            sessions,
            tool,
            blinder: b,
            floor: f,
            ratio: ratio(b.per_s, f.per_s),
            ...(got.baseline ? { baseline: got.baseline, baseline_ratio: ratio(got.baseline.per_s, f.per_s) } : {}),
            load: [l0, load()],
          });
          progress(
            `capacity ${era} ${sessions} ${tool}: git-blinder ${b.per_s}/s (p99 ${b.p99_ms}), floor ${f.per_s}/s (p99 ${f.p99_ms}), errors ${b.errors}/${f.errors}${got.baseline ? `; baseline ${got.baseline.per_s}/s (p99 ${got.baseline.p99_ms}) errors ${got.baseline.errors} ${got.baseline.samples[0] ?? ''}` : ''} ${b.samples[0] ?? ''}`,
          );
        }
    return {
      repository: { files, commits, paths: paths.length },
      seconds_per_run: seconds,
      calls_per_tool: Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, v.length])),
      rss_kb: { blinder: blinder.rssKb(), floor: floor.rssKb() },
      ...(baselineDir ? { baseline: baselineDir } : {}),
      load_start,
      load_end: loadavg().map((x) => round(x, 2)),
      rows,
    };
  } finally {
    await blinder.stop();
    await baseline?.stop();
    await floor?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type R = Record<string, any>;

/** Targets of issue 24 for git-blinder ÷ floor calls/s; list_commits and get_commit have an absolute target. */
export const CAPACITY_TARGETS: Record<Tool, { ratio?: number; per_s?: number }> = {
  get_file: { ratio: 0.8 },
  get_tree: { ratio: 0.6 },
  list_commits: { per_s: 1000 },
  get_commit: { per_s: 1000 },
};

/** Whether a capacity row meets its target. */
export function capacityMet(row: R): boolean {
  const t = CAPACITY_TARGETS[row.tool as Tool];
  if (row.blinder.errors > 0) return false;
  if (t.ratio !== undefined) return (row.ratio ?? 0) >= t.ratio;
  return row.blinder.per_s >= (t.per_s ?? 0);
}

/** The report section (markdown). */
export function capacitySection(r: R): string {
  const head =
    '| era | sessions | tool | git-blinder calls/s | floor calls/s | git-blinder ÷ floor | p50 / p99 ms git-blinder | p50 / p99 ms floor | errors | target | status | load |';
  const rows = (r.rows as R[]).map((x) => {
    const t = CAPACITY_TARGETS[x.tool as Tool];
    const target = t.ratio !== undefined ? `≥ ${t.ratio}×` : `≥ ${t.per_s}/s`;
    const runs = (r: R) =>
      r.runs_per_s ? ` (${(r.runs_per_s as number[]).map((n) => Math.round(n)).join(', ')})` : '';
    return `| ${x.era === 'legacy' ? '2025 sessions' : '2026-07-28'} | ${x.sessions} | ${x.tool} | ${x.blinder.per_s}${runs(x.blinder)} | ${x.floor.per_s}${runs(x.floor)} | ${x.ratio} | ${x.blinder.p50_ms} / ${x.blinder.p99_ms} | ${x.floor.p50_ms} / ${x.floor.p99_ms} | ${x.blinder.errors} / ${x.floor.errors} | ${target} | ${capacityMet(x) ? 'met' : '**missed**'} | ${x.load.join(' → ')} |`;
  });
  const before = (r.rows as R[]).some((x) => x.baseline)
    ? [
        '',
        `Before this change (the build of \`${r.baseline ?? 'baseline'}\`, the same runs, interleaved): git-blinder ÷ floor per row, in the table's order: ${(
          r.rows as R[]
        )
          .map(
            (x) =>
              `${x.tool} ${x.era === 'legacy' ? '2025' : '2026'}/${x.sessions} ${x.baseline_ratio}× (${x.baseline?.per_s}/s, p99 ${Math.round(x.baseline?.p99_ms ?? NaN)} ms${x.baseline?.errors ? `, ${x.baseline.errors} errors` : ''})`,
          )
          .join('; ')}.`,
      ]
    : [];
  return [
    '## Capacity: one process against the protocol floor (issue 24)',
    '',
    `Repository: ${r.repository.files} files, ${r.repository.commits} commits (generated). \`bin/git-blinder serve\` with four perimeters reading \`**\` (operator defaults apart from the call rate; sessions shared out between them, a key holding at most 32) against \`bench/floor-server.ts\` (the official SDK server answering the same texts, precomputed from git-blinder's own answers). Load from \`bench/capacity-driver.ts\`: raw HTTP JSON-RPC over keep-alive, one socket per session, in a process of its own; ${r.seconds_per_run} s per run after a warm-up (one untimed 1 s run per era, tool and server before the first cell, then 3 calls per session before each run), two runs per server and cell in mirrored order (rate = calls over the two runs' time; each run's rate in parentheses; p50 their mean, p99 the worse), the servers alternating run by run (at the load of this machine one run can swing 20–40 % from the next, so read the table as a whole). Calls cycled per tool: ${Object.entries(
      r.calls_per_tool,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )} (get_tree: one directory, recursive; list_commits: 50 per page, whole history and four directories; get_commit: the last 40 commits). "Repeated list_commits/get_commit on an unmoved head" is these runs. Load average ${r.load_start.join(' / ')} at start, ${r.load_end.join(' / ')} at end. RSS after the runs: git-blinder ${Math.round(r.rss_kb.blinder / 1024)} MB, floor ${Math.round(r.rss_kb.floor / 1024)} MB.`,
    '',
    head,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    ...before,
  ].join('\n');
}
