import { decide, type AgentBinding, type Binding, type Target } from '../core/index.js';
import type { AnyTool, Log, ToolContext } from '../registry/index.js';
import type { UpstreamFor } from '../upstream/types.js';
import { DEFAULT_LIMITS, type RateLimiter } from './limits.js';
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
  readonly now?: () => number;
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
    const upstream = deps.upstreamFor(verdict.target.repo);
    if (upstream === undefined) {
      resultClass = 'not_found';
      return errorResult(binding.surface === 'root' ? `Not found: repository "${verdict.target.repo}".` : tool.notFound(args));
    }
    let target: Target = verdict.target;
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
      hidden: verdict.hidden,
      author:
        binding.surface === 'agent'
          ? { name: `${client ?? 'agent'} via git-blinder (${binding.perimeterId})`, email: `${binding.perimeterId}@git-blinder.invalid` }
          : { name: 'git-blinder operator', email: 'root@git-blinder.invalid' },
      log: deps.log,
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
        commit = out.commit;
        const value = out.value as Record<string, unknown>;
        return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
      }
    }
  })();

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
