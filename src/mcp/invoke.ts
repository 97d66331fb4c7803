import {
  activityKeep,
  agentAuthor,
  ANONYMOUS_AGENT,
  answerCap,
  assertNever,
  decide,
  leaseRefusal,
  OPERATOR_AUTHOR,
  overlapsFor,
  PRESENCE_RECENT_MS,
  type AgentBinding,
  type Binding,
  type Caller,
  type Target,
} from '../core/index.js';
import type { AnyTool, CursorSeal, Log, Proposable, ToolContext } from '../registry/index.js';
import type { ProposalService } from '../registry/proposals.js';
import { pendingOn } from '../registry/presence.js';
import type { Counters, PresenceStore, StoreHealth } from '../state/types.js';
import type { RequestBudget, Upstream, UpstreamError, UpstreamFor } from '../upstream/types.js';
import type { Workspace } from '../workspace/types.js';
import type { WorkTreeWriters } from '../workspace/writes.js';
import type { AnswerCache } from './answer-cache.js';
import { DEFAULT_LIMITS, type Gate, type RateLimiter } from './limits.js';
import { agentMessage } from './messages.js';
import { auditOf, type CallOutcome } from './outcome.js';
import { frame, freshFence } from './result.js';

/** One tool call as the operator's audit sees it (paths in clear here; the ledger decides how to store them). */
export interface CallRecord {
  readonly surface: 'agent' | 'root';
  readonly perimeter?: string;
  readonly branch?: string;
  readonly tool: string;
  /** The agent id of the call's key (agent surface only). */
  readonly agent?: string;
  readonly client?: string;
  readonly verdict: 'allow' | 'deny' | 'invisible' | 'error';
  readonly result: string;
  readonly bytes: number;
  readonly durationMs: number;
  readonly commit?: string;
  readonly paths: readonly string[];
}

export interface InvokeDeps {
  readonly upstreamFor: UpstreamFor;
  readonly log: Log;
  /**
   * Called once per call after the answer is built; must not throw. The answer waits for a returned promise (the
   * ledger's back-pressure: the call's entry holds its place in the queue before the agent gets its answer).
   */
  readonly record?: (r: CallRecord) => unknown;
  /** Per-perimeter call rate and commit budget; absent = unlimited (tests, benchmarks of the raw pipeline). */
  readonly limiter?: RateLimiter;
  /**
   * Call-rate and commit-budget counters shared by every instance on the store; absent = `limiter` counts them in
   * this process (tests, the pipeline bench).
   */
  readonly counters?: Counters;
  /** Whether the shared store is answering; absent = always live (one process, nothing to fall out of date). */
  readonly health?: () => StoreHealth;
  /** Per-perimeter concurrency lanes; absent = unbounded. */
  readonly gate?: Gate;
  /** Answers of pinned tools at a commit id, per binding (answer-cache.ts); absent = every call computes its answer. */
  readonly answers?: AnswerCache;
  readonly now?: () => number;
  /** Seals change cursors (src/mcp/cursor.ts over the state dir's key); absent = changes_since is refused. */
  readonly cursors?: CursorSeal;
  /** Working trees of local repositories (the workspace tools); absent = those tools answer not found. */
  readonly workspace?: Workspace;
  /** Holds writes of perimeters that require approval; absent = such writes are refused (never silently applied). */
  readonly proposals?: ProposalService;
  /** Working-tree writers (previews for the propose_* tools); absent = they answer not found. */
  readonly writers?: WorkTreeWriters;
  /** Agents' recent activity and leases, shared by every instance (issue 23 §2); absent = no presence, no leases. */
  readonly presence?: PresenceStore;
  /** When this process last noted each agent as seen (see `noteSeen`); one map per composition. */
  readonly seen?: Map<string, number>;
  /**
   * False once an agent's key is revoked (or its perimeter deleted): its leases stop binding at once, on every instance,
   * whatever process revoked it. Absent = every holder counts.
   */
  readonly liveAgent?: (perimeter: string, agent: string) => boolean;
}

/** The fail-closed answer: the same for every agent endpoint, whether or not its perimeter exists. */
const UNAVAILABLE =
  'Unavailable: this server cannot reach its shared state store, so it cannot confirm the perimeter; retry in a few seconds.';

const invisible = (message: string): CallOutcome => ({ kind: 'invisible', message });
const missing = (message: string): CallOutcome => ({ kind: 'missing', message });
const deny = (
  cls: Extract<CallOutcome, { kind: 'deny' }>['class'],
  message: string,
  retryAfterSeconds?: number,
): CallOutcome =>
  retryAfterSeconds === undefined
    ? { kind: 'deny', class: cls, message }
    : { kind: 'deny', class: cls, message, retryAfterSeconds };

/** An upstream failure as an outcome: a missing object reads as the tool's own not-found answer. */
function upstreamFailure(e: UpstreamError, notFound: string): CallOutcome {
  if (e.code === 'not_found') return missing(notFound);
  const message = agentMessage(e);
  return e.retryAfterSeconds === undefined
    ? { kind: 'error', class: e.code, message }
    : { kind: 'error', class: e.code, message, retryAfterSeconds: e.retryAfterSeconds };
}

function pathsOf(tool: AnyTool, args: unknown): string[] {
  try {
    return tool.paths(args).flatMap((p) => (typeof p.path === 'string' ? [p.path] : []));
  } catch {
    return [];
  }
}

/** True when the call names a path to write (decide already validated the paths). */
const writesPaths = (tool: AnyTool, args: unknown): boolean => tool.paths(args).some((p) => p.role === 'write');

const BUDGETS = {
  calls: { windowMs: 60_000, limit: (b: AgentBinding) => b.limits.calls_per_minute ?? DEFAULT_LIMITS.calls_per_minute },
  commits: {
    windowMs: 3_600_000,
    limit: (b: AgentBinding) => b.limits.commits_per_hour ?? DEFAULT_LIMITS.commits_per_hour,
  },
} as const;

/** What counts a budget: the store's shared counters, or this process's limiter. */
export type BudgetCounter = Pick<Counters, 'take' | 'give'> | Pick<RateLimiter, 'take' | 'give'>;

/** A spent (or uncountable) budget: the refusal message and when to come back. */
export interface Spent {
  readonly cls: 'rate_limited' | 'unavailable';
  readonly message: string;
  readonly retryAfterSeconds: number;
}

/** Counts one event under `key`; the seconds to wait when it does not fit, or 'uncountable' when the store failed. */
async function take(
  counter: BudgetCounter,
  key: string,
  max: number,
  windowMs: number,
): Promise<number | undefined | 'uncountable'> {
  try {
    return await counter.take(key, max, windowMs);
  } catch {
    return 'uncountable';
  }
}

/**
 * Counts one call or one commit against an agent perimeter's budget, and against the calling agent's own
 * (`limits.per_agent`) when the perimeter sets one; what refuses it when either is spent. The one place a commit is
 * charged, for a direct push (at the call, which is when it is applied) and for every proposal kind (at apply, by the
 * instance that applies it, to the agent that proposed): a proposal costs nothing while it waits.
 */
export async function spendBudget(
  counter: BudgetCounter | undefined,
  binding: AgentBinding,
  what: keyof typeof BUDGETS,
  agent?: string,
): Promise<Spent | undefined> {
  if (!counter) return undefined;
  const { windowMs, limit } = BUDGETS[what];
  // A budget that cannot be counted is not granted: the store is down, and the caller is told to come back.
  const uncountable: Spent = { cls: 'unavailable', message: UNAVAILABLE, retryAfterSeconds: 1 };
  const own =
    agent === undefined
      ? undefined
      : binding.limits.per_agent?.[what === 'calls' ? 'calls_per_minute' : 'commits_per_hour'];
  const ownKey = `${what}:${binding.perimeterId}:agent:${agent ?? ''}`;
  if (own !== undefined) {
    const wait = await take(counter, ownKey, own, windowMs);
    if (wait === 'uncountable') return uncountable;
    if (wait !== undefined) {
      const message =
        what === 'calls'
          ? `Rate limited: this agent may make ${own} calls per minute; retry after ${wait} s.`
          : `Write budget spent: this agent may make ${own} commits per hour; retry after ${wait} s.`;
      return { cls: 'rate_limited', message, retryAfterSeconds: wait };
    }
  }
  const max = limit(binding);
  const wait = await take(counter, `${what}:${binding.perimeterId}`, max, windowMs);
  if (wait === undefined) return undefined;
  // Refused by the perimeter: the agent's own count gives back what this event took (it did not happen).
  if (own !== undefined) await Promise.resolve(counter.give(ownKey)).catch(() => undefined);
  if (wait === 'uncountable') return uncountable;
  const message =
    what === 'calls'
      ? `Rate limited: this perimeter allows ${max} calls per minute; retry after ${wait} s.`
      : `Write budget spent: this perimeter allows ${max} commits per hour; retry after ${wait} s.`;
  return { cls: 'rate_limited', message, retryAfterSeconds: wait };
}

/** Counts one call (or commit) against the agent perimeter's budget; the refusal when it is spent. */
async function budgetSpent(
  deps: InvokeDeps,
  binding: Binding,
  what: keyof typeof BUDGETS,
  agent: string | undefined,
): Promise<CallOutcome | undefined> {
  if (binding.surface !== 'agent') return undefined;
  const spent = await spendBudget(deps.counters ?? deps.limiter, binding, what, agent);
  return spent === undefined ? undefined : deny(spent.cls, spent.message, spent.retryAfterSeconds);
}

const limitOf = <K extends keyof typeof DEFAULT_LIMITS>(b: AgentBinding, k: K): number =>
  b.limits[k] ?? DEFAULT_LIMITS[k];

/**
 * What one agent call may spend upstream: `upstream_requests_per_call` for this call, and the perimeter's hourly
 * share, counted request by request where the adapter sends them, by the counter of the other budgets (the store's
 * when there is one, so N instances never multiply the share; else this process's limiter).
 */
function callBudget(binding: AgentBinding, counter: BudgetCounter | undefined): RequestBudget {
  const perCall = limitOf(binding, 'upstream_requests_per_call');
  const perHour = limitOf(binding, 'upstream_requests_per_hour');
  const key = `upstream:${binding.perimeterId}`;
  let left = perCall;
  return {
    async take() {
      if (left <= 0) {
        return {
          code: 'over_budget',
          message: `This call needs more than ${perCall} upstream requests, this perimeter's limit per call; nothing more was sent. Narrow it (a path, fewer files, a smaller page).`,
        };
      }
      let wait: number | undefined;
      try {
        wait = await counter?.take(key, perHour, 3_600_000);
      } catch {
        // A share that cannot be counted is not granted: nothing is sent while the store is down.
        return { code: 'unavailable', message: UNAVAILABLE, retryAfterSeconds: 1 };
      }
      if (wait !== undefined) {
        return {
          code: 'over_budget',
          message: `This perimeter's share of upstream requests (${perHour} per hour) is spent; retry after ${wait} s.`,
          retryAfterSeconds: wait,
        };
      }
      left -= 1;
      return undefined;
    },
    refund() {
      // Best effort: a refund the store missed costs the perimeter one request of its share, never a request more.
      void Promise.resolve(counter?.give(key)).catch(() => undefined);
    },
  };
}

/** The busy answer: the lane's queue is full. */
const busy = (b: AgentBinding): string =>
  `Busy: this perimeter's calls are at their limit (${limitOf(b, 'concurrent_calls')} running, ${limitOf(b, 'queued_calls')} waiting); retry in a moment.`;

/**
 * The one straight line of a tool call: decide → upstream → filter → a closed `CallOutcome`. Used by every MCP surface
 * and by the operator API's filtered history, so the two can never disagree; each surface maps the outcome once.
 * `binding` is resolved per call: a perimeter changed or deleted while a session is open takes effect at the next call.
 */
export async function invoke(
  tool: AnyTool,
  binding: Binding | undefined,
  args: unknown,
  deps: InvokeDeps,
  caller: Caller = {},
): Promise<CallOutcome> {
  const now = deps.now ?? performance.now.bind(performance);
  const started = now();
  // Sealed arguments are opened first, so the policy, the audit and the tool all see the path they stand for.
  const opened = tool.resolve && binding ? tool.resolve(args, binding, deps.cursors) : args;
  const outcome = await decideAndRun(tool, binding, opened, deps, caller);
  if (deps.record) await record(deps, tool, binding, opened, caller, outcome, now() - started);
  return outcome;
}

async function decideAndRun(
  tool: AnyTool,
  binding: Binding | undefined,
  args: unknown,
  deps: InvokeDeps,
  caller: Caller,
): Promise<CallOutcome> {
  // Before the binding: a perimeter that may have been deleted elsewhere answers like one that exists, not as unknown.
  if (binding?.surface !== 'root' && deps.health) {
    const h = deps.health();
    switch (h.kind) {
      case 'live':
        break;
      case 'silent':
        return deny('unavailable', UNAVAILABLE, 1);
      default:
        return assertNever(h, 'store health');
    }
  }
  if (binding === undefined) return invisible(tool.notFound(args));
  const callsSpent = await budgetSpent(deps, binding, 'calls', caller.agent);
  if (callsSpent !== undefined) return callsSpent;
  const verdict = decide(binding, tool, args);
  switch (verdict.kind) {
    case 'invisible':
      return invisible(tool.notFound(args));
    case 'deny':
      return deny('denied', verdict.reason);
    case 'invalid':
      return deny('invalid', `Invalid argument: ${verdict.message}`);
    case 'allow':
      break;
    default:
      return assertNever(verdict, 'verdict');
  }
  // One perimeter's calls run a few at a time; the rest wait in a bounded queue or are told to retry.
  if (binding.surface === 'agent' && deps.gate) {
    const lane = deps.gate.enter(
      binding.perimeterId,
      limitOf(binding, 'concurrent_calls'),
      limitOf(binding, 'queued_calls'),
    );
    if (lane === undefined) return deny('busy', busy(binding), 1);
    const release = await lane;
    try {
      return await run(tool, verdict.target, verdict.hidden, binding, args, deps, caller);
    } finally {
      release();
    }
  }
  return run(tool, verdict.target, verdict.hidden, binding, args, deps, caller);
}

/** Everything after the policy allowed the call: upstream, filter, the answer cap. */
async function run(
  tool: AnyTool,
  allowed: Target,
  hidden: ReadonlySet<string>,
  binding: Binding,
  args: unknown,
  deps: InvokeDeps,
  caller: Caller,
): Promise<CallOutcome> {
  const base = deps.upstreamFor(allowed.repo);
  if (base === undefined)
    return missing(binding.surface === 'root' ? `Not found: repository "${allowed.repo}".` : tool.notFound(args));
  const upstream: Upstream =
    binding.surface === 'agent'
      ? (base.withBudget?.(callBudget(binding, deps.counters ?? deps.limiter)) ?? base)
      : base;
  let target: Target = allowed;
  if (target.ref === '') {
    const def = await upstream.defaultBranch(target.repo);
    if (!def.ok) return upstreamFailure(def.error, `Not found: repository "${target.repo}".`);
    target = { repo: target.repo, ref: def.value };
  }
  const contextAt = (target: Target): ToolContext => ({
    upstream,
    binding,
    scope: binding.scope,
    target,
    hidden,
    // The author names the key's agent and the perimeter, never the client's label.
    author:
      binding.surface === 'agent' ? agentAuthor(caller.agent ?? ANONYMOUS_AGENT, binding.perimeterId) : OPERATOR_AUTHOR,
    ...(binding.surface === 'agent' ? { agent: caller.agent ?? ANONYMOUS_AGENT } : {}),
    ...(caller.client === undefined ? {} : { client: caller.client }),
    log: deps.log,
    ...(deps.cursors ? { cursors: deps.cursors } : {}),
    ...(deps.workspace ? { workspace: deps.workspace } : {}),
    ...(deps.proposals ? { proposals: deps.proposals } : {}),
    ...(deps.writers ? { writers: deps.writers } : {}),
    ...(deps.presence ? { presence: deps.presence } : {}),
  });
  let ctx = contextAt(target);
  if (binding.surface === 'agent') noteSeen(deps, binding, ctx.agent ?? ANONYMOUS_AGENT);
  const refusal = tool.guard?.(args, ctx);
  if (refusal !== undefined) return deny('refused', refusal);
  const leased = binding.surface === 'agent' ? await leaseCheck(tool, args, ctx, binding, deps) : undefined;
  if (leased !== undefined) return leased;
  // Policy first: only a call that would be allowed now becomes a proposal; the write waits for a person.
  if (binding.surface === 'agent' && tool.proposable?.required(binding))
    return propose(tool, tool.proposable, args, ctx, binding, deps);
  // A commit is spent by a call that writes paths (a proposal spends it when it is applied, not when it is made).
  const commitsSpent =
    tool.access === 'write' && writesPaths(tool, args)
      ? await budgetSpent(deps, binding, 'commits', caller.agent)
      : undefined;
  if (commitsSpent !== undefined) return commitsSpent;
  // A pinned tool's answer at a commit id is fixed for this binding: resolve the head once, reuse what was cut for it.
  let cacheKey: string | undefined;
  if (deps.answers && tool.pinned === true && pinnable(binding) && upstream.kind === 'local') {
    const head = await upstream.branchHead(target.repo, target.ref);
    if (head.ok) {
      cacheKey = deps.answers.key(binding, tool.name, target.repo, head.value, args);
      const hit = deps.answers.get(cacheKey);
      if (hit !== undefined) return hit;
      // The tool reads exactly the commit the key names, even if the branch moves while it runs.
      ctx = contextAt({ repo: target.repo, ref: head.value });
    }
  }
  const outcome = await runTool(tool, binding, args, ctx, deps);
  if (cacheKey !== undefined && outcome.kind === 'allow') deps.answers?.set(cacheKey, outcome);
  return outcome;
}

/** An agent binding without a working tree: its reads are of commits only (working-tree reads change under it). */
const pinnable = (binding: Binding): binding is AgentBinding =>
  binding.surface === 'agent' && binding.worktree !== true;

/** The upstream call, the cut and the answer cap of an allowed call. */
async function runTool(
  tool: AnyTool,
  binding: Binding,
  args: unknown,
  ctx: ToolContext,
  deps: InvokeDeps,
): Promise<CallOutcome> {
  const raw = await tool.run(args, ctx);
  if (!raw.ok) {
    if (raw.error.code !== 'not_found')
      deps.log('warn', 'upstream call failed', { tool: tool.name, code: raw.error.code, detail: raw.error.message });
    return upstreamFailure(raw.error, tool.notFound(args));
  }
  const out = tool.filter(raw.value, args, ctx);
  switch (out.kind) {
    case 'not_found':
      return missing(tool.notFound(args));
    case 'error':
      return upstreamFailure(out.error, tool.notFound(args));
    case 'refused':
      return deny('refused', out.message);
    case 'ok': {
      const value = out.value as Record<string, unknown>;
      // The backstop under every tool's own paging: an answer over the cap is refused whole, never cut.
      const cap = answerCap(binding);
      const { text, textBytes: bytes, answerBytes } = frame(tool, value, cap, deps.record !== undefined);
      if (answerBytes > cap) {
        return deny(
          'too_large',
          `Too large: this answer would be ${answerBytes} bytes, over this perimeter's ${cap}-byte answer cap. Narrow the call (a path, fewer files, a smaller page).`,
        );
      }
      if (out.commit !== undefined && binding.surface === 'agent' && tool.access === 'write')
        noteWrote(deps, binding, ctx.agent ?? ANONYMOUS_AGENT, writePaths(tool, args));
      return out.commit === undefined
        ? { kind: 'allow', value, text, bytes }
        : { kind: 'allow', value, text, bytes, commit: out.commit };
    }
    default:
      return assertNever(out, 'tool outcome');
  }
}

/**
 * Holds an allowed write for approval: the answer names the proposal; nothing is written. The only place a call
 * becomes a proposal (so the audit records `proposed` for every kind); nothing is charged until it is applied.
 */
async function propose(
  tool: AnyTool,
  proposable: Proposable<unknown>,
  args: unknown,
  ctx: ToolContext,
  binding: AgentBinding,
  deps: InvokeDeps,
): Promise<CallOutcome> {
  if (deps.proposals === undefined) {
    return deny(
      'refused',
      'This perimeter requires approval for this write, and this server keeps no proposals; nothing was written. Tell the operator.',
    );
  }
  const drafted = await proposable.draft(args, ctx);
  switch (drafted.kind) {
    case 'draft':
      break;
    case 'refused':
      return deny('refused', drafted.message);
    case 'error':
      return upstreamFailure(drafted.error, tool.notFound(args));
    case 'answer': {
      const text = tool.render(drafted.value, freshFence());
      return { kind: 'allow', value: drafted.value as Record<string, unknown>, text, bytes: Buffer.byteLength(text) };
    }
    default:
      return assertNever(drafted, 'draft outcome');
  }
  const draft = drafted.draft;
  let base = draft.base;
  if (base === undefined) {
    const head = await ctx.upstream.branchHead(ctx.target.repo, ctx.target.ref);
    if (!head.ok)
      return upstreamFailure(
        head.error,
        'Not found: the bound branch does not exist any more. Ask the operator for a new connection URL.',
      );
    base = head.value;
  }
  const others = await otherAgents(deps, binding, ctx.agent ?? ANONYMOUS_AGENT, draft.facts.paths);
  const made = await deps.proposals.create({
    perimeter: binding.perimeterId,
    repo: binding.repo,
    branch: binding.branch,
    base,
    agent: ctx.agent ?? ANONYMOUS_AGENT,
    change: draft.change,
    facts: others.length === 0 ? draft.facts : { ...draft.facts, other_agents: others },
    ...(draft.agentReason === undefined ? {} : { agentReason: draft.agentReason }),
    ...(draft.idempotencyKey === undefined ? {} : { idempotencyKey: draft.idempotencyKey }),
  });
  if (!made.ok) return deny('refused', made.message);
  const p = made.value;
  const value = (draft.answer?.(p) as Record<string, unknown> | undefined) ?? {
    branch: p.branch,
    proposal_id: p.id,
    status: p.status,
    summary: p.summary,
  };
  const text = tool.render(value, freshFence());
  return { kind: 'propose', value, text, bytes: Buffer.byteLength(text), proposal: p.id };
}

/** Other agents on the proposal's paths, for the approver; best effort (presence is a hint, never a gate). */
async function otherAgents(
  deps: InvokeDeps,
  b: AgentBinding,
  agent: string,
  paths: readonly string[],
): Promise<{ agent: string; paths: string[] }[]> {
  if (!deps.presence || !deps.proposals || paths.length === 0) return [];
  try {
    const [notes, pending] = await Promise.all([
      deps.presence.recent(b.repo, b.branch, PRESENCE_RECENT_MS),
      pendingOn(deps.proposals, b.repo, b.branch),
    ]);
    return overlapsFor({ perimeter: b.perimeterId, agent }, paths, notes, pending);
  } catch {
    return [];
  }
}

/** Paths a call writes (decide already validated them). */
function writePaths(tool: AnyTool, args: unknown): string[] {
  return tool.paths(args).flatMap((p) => (p.role === 'write' && typeof p.path === 'string' ? [p.path] : []));
}

/** How often one process refreshes an agent's `seen` note: presence is about minutes, not calls. */
const SEEN_EVERY_MS = 30_000;

/** Notes the agent as active on its branch, at most every SEEN_EVERY_MS per process; off the call's path. */
function noteSeen(deps: InvokeDeps, b: AgentBinding, agent: string): void {
  if (!deps.presence) return;
  const key = `${b.perimeterId}\u0000${agent}\u0000${b.repo}\u0000${b.branch}`;
  const t = Date.now();
  const last = deps.seen?.get(key);
  if (last !== undefined && t - last < SEEN_EVERY_MS) return;
  deps.seen?.set(key, t);
  void deps.presence
    .note({ kind: 'seen', perimeter: b.perimeterId, agent, repo: b.repo, branch: b.branch, paths: [] })
    .catch((err: unknown) => deps.log('warn', 'presence note failed', { error: String(err) }));
}

/** Notes a write that landed, for other agents' `activity`; off the call's path (the commit is already made). */
function noteWrote(deps: InvokeDeps, b: AgentBinding, agent: string, paths: readonly string[]): void {
  if (!deps.presence || paths.length === 0) return;
  void deps.presence
    .note({
      kind: 'wrote',
      perimeter: b.perimeterId,
      agent,
      repo: b.repo,
      branch: b.branch,
      paths,
      keep: activityKeep(limitOf(b, 'commits_per_hour')),
    })
    .catch((err: unknown) => deps.log('warn', 'presence note failed', { error: String(err) }));
}

/**
 * Another agent's lease on a path this call writes refuses it whole, before anything is written or proposed (a lease
 * the server enforces, not a hook the agent may skip). A lease that cannot be checked refuses too.
 */
async function leaseCheck(
  tool: AnyTool,
  args: unknown,
  ctx: ToolContext,
  binding: AgentBinding,
  deps: InvokeDeps,
): Promise<CallOutcome | undefined> {
  if (!deps.presence || tool.access !== 'write') return undefined;
  const paths = writePaths(tool, args);
  if (paths.length === 0) return undefined;
  let leases;
  try {
    leases = await deps.presence.leases(binding.repo, binding.branch);
  } catch {
    return deny('unavailable', UNAVAILABLE, 1);
  }
  const live = deps.liveAgent;
  if (live) leases = leases.filter((l) => live(l.perimeter, l.agent));
  const why = leaseRefusal(
    { perimeter: binding.perimeterId, agent: ctx.agent ?? ANONYMOUS_AGENT, scope: ctx.scope },
    paths,
    leases,
  );
  return why === undefined ? undefined : deny('refused', why);
}

/** The audit record of one call, from its outcome alone; never throws into the call. */
async function record(
  deps: InvokeDeps,
  tool: AnyTool,
  binding: Binding | undefined,
  args: unknown,
  caller: Caller,
  o: CallOutcome,
  ms: number,
): Promise<void> {
  const { verdict, result } = auditOf(o);
  try {
    await deps.record?.({
      surface: binding?.surface ?? 'agent',
      ...(binding?.surface === 'agent' ? { perimeter: binding.perimeterId, branch: binding.branch } : {}),
      tool: tool.name,
      ...(binding?.surface === 'agent' && caller.agent !== undefined ? { agent: caller.agent } : {}),
      ...(caller.client === undefined ? {} : { client: caller.client }),
      verdict,
      result,
      bytes: o.kind === 'allow' || o.kind === 'propose' ? o.bytes : Buffer.byteLength(o.message),
      durationMs: Math.round(ms * 1000) / 1000,
      ...(o.kind === 'allow' && o.commit !== undefined ? { commit: o.commit } : {}),
      paths: pathsOf(tool, args),
    });
  } catch (err) {
    deps.log('error', 'audit record failed', { error: String(err) });
  }
}
