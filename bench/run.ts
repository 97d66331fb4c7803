// Entry point of `npm run bench` and `npm run bench:smoke` (`--smoke`: tiny sizes). Runs every section (or those
// named with `--only a,b`), prints the JSON results on stdout, writes REPORT.md, results.json and latency.svg.
// Smoke runs write to bench/.cache/smoke/ so they never overwrite the committed report.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { boxPlotSvg } from './chart.js';
import { benchCapacity } from './capacity.js';
import { benchCluster } from './cluster.js';
import { benchContext } from './context.js';
import { benchCore } from './core.js';
import { benchFloorOverhead } from './floor-overhead.js';
import { benchLargeRepo } from './large-repo.js';
import { benchWorkspace } from './workspace.js';
import { describeMachine } from './machine.js';
import { benchOverhead, type Series } from './overhead.js';
import { renderReport } from './report.js';
import { benchReadsVsGit } from './reads-vs-git.js';
import { benchScale } from './scale.js';
import { benchSessions } from './sessions.js';
import { benchThroughput } from './throughput.js';
import { benchCyanheads } from './cyanheads.js';
import { progress } from './stats.js';
import { benchUpstreamCost } from './upstream-cost.js';
import { benchWrites } from './writes.js';

const smoke = process.argv.includes('--smoke');
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const only = onlyArg ? new Set(onlyArg.split(',')) : undefined;
// `--merge` (with --only): re-run some sections and keep the others from the existing results.json of the same mode,
// e.g. to repeat one section that failed in a long run; the report says which sections were re-run and when.
const merge = process.argv.includes('--merge');
const here = new URL('.', import.meta.url).pathname;
const outDir = smoke ? join(here, '.cache', 'smoke') : here;

const sections: [string, () => Promise<Record<string, unknown>> | Record<string, unknown>][] = [
  ['core', () => benchCore(smoke)],
  ['overhead', () => benchOverhead(smoke)],
  ['scale', () => benchScale(smoke)],
  ['sessions', () => benchSessions(smoke)],
  // After scale: both start the built server (scale builds dist/ first on full runs).
  ['throughput', () => benchThroughput(smoke)],
  // Issue 24: one process against the protocol floor, driven from another process; push_files against the plumbing.
  ['capacity', () => benchCapacity(smoke)],
  // Issue 24: git-blinder − the protocol floor per sequential call, beside the raw git command (needs dist/ too).
  ['floor_overhead', () => benchFloorOverhead(smoke)],
  ['writes', () => benchWrites(smoke)],
  ['upstream_cost', () => benchUpstreamCost(smoke)],
  ['context', () => benchContext()],
  ['large_repo', () => benchLargeRepo(smoke)],
  ['workspace', () => benchWorkspace(smoke)],
  ['reads_vs_git', () => benchReadsVsGit(smoke)],
  ['cyanheads', () => benchCyanheads(smoke)],
  // Needs the PostgreSQL server binaries (Debian's postgresql package) and dist/.
  ['cluster', () => benchCluster(smoke)],
];

const machine = describeMachine();
const commit = (() => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', '.', '../src'], { cwd: here, encoding: 'utf8' }).trim() !==
      '';
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
})();
const started = Date.now();
const results: {
  machine: typeof machine;
  commit: string;
  mode: string;
  sections: Record<string, unknown>;
  failures: Record<string, string>;
  durations_s: Record<string, number>;
  rerun?: Record<string, string>;
  load_end?: number[];
  duration_s?: number;
} = {
  machine,
  commit,
  mode: smoke ? 'smoke' : 'full',
  sections: {},
  failures: {},
  durations_s: {},
};
const resultsFile = join(outDir, 'results.json');
if (merge && existsSync(resultsFile)) {
  const previous = JSON.parse(await readFile(resultsFile, 'utf8')) as typeof results & {
    rerun?: Record<string, string>;
  };
  results.sections = previous.sections;
  results.failures = previous.failures;
  results.durations_s = previous.durations_s;
  // The header stays the first run's (its start, loads and length); each re-run's time, commit and load are in `rerun`.
  Object.assign(results, {
    machine: previous.machine,
    commit: previous.commit,
    load_end: previous.load_end,
    duration_s: previous.duration_s,
  });
  results.rerun = { ...previous.rerun };
}
for (const [name, fn] of sections) {
  if (only && !only.has(name)) continue;
  if (merge) {
    delete results.failures[name];
    (results.rerun ??= {})[name] = `${new Date().toISOString()} on ${commit}, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' / ')}`;
  }
  progress(`section ${name}…`);
  const t = Date.now();
  try {
    results.sections[name] = await fn();
  } catch (err) {
    results.failures[name] = err instanceof Error ? `${err.message}` : String(err);
    progress(`section ${name} FAILED: ${results.failures[name]}`);
  }
  results.durations_s[name] = Math.round((Date.now() - t) / 100) / 10;
}

await mkdir(outDir, { recursive: true });
const overhead = results.sections.overhead as { series: Series[] } | undefined;
// Drawn only when overhead ran in this invocation: a merge of other sections leaves the chart of its own run.
if (overhead && (!only || only.has('overhead'))) {
  const series = overhead.series.map((s) => ({ group: s.tool, label: s.mode, summary: s.summary }));
  await writeFile(
    join(outDir, 'latency.svg'),
    boxPlotSvg(
      `Tool call latency by mode (${results.machine.cores} cores, load ${results.machine.loadavg_start[0]})`,
      series,
    ),
  );
}
const findings = join(here, 'findings.md');
const notes = existsSync(findings) ? await readFile(findings, 'utf8') : '';
const loadEnd = loadavg().map((x) => Math.round(x * 100) / 100);
if (!merge) {
  results.load_end = loadEnd;
  results.duration_s = Math.round((Date.now() - started) / 1000);
}
const runSeconds = results.duration_s ?? Object.values(results.durations_s).reduce((a, b) => a + b, 0);
await writeFile(
  join(outDir, 'REPORT.md'),
  renderReport(results.machine, results, results.mode, results.load_end ?? [], runSeconds, notes),
);
await writeFile(resultsFile, JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
progress(`done in ${Math.round((Date.now() - started) / 1000)} s; report: ${join(outDir, 'REPORT.md')}`);
process.exit(Object.keys(results.failures).length > 0 ? 1 : 0);
