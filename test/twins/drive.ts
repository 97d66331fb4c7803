// The history driver: serves both twins of a plan through the real server, connects a real MCP client to each, and
// calls every tool the bindings list with the same arguments, asserting the answers equal once commit ids (and the
// tokens that seal them) are mapped to the visible thing they stand for. The initialize instructions and tools/list
// are answers too.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitIn } from '../support/gitdir.js';
import type { Agent } from '../support/server.js';
import { drawCall, resolveArgs, type BindingName, type Call, type Placeholder } from './args.js';
import { canonical, diffAnswers, IdMap, type Answer } from './equal.js';
import { HIDDEN_BRANCH, TWIN_BRANCHES, TWIN_READ, TWIN_WRITE, type Plan, type TwinHidden } from './generate.js';
import { knownFor, type KnownEntry } from './known.js';
import { advance, lateEpoch, lateHidden, lateVisible } from './advance.js';
import { materialise, visibleTrees, type TwinRepo } from './materialise.js';
import { acceptedWhole, withoutAccepted } from './residuals.js';
import { seedLocalPulls, seedPulls } from './pulls.js';
import { Rng } from './rng.js';
import type { TwinServers, TwinSide } from './servers.js';

/** One difference the driver saw. */
export interface Difference {
  readonly kind: TwinServers['kind'];
  readonly plan: Plan;
  /** Index of the call in the run (-1 for initialize / tools/list). */
  readonly step: number;
  readonly call: Call | { binding: BindingName; tool: 'initialize' | 'tools/list'; args: Record<string, never> };
  readonly argsA: unknown;
  readonly argsB: unknown;
  readonly diff: string;
  /** Both answers, ids mapped (for the report). */
  readonly answers: readonly [string, string];
  /** The KNOWN entry that accounts for it, if any. */
  readonly known: KnownEntry | undefined;
}

/** What one plan's run did. */
export interface RunResult {
  readonly plan: Plan;
  readonly calls: number;
  readonly differences: readonly Difference[];
  /** Tools called at least once (by name). */
  readonly called: ReadonlySet<string>;
  /** Milliseconds spent per tool (both twins in parallel), for sizing runs. */
  readonly timings: ReadonlyMap<string, number>;
}

/** Options of one run. */
export interface RunOptions {
  /** Only make these calls (by index in the run's draw); the others are drawn but not sent (the shrinker's replay). */
  readonly only?: ReadonlySet<number>;
  /** Send these calls instead of drawing `plan.calls` (targeted probes, the canary). */
  readonly explicit?: readonly Call[];
  /** The known differences (default KNOWN; the CLI's --no-known passes none, to see everything). */
  readonly known?: readonly KnownEntry[];
  /** Stop at the first difference no KNOWN entry accounts for (default true). */
  readonly stopAtUnknown?: boolean;
}

let perimeterCounter = 0;

/** What the Deep Research binding grants: the two aliases beside the tools they stand for. */
const DR_TOOLS = ['search', 'fetch', 'search_code', 'get_file'] as const;

/** Calls that may write a commit or make a proposal: each takes the next push slot (commit label, proposal id). */
const WRITES = new Set(['push_files', 'edit_file', 'edit_files']);

/** The pseudo-call that moves both twins' history on (see the loop); at most MAX_ADVANCES per run. */
export const ADVANCE = 'advance';
const MAX_ADVANCES = 3;

// Dates the server stamps (a push's commit) differ by when each twin's call ran; plan dates are 2019/2020 and the
// proposal clock is 2030, so any other year is the wall clock.
const NOW_DATE = /\b(?!2019|2020|2030)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g;
const normalise = (a: Answer): Answer => {
  const s = JSON.stringify(a).replace(NOW_DATE, '<now>');
  return JSON.parse(s) as Answer;
};

const asAnswer = (r: { isError?: boolean; text: string; structured: unknown }): Answer => ({
  isError: r.isError ?? false,
  text: r.text,
  structured: r.structured ?? null,
});

async function call(agent: Agent, tool: string, args: unknown): Promise<Answer> {
  try {
    return asAnswer(await agent.call(tool, args as Record<string, unknown>));
  } catch (err) {
    // A protocol-level failure is an answer too (and must be the same on both twins).
    return { isError: true, text: `protocol error: ${(err as Error).message}`, structured: null };
  }
}

/** A raw initialize POST to `path`: status and body are the answer (a refused binding never becomes a session). */
async function initializeAt(url: string, path: string): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'twin', version: '1' } },
    }),
  });
  const body = await res.text();
  if (res.ok)
    await fetch(`${url}${path}`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': res.headers.get('mcp-session-id') ?? '' },
    }).catch(() => undefined);
  return { isError: !res.ok, text: `${res.status} ${res.ok ? '(session)' : body}`, structured: null };
}

async function head(dir: string, branch: string): Promise<string | undefined> {
  return (
    (await gitIn(dir, ['rev-parse', '-q', '--verify', `refs/heads/${branch}`]).catch(() => '')).trim() || undefined
  );
}

/** Twin-specific state the placeholders resolve against. */
interface TwinState {
  readonly repo: TwinRepo;
  /** How this twin's perimeters name the repository (its directory locally). */
  readonly repoName: string;
  readonly hidden: TwinHidden;
  readonly side: TwinSide;
  readonly ids: IdMap;
  readonly agents: Map<BindingName, Agent>;
  readonly cursors: string[];
  readonly proposals: string[];
  readonly leases: string[];
}

function resolver(t: TwinState, seal: TwinServers['seal'], drPerimeter: string): (p: Placeholder) => string {
  return (p) => {
    if ('$label' in p) return t.repo.labels.get(p.$label) ?? p.$label;
    if ('$cursor' in p) return t.cursors[p.$cursor] ?? 'no-cursor';
    if ('$fid' in p) {
      // The id names the repository (each twin's own directory locally): paired by the path it seals.
      const id = seal.sealId(
        JSON.stringify({ v: 1, who: `agent:${drPerimeter}`, repo: t.repoName, branch: 'main', path: p.$fid }),
      );
      t.ids.addToken(id, `fid:${p.$fid}`);
      return id;
    }
    if ('$lease' in p) return t.leases[p.$lease] ?? 'no-lease';
    return t.proposals[p.$proposal] ?? 'no-proposal';
  };
}

/** Pairs the result ids of a `search` answer by the path they stand for (they seal each twin's repository name). */
function pairResultIds(t: TwinState, a: Answer): void {
  const results = (a.structured as { results?: { id?: unknown; title?: unknown }[] } | null)?.results;
  for (const r of results ?? [])
    if (typeof r.id === 'string' && typeof r.title === 'string' && t.ids.tokenLabel(r.id) === undefined)
      t.ids.addToken(r.id, `fid:${r.title}`);
}

const field = (a: Answer, key: string): string | undefined => {
  const s = a.structured as Record<string, unknown> | null;
  const v = s && typeof s === 'object' ? s[key] : undefined;
  return typeof v === 'string' ? v : undefined;
};

/**
 * Other agents at work on each twin before the driven agents connect: each twin's rival proposes and leases on its own
 * hidden paths (outside the driven perimeters' read and write), and both rivals do the same on one readable path. What
 * `activity`, a lease refusal or a count says of them must not tell the twins apart.
 */
async function rivals(
  side: TwinSide,
  id: string,
  spec: { repo: string; branches: string[]; limits: Record<string, number> },
  twin: 'a' | 'b',
): Promise<void> {
  const all = { ...spec, read: ['**'], write: ['**'] };
  await side.srv.perimeter({ id: `${id}-rv`, ...all });
  await side.srv.perimeter({ id: `${id}-rva`, ...all, approval: { push_files: 'required' } });
  const rv = await side.srv.connect(`/mcp/${id}-rv`);
  const rva = await side.srv.connect(`/mcp/${id}-rva`);
  const hiddenFile = twin === 'a' ? 'secret/rival/plan.txt' : 'lib/rival/plan.ts';
  for (const path of [hiddenFile, 'docs/rival.md']) {
    const r = await rva.call('push_files', { message: 'rival\n', files: [{ path, content: 'rival\n' }] });
    if (r.isError) throw new Error(`rival proposal refused: ${r.text}`);
  }
  const hidden = twin === 'a' ? ['secret/rival/**', 'secret/key.txt'] : ['lib/rival/**', 'lib/internal.ts'];
  for (const args of [
    { paths: hidden, ttl: 3600 },
    { paths: ['docs/rival.md'], ttl: 3600 },
  ]) {
    const r = await rv.call('lease_acquire', args);
    if (r.isError) throw new Error(`rival lease refused: ${r.text}`);
  }
  await rv.close();
  await rva.close();
}

/** A readable path of the plan (review comments and annotations anchor to it). */
function firstVisible(plan: Plan): string {
  for (const tree of visibleTrees(plan).values()) for (const p of tree.keys()) return p;
  return 'app/none.ts';
}

/** Runs one plan on `servers`: builds the twins, compares instructions, tools/list and `plan.calls` calls. */
export async function runPlan(servers: TwinServers, plan: Plan, opts: RunOptions = {}): Promise<RunResult> {
  const root = await mkdtemp(join(tmpdir(), 'gb-twins-'));
  const differences: Difference[] = [];
  const called = new Set<string>();
  const timings = new Map<string, number>();
  const stopAtUnknown = opts.stopAtUnknown ?? true;
  const twins: TwinState[] = [];
  const t0 = Date.now();
  try {
    const [ra, rb] = await Promise.all([materialise(plan, 'a', root), materialise(plan, 'b', root)]);
    const id = `tw-${plan.seed % 100000}-${plan.run}-${++perimeterCounter}`;
    const branches = plan.featureFrom ? [...TWIN_BRANCHES] : ['main'];
    const limits = {
      max_answer_bytes: plan.answerCap,
      calls_per_minute: 1_000_000,
      commits_per_hour: 1_000_000,
      upstream_requests_per_call: 100_000,
      upstream_requests_per_hour: 1_000_000,
    };
    for (const [repo, side] of [
      [ra, servers.a],
      [rb, servers.b],
    ] as const) {
      const name = side.repoFor(id, repo.dir);
      const spec = { repo: name, read: [...TWIN_READ], write: [...TWIN_WRITE], branches, limits };
      // The main perimeter opens pull requests into main (issue 22): its bindings list the PR tools.
      await side.srv.perimeter({ id, ...spec, pulls: { base: 'main' } });
      await side.srv.perimeter({ id: `${id}-ap`, ...spec, approval: { push_files: 'required' } });
      await side.srv.perimeter({ id: `${id}-dr`, ...spec, branches: ['main'], tools: [...DR_TOOLS] });
      if (side.pulls) await seedPulls(side.pulls, name, plan.featureFrom !== undefined, firstVisible(plan));
      else if (side.srv.proposals) await seedLocalPulls(side.srv.proposals, id, name, plan.featureFrom !== undefined);
      const ids = new IdMap();
      for (const [label, sha] of repo.labels) ids.add(sha, label);
      // The repository's name is the operator's, not hidden content; locally it is each twin's directory.
      if (name.startsWith('/')) ids.addToken(name, 'repo');
      const agents = new Map<BindingName, Agent>();
      agents.set('main', await side.srv.connect(`/mcp/${id}`));
      agents.set('approval', await side.srv.connect(`/mcp/${id}-ap`));
      agents.set('dr', await side.srv.connect(`/mcp/${id}-dr`));
      if (plan.featureFrom) agents.set('feature', await side.srv.connect(`/mcp/${id}/feature`));
      twins.push({
        repo,
        repoName: name,
        hidden: plan[twins.length === 0 ? 'a' : 'b'],
        side,
        ids,
        agents,
        cursors: [],
        proposals: [],
        leases: [],
      });
      await rivals(side, id, spec, twins.length === 1 ? 'a' : 'b');
    }
    const [A, B] = twins as [TwinState, TwinState];
    timings.set('(setup)', Date.now() - t0);

    const record = (d: Omit<Difference, 'kind' | 'plan' | 'known'>): boolean => {
      const full = { ...d, kind: servers.kind, plan, known: undefined };
      const known = knownFor(full, opts.known);
      differences.push({ ...full, known });
      return known === undefined;
    };

    // A binding on the hidden branch (and on one that exists nowhere) answers as a branch that does not exist.
    for (const branch of [HIDDEN_BRANCH, 'nowhere']) {
      const [xa, xb] = await Promise.all(twins.map((t) => initializeAt(t.side.srv.url, `/mcp/${id}/${branch}`)));
      const dx = diffAnswers(xa as Answer, xb as Answer, A.ids, B.ids);
      if (
        dx &&
        record({
          step: -1,
          call: { binding: 'main', tool: 'initialize', args: {} },
          argsA: { branch },
          argsB: { branch },
          diff: dx,
          answers: [canonical(xa as Answer, A.ids), canonical(xb as Answer, B.ids)],
        }) &&
        stopAtUnknown
      )
        return { plan, calls: 0, differences, called, timings };
    }

    // The session itself: instructions and the tool list, per binding.
    const tools = new Map<BindingName, string[]>();
    for (const binding of A.agents.keys()) {
      const ca = A.agents.get(binding);
      const cb = B.agents.get(binding);
      if (!ca || !cb) continue;
      const ia: Answer = { isError: false, text: ca.client.getInstructions() ?? '', structured: null };
      const ib: Answer = { isError: false, text: cb.client.getInstructions() ?? '', structured: null };
      const di = diffAnswers(ia, ib, A.ids, B.ids);
      if (
        di &&
        record({
          step: -1,
          call: { binding, tool: 'initialize', args: {} },
          argsA: {},
          argsB: {},
          diff: di,
          answers: [canonical(ia, A.ids), canonical(ib, B.ids)],
        }) &&
        stopAtUnknown
      )
        return { plan, calls: 0, differences, called, timings };
      const [la, lb] = await Promise.all([ca.client.listTools(), cb.client.listTools()]);
      const dl = diffAnswers(
        { isError: false, text: '', structured: la },
        { isError: false, text: '', structured: lb },
        A.ids,
        B.ids,
      );
      if (
        dl &&
        record({
          step: -1,
          call: { binding, tool: 'tools/list', args: {} },
          argsA: {},
          argsB: {},
          diff: dl,
          answers: ['', ''],
        }) &&
        stopAtUnknown
      )
        return { plan, calls: 0, differences, called, timings };
      tools.set(
        binding,
        la.tools.map((t) => t.name),
      );
    }

    const trees = visibleTrees(plan);
    const visiblePaths = [...new Set([...trees.values()].flatMap((t) => [...t.keys()]))];
    const visibleDirs = [
      ...new Set(
        visiblePaths.flatMap((p) =>
          p
            .split('/')
            .slice(0, -1)
            .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
        ),
      ),
    ];
    const hiddenIds = [...ra.hiddenOnly, ...rb.hiddenOnly, ...ra.hiddenBranch, ...rb.hiddenBranch];
    const labels = [...ra.labels.keys()];
    const rng = new Rng(plan.callSeed);
    const bindings = [...tools.keys()];
    // Counters of what was *drawn* (not answered), so a replay of a few steps draws the same calls.
    let pushes = 0;
    let leasesDrawn = 0;
    let cursorsDrawn = 0;
    let advances = 0;
    let made = 0;
    const total = opts.explicit?.length ?? plan.calls;
    for (let step = 0; step < total; step++) {
      const binding = rng.pick(bindings);
      const late = rng.chance(0.08) && advances < MAX_ADVANCES;
      const drawn = drawCall(rng, binding, tools.get(binding) ?? [], {
        visiblePaths,
        visibleDirs,
        labels,
        hiddenIds,
        cursors: cursorsDrawn,
        proposals: pushes,
        pushes,
        leases: leasesDrawn,
      });
      const c: Call = opts.explicit?.[step] ?? (late ? { binding: 'main', tool: ADVANCE, args: {} } : drawn);
      if (c.tool === ADVANCE) {
        // History moves on while the agent holds cursors: a visible commit (with each twin's hidden changes in it),
        // then, where the twin has them, a hidden-only one. Not an agent call, nothing to compare.
        const n = ++advances;
        if (opts.only && !opts.only.has(step)) continue;
        for (const t of twins) {
          const id = await advance(
            t.repo.dir,
            'main',
            { ...lateVisible(plan, n), ...lateHidden(t.hidden, n) },
            { author: 'Late Author <late@example.test>', epoch: lateEpoch(n), message: `late ${n}\n` },
          );
          t.ids.add(id, `late${n}`);
          if (t.hidden.options.includes('hidden-commits'))
            await advance(
              t.repo.dir,
              'main',
              { [`secret/late-log-${n}.txt`]: `${n}\n` },
              {
                author: 'Hidden Person <hidden@example.test>',
                epoch: lateEpoch(n) + 60,
                message: `hidden late ${n}\n`,
              },
            );
        }
        continue;
      }
      const slot =
        c.tool === 'changes_since'
          ? cursorsDrawn++
          : WRITES.has(c.tool)
            ? pushes++
            : c.tool === 'lease_acquire'
              ? leasesDrawn++
              : -1;
      if (opts.only && !opts.only.has(step)) continue;
      const argsA = resolveArgs(c.args, resolver(A, servers.seal, `${id}-dr`));
      const argsB = resolveArgs(c.args, resolver(B, servers.seal, `${id}-dr`));
      const agentA = A.agents.get(c.binding);
      const agentB = B.agents.get(c.binding);
      if (!agentA || !agentB) continue;
      const branch = c.binding === 'feature' ? 'feature' : 'main';
      const before = WRITES.has(c.tool) ? await Promise.all(twins.map((t) => head(t.repo.dir, branch))) : [];
      const tc = Date.now();
      const [raw, rbw] = await Promise.all([call(agentA, c.tool, argsA), call(agentB, c.tool, argsB)]);
      timings.set(c.tool, (timings.get(c.tool) ?? 0) + Date.now() - tc);
      made++;
      called.add(c.tool);
      const aa = withoutAccepted(c.tool, normalise(raw));
      const ab = withoutAccepted(c.tool, normalise(rbw));
      if (c.tool === 'search') {
        pairResultIds(A, aa);
        pairResultIds(B, ab);
      }
      // Pair what each twin was handed: cursors and proposal ids (sealed or random), new commits by push order.
      for (const key of ['cursor', 'proposal_id', 'hash', 'lease_id']) {
        const va = field(aa, key);
        const vb = field(ab, key);
        if (
          va !== undefined &&
          vb !== undefined &&
          va !== vb &&
          A.ids.tokenLabel(va) === undefined &&
          B.ids.tokenLabel(vb) === undefined
        ) {
          A.ids.addToken(va, `${key}@${step}`);
          B.ids.addToken(vb, `${key}@${step}`);
        }
        if (key === 'cursor' && c.tool === 'changes_since') {
          A.cursors[slot] = va ?? 'no-cursor';
          B.cursors[slot] = vb ?? 'no-cursor';
        }
        if (key === 'lease_id' && c.tool === 'lease_acquire') {
          A.leases[slot] = va ?? 'no-lease';
          B.leases[slot] = vb ?? 'no-lease';
        }
        if (key === 'proposal_id' && WRITES.has(c.tool)) {
          A.proposals[slot] = va ?? 'no-proposal';
          B.proposals[slot] = vb ?? 'no-proposal';
        }
      }
      if (WRITES.has(c.tool)) {
        for (const [i, t] of twins.entries()) {
          const h = await head(t.repo.dir, branch);
          if (h && h !== before[i]) t.ids.add(h, `push${slot + 1}`);
        }
      }
      const d = acceptedWhole({ tool: c.tool, args: argsA as Record<string, unknown> })
        ? undefined
        : diffAnswers(aa, ab, A.ids, B.ids);
      if (d) {
        const unknown = record({
          step,
          call: c,
          argsA,
          argsB,
          diff: d,
          answers: [canonical(aa, A.ids), canonical(ab, B.ids)],
        });
        // A write that answered differently leaves the twins apart: later answers would only repeat it.
        if (WRITES.has(c.tool)) break;
        if (unknown && stopAtUnknown) break;
      }
    }
    return { plan, calls: made, differences, called, timings };
  } finally {
    await Promise.all(twins.flatMap((t) => [...t.agents.values()].map((a) => a.close().catch(() => undefined))));
    await rm(root, { recursive: true, force: true });
  }
}
