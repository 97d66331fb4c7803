// Turns the JSON results into bench/REPORT.md: machine, method, figures, targets met or missed, and the chart.
import type { Machine } from './machine.js';
import { capacitySection } from './capacity.js';
import { clusterSection } from './cluster.js';
import { cyanheadsSection } from './cyanheads.js';
import { floorOverheadSection } from './floor-overhead.js';
import { readsVsGitSection } from './reads-vs-git.js';
import { sessionsSection } from './sessions.js';
import { throughputSection } from './throughput.js';
import { writesSection } from './writes.js';
import { targetsTable } from './targets.js';

type R = Record<string, any>;
const yes = (b: unknown) => (b === true ? 'met' : b === false ? '**missed**' : 'n/a');
const row = (cells: unknown[]) => `| ${cells.map((c) => String(c ?? '')).join(' | ')} |`;
const table = (head: string[], rows: unknown[][]) =>
  [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');

function core(c: R): string {
  const d = c.decide;
  const f = c.filter_tree;
  return [
    '## 1. Policy core (in-process)',
    '',
    table(
      ['measure', 'figure', 'target', 'status'],
      [
        ['`decide` get_file, calls/s', d.get_file_per_s.toLocaleString('en'), '≥ 1,000,000/s', yes(d.met)],
        [
          '`decide` get_file without privacy zones, calls/s',
          d.get_file_without_privacy_zones_per_s.toLocaleString('en'),
          '',
          '',
        ],
        ['`decide` push_files (2 paths), calls/s', d.push_files_2_paths_per_s.toLocaleString('en'), '', ''],
        ...Object.entries(d.breakdown_per_s).map(([k, v]) => [
          `  of which ${k}, calls/s`,
          (v as number).toLocaleString('en'),
          '',
          '',
        ]),
        [
          `filterTree, ${f.entries.toLocaleString('en')} entries, ${f.globs} globs, recursive (median ms)`,
          f.recursive_ms.median,
          f.target_ms ? `< ${f.target_ms} ms` : 'n/a (smoke)',
          yes(f.met),
        ],
        ['filterTree, same, without privacy zones (median ms)', f.recursive_without_privacy_zones_ms.median, '', ''],
        ['filterTree, one level (median ms)', f.one_level_ms.median, '', ''],
        ['historyPrefixes derivations/s', c.history_prefixes.derivations_per_s.toLocaleString('en'), '', ''],
        ['bindAgent (compile a binding), median ms', c.bind_agent_compile_ms.median, '', 'cached per store revision'],
      ],
    ),
    '',
    `Note: ${d.note}. ${f.visible_entries.toLocaleString('en')} of ${f.entries.toLocaleString('en')} entries stay visible.`,
  ].join('\n');
}

function overhead(o: R): string {
  const s = o.series as R[];
  const modes = [...new Set(s.map((x) => x.mode))];
  const tools = [...new Set(s.map((x) => x.tool))];
  return [
    '## 2. Proxy overhead (sequential calls, one client)',
    '',
    `Repository: a bare clone of this repository (${o.repository.files} files, ${o.repository.commits} commits); get_file reads \`${o.repository.file}\` (${o.repository.file_bytes} B), get_commit a ${o.repository.commit_files}-file commit. Modes are run round-robin (a, b, c, a, b, c…) so that load swings hit them alike; each tool stops after its time budget (${o.calls_per_series.budget_ms_per_series} ms × modes, at most ${o.calls_per_series.requested} rounds): \`n\` is the count actually made. "memo upstream" modes put the same local adapter behind an in-memory memo (each distinct read answered from memory after its first call), which takes git spawns out of the comparison and leaves the MCP/HTTP path with and without the policy layer. Chart: [latency.svg](latency.svg).`,
    '',
    'Median / p99 in ms:',
    '',
    table(
      ['tool', ...modes],
      tools.map((t) => [
        t,
        ...modes.map((m) => {
          const x = s.find((y) => y.tool === t && y.mode === m)?.summary;
          return x ? `${x.median} / ${x.p99} (n=${x.n})` : '';
        }),
      ]),
    ),
    '',
    table(
      [
        'tool',
        'policy layer (a)−(b), memo upstream, median ms',
        '(a)−(b) over git, median ms',
        'invoke() − adapter in-process, ms',
        'target < 0.3 ms (memo figure)',
        'HTTP ÷ raw git',
        'target ≤ 2×',
        'git command',
      ],
      (o.per_tool as R[]).map((p) => [
        p.tool,
        p.policy_layer_memo_upstream_ms,
        p.policy_layer_ms,
        p.policy_layer_in_process_ms,
        yes(p.policy_target_met),
        p.http_vs_git_ratio,
        yes(p.git_target_met),
        `\`${p.git_command}\``,
      ]),
    ),
  ].join('\n');
}

/** Section 3's idle-session rows: per session, held as SDK clients hold it and bare (results before 2026-12-06: one row). */
function idleRows(i: R): unknown[][] {
  if (!i.held)
    return [[`RSS per idle session (${i.count} sessions), KB`, i.rss_per_session_kb, '< 100 KB', yes(i.met)]];
  const h = i.held.per_session_kb;
  const b = i.bare.per_session_kb;
  const counts = i.held.steps
    .map((x: R) => x.sessions)
    .filter((n: number) => n > 0)
    .join('/');
  return [
    [
      `RSS per idle session holding its GET stream, slope over ${counts} sessions, after ${i.held.settle_s} s idle (no forced GC), KB`,
      h.rss_idle,
      `≤ ${i.target_kb} KB`,
      yes(h.rss_idle <= i.target_kb),
    ],
    ['  same, after a forced GC, KB', h.rss_gc, `≤ ${i.target_kb} KB`, yes(h.rss_gc <= i.target_kb)],
    ['  V8 heap used per session after GC, KB', h.heap_gc, '', ''],
    [
      'RSS per bare idle session (no stream, shared sockets), idle / after GC, KB',
      `${b.rss_idle} / ${b.rss_gc}`,
      '',
      '',
    ],
    ['  V8 heap used per bare session after GC, KB', b.heap_gc, '', ''],
  ];
}

function scale(sc: R): string {
  const r = sc.rss_kb;
  return [
    '## 3. Scale (real server process)',
    '',
    `${sc.clients} concurrent SDK clients over ${sc.perimeters} perimeters × ${sc.branches} branches for ${sc.seconds} s against \`node bin/git-blinder serve\` (build: ${sc.build}). Mix (weights): ${Object.entries(
      sc.mix,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}. Perimeters set \`limits\` high so the rate limiter does not shape the load. Clients run in the bench process on the same cores as the server.`,
    '',
    table(
      ['measure', 'figure', 'target', 'status'],
      [
        ['calls', sc.calls, '', ''],
        ['throughput, calls/s', sc.throughput_per_s, '', ''],
        ['latency p50 / p99 ms', `${sc.latency_ms.median} / ${sc.latency_ms.p99}`, '', ''],
        ['errors', sc.errors, '0', yes(sc.targets_met.errors)],
        ['cross-session leaks (every answer checked)', sc.leaks, '0', yes(sc.targets_met.leaks)],
        ['RSS at start, MB', (r.start / 1024).toFixed(1), '', ''],
        ['RSS peak (VmHWM), MB', (r.peak_vmhwm / 1024).toFixed(1), '', ''],
        ['RSS after clients left and sessions were reaped, MB', (r.after_reap / 1024).toFixed(1), '', ''],
        ['sessions reaped after the clients left, ms', sc.sessions_reaped_in_ms, '', 'half DELETEd, half abandoned'],
        ...idleRows(sc.idle_sessions),
      ],
    ),
    ...(sc.idle_sessions.held ? ['', `Idle sessions: ${sc.idle_sessions.method}.`] : []),
    '',
    'Latency by tool (median / p99 ms): ' +
      Object.entries(sc.latency_by_tool_ms)
        .map(([k, v]: [string, any]) => `${k} ${v.median} / ${v.p99} (n=${v.n})`)
        .join('; ') +
      '.',
    sc.error_samples.length ? `\nError samples: ${sc.error_samples.map((e: string) => `\`${e}\``).join('; ')}` : '',
    sc.leak_samples.length ? `\nLeak samples: ${sc.leak_samples.map((e: string) => `\`${e}\``).join('; ')}` : '',
  ].join('\n');
}

function upstream(u: R): string {
  return [
    '## 4. Upstream cost (GitHub emulator request log)',
    '',
    `Repository: ${u.repository.total_files} files (a large tree of ${u.repository.big_tree_files}). Perimeters: \`one\` reads \`a/**\`, \`three\` reads \`a/**\`, \`b/**\`, \`c/**\`, \`all\` reads \`**\`. Each column is one MCP session making the calls in order; "repeated" is a second session on the same process (after the first session's push moved the branch). Cache off = ${u.cache_off_means}.`,
    '',
    table(
      ['agent call', 'cache on, cold', 'cache on, repeated', 'cache off, cold', 'cache off, repeated'],
      (u.table as R[]).map((t) => [
        t.scenario,
        t.cache_on_cold,
        t.cache_on_repeated,
        t.cache_off_cold,
        t.cache_off_repeated,
      ]),
    ),
    '',
    `Repeated session total: ${u.repeated_session_total.cache_on} requests with the cache vs ${u.repeated_session_total.cache_off} without (cold with cache: ${u.repeated_session_total.cache_on_cold}). Target "a warm cache halves the requests of a repeated session": ${yes(u.warm_halves_requests)}.`,
    '',
    'Requests by route, cache on, cold session, list_commits (1 prefix, 30): ' +
      Object.entries(u.details.cache_on.cold['list_commits, 1 prefix, 30'].routes)
        .map(([k, v]) => `\`${k}\` ×${v}`)
        .join(', ') +
      '.',
    '',
    'Same, repeated session: ' +
      Object.entries(u.details.cache_on.repeated['list_commits, 1 prefix, 30'].routes)
        .map(([k, v]) => `\`${k}\` ×${v}`)
        .join(', ') +
      '.',
    u.pull_requests ? pullCost(u) : '',
  ].join('\n');
}

function pullCost(u: R): string {
  const p = u.pull_requests;
  const routes = (name: string) =>
    Object.entries(u.details.cache_on.cold[name]?.routes ?? {})
      .map(([k, v]) => `\`${k}\` ×${v}`)
      .join(', ');
  return [
    '',
    `### Pull-request tools against \`upstream_requests_per_call\` (default ${p.upstream_requests_per_call})`,
    '',
    `${p.seeded}. Same sessions and columns as above (the PR calls come after the others in each session).`,
    '',
    table(
      [
        'agent call',
        'cache on, cold',
        'cache on, repeated',
        'cache off, cold',
        'cache off, repeated',
        `within ${p.upstream_requests_per_call}`,
      ],
      (p.table as R[]).map((t) => [
        t.scenario,
        t.cache_on_cold,
        t.cache_on_repeated,
        t.cache_off_cold,
        t.cache_off_repeated,
        t.errors ? `no: ${t.errors.join('; ')}` : yes(t.within_limit),
      ]),
    ),
    '',
    `Every PR tool within the default per-call limit: ${yes(p.all_within_limit)}. test/issues/22-pr-request-cost.test.ts holds the cold counts on the same PR, so a change that multiplies a tool's requests fails there.`,
    '',
    'Requests by route, cache on, cold session: ' +
      (p.table as R[]).map((t) => `${t.scenario}: ${routes(t.scenario)}`).join('; ') +
      '.',
  ].join('\n');
}

function context(c: R): string {
  return [
    '## 5. Context cost',
    '',
    `Perimeter reads ${c.perimeter.read.map((g: string) => `\`${g}\``).join(', ')}, writes \`src/**\` (${c.tools_list.tools} agent tools), on the clone of this repository. ${c.note}.`,
    '',
    `tools/list: ${c.tools_list.tools} tools, **${c.tools_list.bytes} bytes** (~${c.tools_list.tokens_est} tokens); the ${c.tools_list.budgeted?.tools ?? '?'} read, write and edit tools ${c.tools_list.budgeted?.bytes ?? 'n/a'} bytes, target ≤ 9 KB (the budget test/issues/11 holds): ${yes(c.tools_list.met)}. Per tool: ${Object.entries(
      c.tools_list.per_tool ?? {},
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    table(
      [
        'answer',
        'text bytes (~tokens)',
        'whole result bytes',
        'raw git bytes',
        'text ÷ git',
        'target ≤ git',
        'raw git',
      ],
      (c.answers as R[]).map((a) => [
        a.answer,
        `${a.text_bytes} (~${a.text_tokens_est})`,
        a.result_bytes,
        a.raw_git_bytes,
        a.text_vs_git,
        yes(a.met),
        `\`${a.raw_git}\``,
      ]),
    ),
  ].join('\n');
}

function large(l: R): string {
  const m = l.memory_mb;
  return [
    '## 6. Large repository',
    '',
    `Generated with \`git fast-import\`: ${l.repository.files.toLocaleString('en')} files, ${l.repository.commits.toLocaleString('en')} commits, pack ${l.repository.pack_mb} MB (${l.repository.built_now ? `built in this run in ${l.repository.build_ms} ms` : 'from bench/.cache'}). ${l.runs_per_call} calls each, in-process server, over HTTP.`,
    '',
    table(
      ['call', 'median ms (min–max)', 'answer', 'raw git ms', 'ratio'],
      [
        [
          'get_tree recursive (read `**`)',
          `${l.get_tree_recursive.ms.median} (${l.get_tree_recursive.ms.min}–${l.get_tree_recursive.ms.max})`,
          `${l.get_tree_recursive.entries} entries, ${l.get_tree_recursive.answer_bytes} B`,
          `${l.raw_git_ms.ls_tree_r} (ls-tree -r -l)`,
          l.get_tree_recursive.vs_git,
        ],
        [
          `list_commits 30, read \`${l.list_commits_deep_glob.glob}\``,
          `${l.list_commits_deep_glob.ms.median} (${l.list_commits_deep_glob.ms.min}–${l.list_commits_deep_glob.ms.max})`,
          `${l.list_commits_deep_glob.listed} commits`,
          `${l.raw_git_ms.log_30_deep_glob} (log -30 --name-only -- :(glob)…)`,
          l.list_commits_deep_glob.vs_git,
        ],
        [
          `get_commit, ${l.repository.big_commit_files}-file commit`,
          `${l.get_commit_big.ms.median} (${l.get_commit_big.ms.min}–${l.get_commit_big.ms.max})`,
          `${l.get_commit_big.files} files, ${l.get_commit_big.answer_bytes} B`,
          `${l.raw_git_ms.show_big_commit} (show)`,
          l.get_commit_big.vs_git,
        ],
      ],
    ),
    '',
    `Memory (${m.note}): RSS ${m.rss_before} MB before → ${m.rss_after_calls} MB after the calls (process peak ${m.max_rss_process} MB); heap ${m.heap_before} MB → ${m.heap_after_calls} MB, ${m.heap_after_gc} MB after GC.`,
  ].join('\n');
}

/** The whole report. */
export function renderReport(
  machine: Machine,
  results: R,
  mode: string,
  loadEnd: number[],
  durationS: number,
  notes: string,
): string {
  const s = results.sections ?? {};
  // Empty when a merged results.json predates the field: the first run's end load was not kept.
  const endLoad = loadEnd.length ? loadEnd.join(' / ') : 'not recorded';
  const failed = Object.entries(results.failures ?? {}).map(([k, v]) => `- section ${k} failed: ${String(v)}`);
  return [
    '# git-blinder benchmark report',
    '',
    `Generated by \`npm run bench${mode === 'smoke' ? ':smoke' : ''}\` (${mode} sizes) on ${machine.started_at}, ${Math.round(durationS)} s, on commit \`${results.commit ?? 'unknown'}\`. Load average (1/5/15 min) ${machine.loadavg_start.join(' / ')} at start, ${endLoad} at end, on ${machine.cores} cores.`,
    '',
    ...(results.rerun && Object.keys(results.rerun).length
      ? [
          `Re-run afterwards with \`--only=… --merge\` (the other sections are from the run above): ${Object.entries(
            results.rerun,
          )
            .map(([k, v]) => `${k} (${String(v)})`)
            .join('; ')}.`,
          '',
        ]
      : []),
    '## Targets (issues 11, 15 and 24)',
    '',
    'Every figure below is computed from this run\'s results; "n/a" means the row was not measured in this run (the reason is in "now").',
    '',
    targetsTable(s),
    '',
    '## Machine',
    '',
    table(
      ['cpu', 'cores', 'memory', 'os', 'node', 'git', 'load average at start (1/5/15 min)', 'at end'],
      [
        [
          machine.cpu,
          machine.cores,
          `${machine.memory_gb} GB (${machine.free_memory_gb} GB free)`,
          machine.os,
          machine.node,
          machine.git,
          machine.loadavg_start.join(' / '),
          endLoad,
        ],
      ],
    ),
    '',
    `**The figures are noisy.** This machine is shared: other jobs (test suites, builds) ran during the benchmark, with a load average around ${machine.loadavg_start[0]} on ${machine.cores} cores. Absolute times are several times what an idle machine gives; ratios measured round-robin in the same run (section 2) are the more trustworthy figures. Nothing was tuned to a target.`,
    '',
    '## Method',
    '',
    '- Everything runs in one `tsx bench/run.ts` invocation; sections run one after the other on the same machine.',
    '- Sections 1, 2, 5, 6: git-blinder in-process (`createApp` via `test/support/server.ts`, port 0, no rate limiter, audit records kept in memory) with real SDK clients over loopback HTTP (2025-era sessions).',
    '- Section 2 baseline (b) is `bench/minimal-server.ts`: `McpServer` + `NodeStreamableHTTPServerTransport` + `createMcpExpressApp`, same tool names and input schemas, calling the same adapter with no policy, no output schema and no audit. Raw git is timed by spawning `git` (execFile).',
    '- Section 3 starts the built server as a child process (`node bin/git-blinder serve --port 0 --open-perimeters --config … --session-idle …`) and reads its RSS from `/proc/<pid>/status` (VmRSS, VmHWM). The idle-session rows come from servers of their own (`bench/idle-rss.ts`): sessions opened by raw HTTP in steps, VmRSS read after an idle wait and again after a forced GC (the server is started with `--expose-gc` through the bench-only preload `bench/gc-on-signal.mjs`, which collects on SIGUSR2), per session as the slope over the steps.',
    '- "Sessions" runs in-process with raw HTTP requests and forced GC; "Reads throughput" and "cyanheads" start every server as its own process (git-blinder from `dist/`, the minimal server through tsx, cyanheads from its npm package).',
    '- "Overhead above the protocol floor" (issue 24): one SDK client calls `bin/git-blinder serve` and `bench/floor-server.ts` (processes of their own) and the raw git command is spawned, round-robin; git-blinder − floor is the median of paired per-round differences.',
    '- "Capacity" (issue 24): `bin/git-blinder serve` and `bench/floor-server.ts` (the SDK\'s own server answering git-blinder\'s texts, precomputed) as processes of their own, loaded by `bench/capacity-driver.ts` in a third process (raw HTTP JSON-RPC over keep-alive; 2025 sessions and 2026-07-28 requests). "Writes" times `push_files` over HTTP against the same commit made with git plumbing.',
    "- Section 4 counts requests in the GitHub emulator's request log around each agent call.",
    '- Latency percentiles are nearest-rank over the samples; `n` is given with each figure.',
    '',
    ...(failed.length ? ['## Failed sections', '', ...failed, ''] : []),
    s.core ? core(s.core) : '',
    '',
    s.overhead ? overhead(s.overhead) : '',
    '',
    s.scale ? scale(s.scale) : '',
    '',
    s.sessions ? sessionsSection(s.sessions) : '',
    '',
    s.throughput ? throughputSection(s.throughput) : '',
    '',
    s.capacity ? capacitySection(s.capacity) : '',
    '',
    s.floor_overhead ? floorOverheadSection(s.floor_overhead) : '',
    '',
    s.writes ? writesSection(s.writes) : '',
    '',
    s.upstream_cost ? upstream(s.upstream_cost) : '',
    '',
    s.context ? context(s.context) : '',
    '',
    s.large_repo ? large(s.large_repo) : '',
    '',
    s.reads_vs_git ? readsVsGitSection(s.reads_vs_git) : '',
    '',
    s.cyanheads ? cyanheadsSection(s.cyanheads) : '',
    '',
    s.cluster ? clusterSection(s.cluster) : '',
    '',
    notes,
    '',
  ].join('\n');
}
