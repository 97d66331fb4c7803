// Section "floor_overhead" (issue 24): what one sequential call costs in git-blinder above the protocol floor. The
// same official SDK client calls `bin/git-blinder serve` (built dist/) and bench/floor-server.ts (the SDK's own server
// answering git-blinder's texts, precomputed), each a process of its own, and the raw git command is spawned, the
// three round-robin in one run on the real-sized generated repository of reads_vs_git. Every tool is timed twice:
// "repeated" (the same call each round: answers of immutable ids may come from git-blinder's answer cache) and
// "cold" (no round can be answered from that cache: distinct files or commits, or, for the calls whose arguments
// cannot vary without changing the work, the same call on a perimeter that has not made it yet).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectAgent, type AgentClient } from './clients.js';
import { answerOf, startFloorProcess, type FloorAnswer } from './floor-server.js';
import { git } from './genrepo.js';
import { must, readsRepo } from './reads-vs-git.js';
import { perimeterIds, serveArgs, writeReadPerimeters } from './serve-config.js';
import { staleBuild, startServerProcess, type ServerProcess } from './server-process.js';
import { progress, round, summarize, timeInterleaved } from './stats.js';

const exec = promisify(execFile);

export const FLOOR_TOOLS = ['get_file', 'get_tree', 'list_commits', 'get_commit'] as const;
type Tool = (typeof FLOOR_TOOLS)[number];
export type Variant = 'cold' | 'repeated';

/**
 * Issue 24's targets for git-blinder − floor per call: a fixed bound for the reads git-blinder serves without a
 * process, the raw git command's own time plus a bound for the history reads.
 */
export const FLOOR_TARGETS: Record<Tool, { readonly ms: number; readonly plusGit: boolean }> = {
  get_file: { ms: 0.5, plusGit: false },
  get_tree: { ms: 0.5, plusGit: false },
  list_commits: { ms: 1, plusGit: true },
  get_commit: { ms: 1, plusGit: true },
};

/** The target as the report states it. */
export const floorTargetText = (tool: Tool): string =>
  FLOOR_TARGETS[tool].plusGit ? `≤ raw git + ${FLOOR_TARGETS[tool].ms} ms` : `≤ ${FLOOR_TARGETS[tool].ms} ms`;

/** One way of calling a tool, per round: its arguments, the perimeter it is made on, the raw git command. */
interface Case {
  readonly args: (round: number) => Record<string, unknown>;
  /** Index of the git-blinder session (one per perimeter) that makes the call of this round. */
  readonly session: (round: number) => number;
  readonly git: (round: number) => string[];
  /** Rounds (warm-up included) that stay cold: past them a call would repeat an earlier one. */
  readonly distinct: number;
}

/**
 * The cases of every tool. Cold rounds take `cold[round]` (files, commits) on the first session, or make the same call
 * on session `round` (one per perimeter) when the arguments cannot vary.
 */
function casesOf(
  file: string,
  commit: string,
  coldPaths: readonly string[],
  coldShas: readonly string[],
  perimeters: number,
): Record<Tool, Record<Variant, Case>> {
  const same = (args: Record<string, unknown>, gitArgs: string[]) => ({
    repeated: { args: () => args, session: () => 0, git: () => gitArgs, distinct: Infinity },
    cold: { args: () => args, session: (r: number) => r, git: () => gitArgs, distinct: perimeters },
  });
  const at = <T>(list: readonly T[], r: number): T => {
    const x = list[r];
    if (x === undefined) throw new Error(`round ${r} has no distinct argument left (${list.length})`);
    return x;
  };
  return {
    get_file: {
      repeated: {
        args: () => ({ path: file }),
        session: () => 0,
        git: () => ['show', `main:${file}`],
        distinct: Infinity,
      },
      cold: {
        args: (r) => ({ path: at(coldPaths, r) }),
        session: () => 0,
        git: (r) => ['show', `main:${at(coldPaths, r)}`],
        distinct: coldPaths.length,
      },
    },
    get_tree: same({ recursive: true }, ['ls-tree', '-r', '-l', 'main']),
    list_commits: same({ per_page: 50 }, ['log', '-50', '--name-only', 'main']),
    get_commit: {
      repeated: { args: () => ({ sha: commit }), session: () => 0, git: () => ['show', commit], distinct: Infinity },
      cold: {
        args: (r) => ({ sha: at(coldShas, r) }),
        session: () => 0,
        git: (r) => ['show', at(coldShas, r)],
        distinct: coldShas.length,
      },
    },
  };
}

const GIT_COMMAND: Record<Tool, Record<Variant, string>> = {
  get_file: { repeated: 'git show main:<path>', cold: 'git show main:<path>, a distinct path each round' },
  get_tree: { repeated: 'git ls-tree -r -l main', cold: 'git ls-tree -r -l main' },
  list_commits: { repeated: 'git log -50 --name-only main', cold: 'git log -50 --name-only main' },
  get_commit: { repeated: 'git show <sha>', cold: 'git show <sha>, a distinct commit each round' },
};

const load = (): number => round(loadavg()[0]!, 2);
const textBytes = (r: any): number =>
  ((r?.content ?? []) as { text?: string }[]).reduce((n, c) => n + Buffer.byteLength(c.text ?? ''), 0);

/** Runs the section. */
export async function benchFloorOverhead(smoke: boolean): Promise<Record<string, unknown>> {
  const stale = staleBuild();
  if (stale) throw new Error(stale);
  const n = smoke ? 10 : 200;
  const warmup = smoke ? 2 : 10;
  const coldWarmup = 2;
  const budget = smoke ? 2_000 : 20_000;
  // One perimeter per cold round of the calls that cannot vary (each perimeter's answers are cached apart).
  const perimeters = smoke ? 8 : 100;
  const { files, commits, repo, file, commit } = await readsRepo(smoke);
  const paths = (await git(repo.dir, 'ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean);
  const want = n + coldWarmup;
  const step = Math.max(1, Math.floor(paths.length / want));
  const coldPaths = paths.filter((p, i) => i % step === 0 && p !== file).slice(0, want);
  const coldShas = (await git(repo.dir, 'rev-list', '-n', String(want + 1), 'main'))
    .split('\n')
    .filter((s) => s !== '' && s !== commit)
    .slice(0, want);
  const cases = casesOf(file, commit, coldPaths, coldShas, perimeters);
  const variants: Variant[] = ['repeated', 'cold'];

  const work = await mkdtemp(join(tmpdir(), 'gb-bench-floor-'));
  const ids = perimeterIds(perimeters);
  const config = await writeReadPerimeters(work, repo.dir, ids);
  const servers: ServerProcess[] = [];
  const clients: AgentClient[] = [];
  const load_start = loadavg().map((x) => round(x, 2));
  try {
    // The floor's texts come from a git-blinder process of their own, stopped before the timed one starts: computing
    // them there leaves no answer, tree or commit read behind in the process being timed.
    const pre = await startServerProcess(serveArgs(join(work, 'state-pre'), config));
    servers.push(pre);
    const calls = new Map<string, { tool: Tool; args: Record<string, unknown> }>();
    for (const tool of FLOOR_TOOLS)
      for (const v of variants) {
        const c = cases[tool][v];
        const rounds = v === 'repeated' ? 1 : Math.min(c.distinct, want);
        for (let r = 0; r < rounds; r++) calls.set(`${tool} ${JSON.stringify(c.args(r))}`, { tool, args: c.args(r) });
      }
    // A few at a time: hundreds of answers one by one take long on a loaded machine, and their timing is not measured.
    const answers: FloorAnswer[] = [];
    const todo = [...calls.values()];
    for (let i = 0; i < todo.length; i += 4)
      answers.push(
        ...(await Promise.all(
          todo.slice(i, i + 4).map(async (c) => ({ ...c, result: await answerOf(`${pre.url}/mcp/p0`, c) })),
        )),
      );
    await pre.stop();
    const blinder = await startServerProcess(serveArgs(join(work, 'state'), config));
    servers.push(blinder);
    const floor = await startFloorProcess(work, answers);
    servers.push(floor);
    const floorClient = await connectAgent(floor.url);
    clients.push(floorClient);
    const sessions: AgentClient[] = [];
    for (const id of ids) {
      const a = await connectAgent(`${blinder.url}/mcp/${id}`);
      clients.push(a);
      sessions.push(a);
      // Session and binding set up before any timed call (a one-level root listing: no timed call makes it).
      await must(a.call('get_tree', {}));
    }
    progress(`floor overhead: ${paths.length} files, ${answers.length} precomputed answers, ${perimeters} sessions`);

    const rows: Record<string, unknown>[] = [];
    const answer_bytes: Record<string, { blinder: number; floor: number }> = {};
    for (const tool of FLOOR_TOOLS) {
      const rep = cases[tool].repeated.args(0);
      answer_bytes[tool] = {
        blinder: textBytes(await must(sessions[0]!.call(tool, rep))),
        floor: textBytes(await must(floorClient.call(tool, rep))),
      };
      for (const v of variants) {
        const c = cases[tool][v];
        const w = v === 'repeated' ? warmup : coldWarmup;
        const rounds = Math.min(n, c.distinct - w);
        const l0 = load();
        const t = await timeInterleaved(
          rounds,
          w,
          {
            'git-blinder': (r) => must(sessions[c.session(r)]!.call(tool, c.args(r))),
            floor: (r) => must(floorClient.call(tool, c.args(r))),
            git: (r) => exec('git', ['-C', repo.dir, ...c.git(r)], { maxBuffer: 512 << 20 }),
          },
          budget,
          smoke ? 5 : 20,
          true,
        );
        const b = t['git-blinder'] ?? [];
        const f = t.floor ?? [];
        const g = t.git ?? [];
        const s = { blinder: summarize(b), floor: summarize(f), git: summarize(g) };
        // Paired: the k-th sample of each mode is from the same round, so load swings cancel out of the difference.
        const overhead = summarize(b.map((x, k) => x - (f[k] ?? NaN))).median;
        const t_ = FLOOR_TARGETS[tool];
        const target_ms = round(t_.ms + (t_.plusGit ? s.git.median : 0));
        rows.push({
          tool,
          variant: v,
          git_command: GIT_COMMAND[tool][v],
          rounds: s.git.n,
          median_ms: { blinder: s.blinder.median, floor: s.floor.median, git: s.git.median },
          p90_ms: { blinder: s.blinder.p90, floor: s.floor.p90, git: s.git.p90 },
          overhead_ms: overhead,
          overhead_diff_of_medians_ms: round(s.blinder.median - s.floor.median),
          target_ms,
          met: overhead <= target_ms,
          load: [l0, load()],
        });
        progress(
          `floor overhead ${tool} ${v}: git-blinder ${s.blinder.median} ms, floor ${s.floor.median} ms, git ${s.git.median} ms; git-blinder − floor ${overhead} ms (target ≤ ${target_ms}), ${s.git.n} rounds`,
        );
      }
    }
    return {
      repository: { files, commits, paths: paths.length },
      perimeters,
      rounds: { repeated: n, warmup, cold_warmup: coldWarmup, budget_ms_per_series: budget },
      answer_bytes,
      load_start,
      load_end: loadavg().map((x) => round(x, 2)),
      rows,
    };
  } finally {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type R = Record<string, any>;

/** Whether every measured variant of `tool` meets its target (null: not measured). */
export function floorToolMet(r: R, tool: Tool): boolean | null {
  const rows = (r.rows as R[]).filter((x) => x.tool === tool);
  return rows.length === 0 ? null : rows.every((x) => x.met === true);
}

/** The report section (markdown). */
export function floorOverheadSection(r: R): string {
  const rows = (r.rows as R[]).map(
    (x) =>
      `| ${x.tool} | ${x.variant} | ${x.median_ms.blinder} / ${x.p90_ms.blinder} | ${x.median_ms.floor} / ${x.p90_ms.floor} | ${x.median_ms.git} / ${x.p90_ms.git} (\`${x.git_command}\`) | **${x.overhead_ms}** | ${x.overhead_diff_of_medians_ms} | ${floorTargetText(x.tool)} (${x.target_ms} ms) | ${x.met ? 'met' : '**missed**'} | ${x.rounds} | ${x.load.join(' → ')} |`,
  );
  return [
    '## Overhead above the protocol floor, sequential calls (issue 24)',
    '',
    `Repository: ${r.repository.files.toLocaleString('en')} files, ${r.repository.commits.toLocaleString('en')} commits (generated, the one of "Reads vs raw git"). One official SDK client (2025-era session over Streamable HTTP, \`bench/clients.ts\`) calls \`bin/git-blinder serve\` (built \`dist/\`, ${r.perimeters} perimeters reading \`**\`, one session each) and \`bench/floor-server.ts\` (the SDK's own server answering the same texts, precomputed by a separate git-blinder process stopped before the timed one starts), each a process of its own; the raw git command is spawned. The three are timed round-robin, each round starting one mode further, up to ${r.rounds.repeated} rounds or ${r.rounds.budget_ms_per_series / 1000} s per row after ${r.rounds.warmup} warm-up rounds (${r.rounds.cold_warmup} for cold rows). "repeated": the same call every round, on one session. "cold": no round can be answered from git-blinder's answer cache — get_file reads a distinct file and get_commit a distinct commit each round; get_tree (whole tree, recursive) and list_commits (50, whole history) cannot vary without changing the work, so each round makes the same call on a perimeter that has not made it yet (answers are cached per perimeter; the adapter's caches of tree objects and listings by id still serve, as they would after any earlier read of the same trees). **git-blinder − floor is the median of the paired differences** (each round's git-blinder time minus the same round's floor time); the difference of the medians is given beside it. Answer text: ${Object.entries(
      r.answer_bytes as R,
    )
      .map(([k, v]: [string, R]) => `${k} ${v.blinder} B${v.floor !== v.blinder ? ` (floor ${v.floor} B)` : ''}`)
      .join(
        ', ',
      )} (the repeated call). Load average ${r.load_start.join(' / ')} at start, ${r.load_end.join(' / ')} at end.`,
    '',
    '| tool | calls | git-blinder median / p90 ms | floor median / p90 ms | raw git median / p90 ms | git-blinder − floor ms (paired median) | difference of medians ms | target | status | rounds | load |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
