// The one composition of a serving process: state → upstreams → workspace → writers → proposals → app. `serve` and the
// in-process test server (test/support/server.ts) both build through here, so what the tests run is what operators run;
// each passes only what differs (its upstreams, its sinks for the ledger, the budgets a test chooses).
import { agentOf, type ServerPolicy } from '../core/index.js';
import { createApp, type App, type AppDeps } from '../http/app.js';
import { AnswerCache, type CallRecord, type Gate, type RateLimiter } from '../mcp/index.js';
import type { CursorSeal, Log } from '../registry/index.js';
import { perimeterService } from '../registry/perimeters.js';
import type { ProposalEvent, ProposalService } from '../registry/proposals.js';
import type { Counters, SharedState, StoreHealth } from '../state/types.js';
import type { Upstream, UpstreamFor } from '../upstream/types.js';
import type { Workspace } from '../workspace/types.js';
import type { WorkTreeWriters } from '../workspace/writes.js';
import { openProposals } from './proposals.js';
import { buildUpstreams, type Upstreams } from './upstreams.js';

/** The upstream part of a composition: what `buildUpstreams` makes for `serve`, or a test's own adapters. */
export interface UpstreamSet {
  readonly all: readonly Upstream[];
  readonly upstreamFor: UpstreamFor;
  /** Working trees of local repositories; absent = the workspace tools answer not found. */
  readonly workspace?: Workspace | undefined;
}

/** The app's settings that are not parts: everything of AppDeps the composition does not build itself. */
export type AppSettings = Omit<
  AppDeps,
  | 'store'
  | 'agentUse'
  | 'upstreamFor'
  | 'upstreams'
  | 'invoke'
  | 'policy'
  | 'storeStatus'
  | 'recordAuth'
  | 'recordApi'
  | 'web'
>;

export interface ComposeOptions {
  readonly state: SharedState;
  readonly upstreams: UpstreamSet;
  readonly log: Log;
  readonly policy: ServerPolicy;
  /** Seals change cursors; `serve` passes a late-bound one (the key is read after the bind). */
  readonly cursors: CursorSeal;
  /** Working-tree writers: previews of propose_* and approved writes share their per-worktree queue. */
  readonly writers?: WorkTreeWriters | undefined;
  /** Keeps proposals (the state's proposal store); absent = approval-mode writes are refused. */
  readonly proposals?: { readonly ttlMs?: number | undefined; readonly now?: (() => number) | undefined } | undefined;
  /**
   * Budgets: `counters` (the store's, shared by every instance) counts calls, commits and upstream requests; without
   * them `limiter` counts in this process, and with neither nothing is limited (tests that do not measure budgets).
   */
  readonly counters?: Counters | undefined;
  readonly limiter?: RateLimiter | undefined;
  readonly gate?: Gate | undefined;
  /** Answers reused per binding and commit (issue 24): default on, as `serve` runs; null turns it off (tests). */
  readonly answers?: AnswerCache | null | undefined;
  /** Whether the store answers (default: the state's own health). */
  readonly health?: (() => StoreHealth) | undefined;
  /** Ledger sinks, late-bound in `serve` (the ledger opens after the bind). */
  readonly record?: ((r: CallRecord) => unknown) | undefined;
  readonly proposalEvent?: ((e: ProposalEvent) => void) | undefined;
  readonly recordApi?: AppDeps['recordApi'];
  readonly recordAuth?: AppDeps['recordAuth'];
  readonly app: AppSettings;
}

export interface Composed {
  readonly app: App;
  readonly proposals: ProposalService | undefined;
  /** The perimeter service over the state's store and these upstreams (what `/api` uses). */
  readonly perimeters: ReturnType<typeof perimeterService>;
}

/** Builds the parts of one serving process over an opened state and its upstreams. Binds nothing. */
export async function compose(o: ComposeOptions): Promise<Composed> {
  const store = o.state.perimeters;
  const { upstreamFor } = o.upstreams;
  const budget = o.counters ?? o.limiter;
  const proposals = o.proposals
    ? await openProposals({
        store: o.state.proposals,
        perimeters: store,
        upstreamFor,
        log: o.log,
        policy: o.policy,
        ttlMs: o.proposals.ttlMs,
        now: o.proposals.now,
        record: (r) => o.record?.(r),
        audit: (e) => o.proposalEvent?.(e),
        ...(o.writers ? { writers: o.writers } : {}),
        ...(budget ? { budget } : {}),
      })
    : undefined;
  const state = o.state;
  const app = createApp({
    ...o.app,
    store,
    agentUse: state.agentUse,
    upstreamFor,
    upstreams: o.upstreams.all,
    policy: o.policy,
    invoke: {
      upstreamFor,
      log: o.log,
      health: o.health ?? (() => state.health()),
      cursors: o.cursors,
      ...(o.counters ? { counters: o.counters } : {}),
      ...(o.limiter ? { limiter: o.limiter } : {}),
      ...(o.gate ? { gate: o.gate } : {}),
      ...(o.answers === null ? {} : { answers: o.answers ?? new AnswerCache(() => store.list().map((p) => p.id)) }),
      ...(o.record ? { record: o.record } : {}),
      ...(o.upstreams.workspace ? { workspace: o.upstreams.workspace } : {}),
      ...(proposals ? { proposals } : {}),
      ...(o.writers ? { writers: o.writers } : {}),
      presence: state.presence,
      seen: new Map(),
      liveAgent: (perimeter, agent) => {
        const p = store.get(perimeter);
        if (!p) return false;
        const keys = p.keys ?? [];
        return keys.length === 0 || keys.some((k) => agentOf(k) === agent);
      },
    },
    web: { sessions: state.webSessions, key: () => state.sharedKey('web.key') },
    storeStatus: async () => ({ kind: state.kind, health: state.health(), instances: await state.instances() }),
    ...(o.recordApi ? { recordApi: o.recordApi } : {}),
    ...(o.recordAuth ? { recordAuth: o.recordAuth } : {}),
  });
  return { app, proposals, perimeters: perimeterService(store, upstreamFor) };
}

/**
 * The upstreams `serve` runs: local git, and GitHub with a token. The local adapter lists what the store holds now
 * (plus the configured and embedded repositories), so a repository registered on another instance after this one
 * started is served here too. Only a shared store shares GitHub's budget: alone, the throttling plugin already acts
 * on GitHub's own answers, and a remembered "spent" would outlive a limit GitHub lifted early.
 */
export function composeUpstreams(o: {
  state: SharedState;
  token: string | undefined;
  githubUrl: string | undefined;
  /** Repositories served whatever the store holds (the config's, the embedded one). */
  fixedRepos: readonly string[];
  log: Log;
  searchDir: string;
}): Upstreams {
  const { state } = o;
  return buildUpstreams({
    token: o.token,
    githubUrl: o.githubUrl,
    localRepos: () => [...o.fixedRepos, ...state.perimeters.list().map((p) => p.repo)].filter((r) => r.startsWith('/')),
    log: o.log,
    searchDir: o.searchDir,
    ...(state.kind === 'postgres' ? { quota: { saw: (q) => state.sawQuota(q), last: () => state.quota() } } : {}),
    // Every instance writing the same local repositories takes the store's lock (absent on the file store).
    ...(state.branchLock ? { branchLock: state.branchLock } : {}),
  });
}
