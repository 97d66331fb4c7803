import { answerCap, decide, type AgentBinding, type Binding, type Target } from '../core/index.js';
import type { AnyTool, CursorSeal, Log, ToolContext } from '../registry/index.js';
import type { RequestBudget, Upstream, UpstreamFor } from '../upstream/types.js';
import { DEFAULT_LIMITS, type Gate, type RateLimiter } from './limits.js';
import { agentMessage } from './messages.js';

/** One tool call as the operator's audit sees it (paths in clear here; the ledger decides how to store them). */
export interface CallRecord {
  readonly surface: 'agent' | 'root';
  readonly perimeter?: string;
  readonly branch?: string;
  readonly tool: string;
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
  /** Called once per call after the answer is built; must not throw. */
  readonly record?: (r: CallRecord) => void;
  /** Per-perimeter call rate and commit budget; absent = unlimited (tests, benchmarks of the raw pipeline). */
  readonly limiter?: RateLimiter;
  /** Per-perimeter concurrency lanes; absent = unbounded. */
  readonly gate?: Gate;
  readonly now?: () => number;
  /** Seals change cursors (src/mcp/cursor.ts over the state dir's key); absent = changes_since is refused. */
  readonly cursors?: CursorSeal;
}

/** A tool result in MCP shape. */
export interface CallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const errorResult = (text: string): CallResult => ({ content: [{ type: 'text', text }], isError: true });

function pathsOf(tool: AnyTool, args: unknown): string[] {
  try {
    return tool.paths(args).flatMap((p) => (typeof p.path === 'string' ? [p.path] : []));
  } catch {
    return [];
  }
}

const BUDGETS = {
  calls: { windowMs: 60_000, limit: (b: AgentBinding) => b.limits.calls_per_minute ?? DEFAULT_LIMITS.calls_per_minute },
  commits: { windowMs: 3_600_000, limit: (b: AgentBinding) => b.limits.commits_per_hour ?? DEFAULT_LIMITS.commits_per_hour },
} as const;

/** Counts one call (or commit) against the agent perimeter's budget; the refusal message when it is spent. */
function budgetSpent(limiter: RateLimiter | undefined, binding: Binding, what: keyof typeof BUDGETS): string | undefined {
  if (!limiter || binding.surface !== 'agent') return undefined;
  const { windowMs, limit } = BUDGETS[what];
  const max = limit(binding);
  const wait = limiter.take(`${what}:${binding.perimeterId}`, max, windowMs);
  if (wait === undefined) return undefined;
  return what === 'calls'
    ? `Rate limited: this perimeter allows ${max} calls per minute; retry after ${wait} s.`
    : `Write budget spent: this perimeter allows ${max} commits per hour; retry after ${wait} s.`;
}

const limitOf = <K extends keyof typeof DEFAULT_LIMITS>(b: AgentBinding, k: K): number => b.limits[k] ?? DEFAULT_LIMITS[k];

/**
 * What one agent call may spend upstream: `upstream_requests_per_call` for this call, and the perimeter's hourly
 * share, counted request by request where the adapter sends them (the limiter's window is shared by all its calls).
 */
function callBudget(binding: AgentBinding, limiter: RateLimiter | undefined): RequestBudget {
  const perCall = limitOf(binding, 'upstream_requests_per_call');
  const perHour = limitOf(binding, 'upstream_requests_per_hour');
  const key = `upstream:${binding.perimeterId}`;
  let left = perCall;
  return {
    take() {
      if (left <= 0) {
        return {
          code: 'over_budget',
          message: `This call needs more than ${perCall} upstream requests, this perimeter's limit per call; nothing more was sent. Narrow it (a path, fewer files, a smaller page).`,
        };
      }
      const wait = limiter?.take(key, perHour, 3_600_000);
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
      limiter?.give(key);
    },
  };
}

/** The busy answer: the lane's queue is full. */
const busy = (b: AgentBinding): string =>
  `Busy: this perimeter's calls are at their limit (${limitOf(b, 'concurrent_calls')} running, ${limitOf(b, 'queued_calls')} waiting); retry in a moment.`;

/**
 * The one straight line of a tool call: decide → upstream → filter → MCP result. Used by every MCP surface and by
 * the operator API's filtered history, so the two can never disagree. `binding` is resolved per call: a perimeter
 * changed or deleted while a session is open takes effect at the next call.
 */
export async function invoke(
  tool: AnyTool,
  binding: Binding | undefined,
  args: unknown,
  deps: InvokeDeps,
  client?: string,
): Promise<CallResult> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  let verdictKind: CallRecord['verdict'] = 'allow';
  let resultClass = 'ok';
  let commit: string | undefined;

  const answer = await (async (): Promise<CallResult> => {
    if (binding === undefined) {
      verdictKind = 'invisible';
      resultClass = 'not_found';
      return errorResult(tool.notFound(args));
    }
    const callsSpent = budgetSpent(deps.limiter, binding, 'calls');
    if (callsSpent !== undefined) {
      verdictKind = 'deny';
      resultClass = 'rate_limited';
      return errorResult(callsSpent);
    }
    const verdict = decide(binding, tool, args);
    switch (verdict.kind) {
      case 'invisible':
        verdictKind = 'invisible';
        resultClass = 'not_found';
        return errorResult(tool.notFound(args));
      case 'deny':
        verdictKind = 'deny';
        resultClass = 'denied';
        return errorResult(verdict.reason);
      case 'invalid':
        verdictKind = 'deny';
        resultClass = 'invalid';
        return errorResult(`Invalid argument: ${verdict.message}`);
      case 'allow':
        break;
    }
    // One perimeter's calls run a few at a time; the rest wait in a bounded queue or are told to retry.
    const lane = binding.surface === 'agent' && deps.gate ? deps.gate.enter(binding.perimeterId, limitOf(binding, 'concurrent_calls'), limitOf(binding, 'queued_calls')) : undefined;
    if (binding.surface === 'agent' && deps.gate && lane === undefined) {
      verdictKind = 'deny';
      resultClass = 'busy';
      return errorResult(busy(binding));
    }
    const release = lane ? await lane : undefined;
    try {
      return await run(verdict.target, verdict.hidden, binding);
    } finally {
      release?.();
    }
  })();

  /** Everything after the policy allowed the call: upstream, filter, the answer cap. */
  async function run(allowed: Target, hidden: ReadonlySet<string>, binding: Binding): Promise<CallResult> {
    const base = deps.upstreamFor(allowed.repo);
    if (base === undefined) {
      resultClass = 'not_found';
      return errorResult(binding.surface === 'root' ? `Not found: repository "${allowed.repo}".` : tool.notFound(args));
    }
    const upstream: Upstream = binding.surface === 'agent' ? (base.withBudget?.(callBudget(binding, deps.limiter)) ?? base) : base;
    let target: Target = allowed;
    if (target.ref === '') {
      const def = await upstream.defaultBranch(target.repo);
      if (!def.ok) {
        verdictKind = 'error';
        resultClass = def.error.code;
        return errorResult(def.error.code === 'not_found' ? `Not found: repository "${target.repo}".` : agentMessage(def.error));
      }
      target = { repo: target.repo, ref: def.value };
    }
    const ctx: ToolContext = {
      upstream,
      binding,
      scope: binding.scope,
      target,
      hidden,
      author:
        binding.surface === 'agent'
          ? { name: `${client ?? 'agent'} via git-blinder (${binding.perimeterId})`, email: `${binding.perimeterId}@git-blinder.invalid` }
          : { name: 'git-blinder operator', email: 'root@git-blinder.invalid' },
      log: deps.log,
      ...(deps.cursors ? { cursors: deps.cursors } : {}),
    };
    const refusal = tool.guard?.(args, ctx);
    if (refusal !== undefined) {
      verdictKind = 'deny';
      resultClass = 'refused';
      return errorResult(refusal);
    }
    const commitsSpent = tool.access === 'write' ? budgetSpent(deps.limiter, binding, 'commits') : undefined;
    if (commitsSpent !== undefined) {
      verdictKind = 'deny';
      resultClass = 'rate_limited';
      return errorResult(commitsSpent);
    }
    const raw = await tool.run(args, ctx);
    if (!raw.ok) {
      if (raw.error.code === 'not_found') {
        resultClass = 'not_found';
        return errorResult(tool.notFound(args));
      }
      verdictKind = 'error';
      resultClass = raw.error.code;
      deps.log('warn', 'upstream call failed', { tool: tool.name, code: raw.error.code, detail: raw.error.message });
      return errorResult(agentMessage(raw.error));
    }
    const out = tool.filter(raw.value, args, ctx);
    switch (out.kind) {
      case 'not_found':
        resultClass = 'not_found';
        return errorResult(tool.notFound(args));
      case 'error':
        verdictKind = 'error';
        resultClass = out.error.code;
        return errorResult(agentMessage(out.error));
      case 'refused':
        verdictKind = 'deny';
        resultClass = 'refused';
        return errorResult(out.message);
      case 'ok': {
        const value = out.value as Record<string, unknown>;
        const text = JSON.stringify(value);
        // The backstop under every tool's own paging: an answer over the cap is refused whole, never cut.
        const cap = answerCap(binding);
        const size = text.length > cap / 4 ? Buffer.byteLength(text) : 0;
        if (size > cap) {
          verdictKind = 'deny';
          resultClass = 'too_large';
          return errorResult(`Too large: this answer would be ${size} bytes, over this perimeter's ${cap}-byte answer cap. Narrow the call (a path, fewer files, a smaller page).`);
        }
        commit = out.commit;
        return { content: [{ type: 'text', text }], structuredContent: value };
      }
    }
  }

  if (deps.record) {
    const bytes = answer.content.reduce((n, c) => n + Buffer.byteLength(c.text), 0);
    try {
      deps.record({
        surface: binding?.surface ?? 'agent',
        ...(binding?.surface === 'agent' ? { perimeter: binding.perimeterId, branch: binding.branch } : {}),
        tool: tool.name,
        ...(client === undefined ? {} : { client }),
        verdict: verdictKind,
        result: resultClass,
        bytes,
        durationMs: Math.round((now() - started) * 1000) / 1000,
        ...(commit === undefined ? {} : { commit }),
        paths: pathsOf(tool, args),
      });
    } catch (err) {
      deps.log('error', 'audit record failed', { error: String(err) });
    }
  }
  return answer;
}
