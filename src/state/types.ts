// The state port: every piece of mutable state several instances of `serve` must share. Types only; adapters live in
// state/file (one process, the default) and state/postgres (N instances on one database).
import type { BranchLock, Perimeter, Result } from '../core/index.js';
import type { PresenceStore } from './presence.js';

export type { ActivityEntry, ActivityNote, Lease, LeaseRequest, PresenceStore } from './presence.js';
import type { ProposalStore } from './proposals.js';

/**
 * Perimeters (and the agent key hashes they carry) held in memory for synchronous per-call reads, written through to
 * the store on every change. An adapter shared by several instances refreshes the memory copy when another instance
 * changes it; `revision()` then bumps, so callers drop what they compiled from the old copy.
 */
export interface PerimeterStore {
  list(): readonly Perimeter[];
  get(id: string): Perimeter | undefined;
  /** Bumps on every change seen by this process (its own or another instance's), so callers can cache what they compile. */
  revision(): number;
  /** Inserts or replaces a perimeter, then persists. */
  put(p: Perimeter): Promise<void>;
  delete(id: string): Promise<boolean>;
  /**
   * The one atomic read-modify-write: `mutate` runs on a copy of the perimeters as the store has them now (under the
   * store's write lock, never a snapshot taken before an await), so a change computed from what it read cannot
   * overwrite a change that landed meanwhile, on this instance or another. A refusal writes nothing. `mutate` is
   * synchronous on purpose: slow checks (git, GitHub) happen before, and whatever they depended on is re-checked here.
   */
  modify<T, C extends string>(mutate: (draft: Map<string, Perimeter>) => Result<T, C>): Promise<Result<T, C>>;
  /** The state file, for the file adapter; undefined otherwise. */
  readonly file: string | undefined;
}

/**
 * Fixed-window counters (call rate, commit budget) per key, counted where every instance counts: N instances never
 * multiply a limit.
 */
export interface Counters {
  /** Counts one event against `limit` per `windowMs`; undefined when it fits, else the seconds to wait (not counted then). */
  take(key: string, limit: number, windowMs: number): Promise<number | undefined>;
  /** Gives back one event taken in the current window. */
  give(key: string): Promise<void>;
}

/**
 * When each agent last used its key (issue 23: "list agents with last use"). Written on every admitted request, so
 * adapters coalesce: a use is recorded at most once per `USE_GRANULARITY_MS` (core) per agent and instance (a listing may
 * lag by that much), and recording never delays or fails the request.
 */
export interface AgentUse {
  /** Records a use of `agent`'s key on `perimeter`, now; best effort, never throws. */
  touch(perimeter: string, agent: string): void;
  /** The last recorded use (ISO time) of each agent of `perimeter` that has one. */
  lastUse(perimeter: string): Promise<Readonly<Record<string, string>>>;
}

/** One instance of `serve` as the store last heard from it. */
export interface InstanceInfo {
  readonly id: string;
  readonly version: string;
  readonly startedAt: string;
  readonly lastSeen: string;
}

/**
 * Whether this instance may trust its copy of the state. `silent`: the store has not answered for longer than the
 * bound, so a perimeter may have been narrowed elsewhere; agent calls are refused until it answers again.
 */
export type StoreHealth = { readonly kind: 'live' } | { readonly kind: 'silent'; readonly silentMs: number };

/** GitHub's rate-limit budget as some instance last read it from a response. */
export interface QuotaSighting {
  readonly remaining: number;
  readonly limit: number;
  /** ISO time the budget resets. */
  readonly resetAt: string;
}

/** How long a signed-in browser of the approval page lasts, and how many may be signed in at once. */
export interface WebSessionLimits {
  /** A session unused this long is gone. */
  readonly idleMs: number;
  /** A session older than this is gone however busy. */
  readonly maxAgeMs: number;
  /** Signed-in browsers at once; the least recently used gives way to a new one. */
  readonly max: number;
}

/**
 * Signed-in browsers of the approval page, shared by every instance so a balancer may send each request anywhere.
 * Only a hash of the cookie's id is kept (a copy of the store signs nobody in); times are the store's clock, so
 * instances whose clocks differ agree on expiry.
 */
export interface WebSessionStore {
  /** Records a new session; beyond `limits.max` live sessions the least recently used are removed. */
  create(idHash: string, limits: WebSessionLimits): Promise<void>;
  /** True and touched when the session is live; false when unknown or expired (an expired one is removed). */
  touch(idHash: string, limits: WebSessionLimits): Promise<boolean>;
  destroy(idHash: string): Promise<void>;
  /** Live sessions now. */
  count(limits: WebSessionLimits): Promise<number>;
}

/** The shared state of one instance: what it reads per call, and what it must agree on with the others. */
export interface SharedState {
  readonly kind: 'file' | 'postgres';
  readonly perimeters: PerimeterStore;
  /** Held writes awaiting a person (issue 14); read from the store on every call, so every instance sees one state. */
  readonly proposals: ProposalStore;
  readonly counters: Counters;
  /** Signed-in browsers of the approval page (the file adapter: this process's memory). */
  readonly webSessions: WebSessionStore;
  /** When each agent last used its key, as every instance recorded it. */
  readonly agentUse: AgentUse;
  /** Recent activity and leases of agents (issue 23 §2): shared, so every instance tells an agent the same. */
  readonly presence: PresenceStore;
  /** The store's copy of every instance's audit chain; absent on the file store (one instance, nothing to ship). */
  readonly audit?: AuditCopy;
  /** Instances whose heartbeat is recent (the file adapter: this process only). */
  instances(): Promise<readonly InstanceInfo[]>;
  health(): StoreHealth;
  /**
   * 32 random bytes named `name`, created once and the same for every instance on the store: a change cursor sealed by
   * one instance must open on the next one a balancer picks.
   */
  sharedKey(name: string): Promise<Uint8Array>;
  /** Records the GitHub budget this instance just saw; best effort, never throws. */
  sawQuota(q: QuotaSighting): void;
  /** The most recent GitHub budget any instance saw, if any. */
  quota(): QuotaSighting | undefined;
  /**
   * One writer per repository branch across every instance on the store (issue 21 §4); absent for a store only one
   * process uses (the file store), where each adapter's own queue already serialises the writes.
   */
  readonly branchLock?: BranchLock;
  close(): Promise<void>;
}

/** Where one instance's chain ends in the store's copy: its last shipped entry. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * One chained audit-ledger entry as an instance ships it: `line` is the entry exactly as chained (its canonical JSON,
 * without the newline), so the copy re-verifies byte for byte; the other fields are copied out of it for queries.
 */
export interface AuditShipEntry {
  readonly seq: number;
  readonly hash: string;
  readonly line: string;
  readonly ts: string;
  readonly kind: 'event' | 'checkpoint';
  readonly perimeter?: string | undefined;
  readonly tool?: string | undefined;
  readonly client?: string | undefined;
  readonly verdict?: string | undefined;
}

/**
 * How long the store keeps one instance's copy: that ledger's own retention (`--audit-keep` segments beyond the active
 * one, never a segment whose entries are younger than `--audit-min-age`), judged on the database's clock.
 */
export interface AuditRetention {
  readonly keep: number;
  readonly minAgeMs: number;
}

/** What one retention sweep deleted: rows, and instances dropped whole (silent and entirely past their age). */
export interface AuditSweep {
  readonly entries: number;
  readonly instances: number;
}

/** `moved`: the store's head for this instance is not the one the shipper continued from (nothing was written). */
export type AuditShipOutcome =
  | { readonly kind: 'shipped'; readonly head: AuditHead }
  | { readonly kind: 'moved'; readonly head: AuditHead | undefined };

/** A time-ordered read of every instance's events; all conditions hold, `since`/`until` bound `ts` (inclusive). */
export interface AuditCopyQuery {
  readonly perimeter?: string | undefined;
  readonly client?: string | undefined;
  readonly tool?: string | undefined;
  readonly verdict?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  /** `oldest`: from the start (or after `after`); `newest`: the last `limit` events, still returned oldest first. */
  readonly from: 'oldest' | 'newest';
  readonly after?: AuditCopyPosition | undefined;
  readonly limit: number;
}

/** Where a time-ordered read stands: events are ordered by (ts, instance, seq). */
export interface AuditCopyPosition {
  readonly ts: string;
  readonly instance: string;
  readonly seq: number;
}

/** One stored entry: the instance's ledger it came from, its place in that chain, and its line as chained. */
export interface AuditCopyEntry {
  readonly instance: string;
  readonly seq: number;
  /** The copied-out columns, as the store holds them (the verifier checks them against the line). */
  readonly ts: string;
  readonly kind: string;
  readonly perimeter: string | null;
  readonly tool: string | null;
  readonly client: string | null;
  readonly verdict: string | null;
  readonly line: string;
}

/** An instance known to the copy: its shipped head (absent when rows exist without one, itself a finding). */
export interface AuditCopyInstance {
  readonly instance: string;
  readonly head?: AuditHead | undefined;
  readonly shippedAt?: string | undefined;
}

/**
 * The store's copy of every instance's audit chain (PostgreSQL only; the file store has one instance and nothing to
 * ship). Each instance appends locally first and ships here afterwards, so a call never waits on the database.
 */
export interface AuditCopy {
  /** This instance's shipped head; undefined when nothing was shipped yet. */
  head(instance: string): Promise<AuditHead | undefined>;
  /**
   * Appends `entries` (consecutive, continuing `after`) and moves the head, in one transaction: a restart resumes at
   * the head, so nothing is shipped twice or skipped. Refuses with `moved` when the head is no longer `after`.
   */
  ship(
    instance: string,
    after: AuditHead | undefined,
    entries: readonly AuditShipEntry[],
    retention?: AuditRetention,
  ): Promise<AuditShipOutcome>;
  /**
   * Applies each instance's retention (recorded with its head; `defaults` when it recorded none) to its copy: whole
   * segments only (the rows before a checkpoint), so every chain still starts at entry 1 or at a checkpoint and
   * verifies. An instance that shipped nothing for `silentAfterMs` (or its own minimum age, if longer) and holds no
   * entry younger than that is dropped whole, head included. Idempotent and safe for every instance to run at once.
   */
  sweep(o: { readonly defaults: AuditRetention; readonly silentAfterMs: number }): Promise<AuditSweep>;
  /** Every instance with a head or with rows. */
  instances(): Promise<readonly AuditCopyInstance[]>;
  /** Events of every instance, merged in time order. */
  query(q: AuditCopyQuery): Promise<readonly AuditCopyEntry[]>;
  /** One instance's entries (events and checkpoints) with seq > afterSeq, in seq order, at most `limit`. */
  chain(instance: string, afterSeq: number, limit: number): Promise<readonly AuditCopyEntry[]>;
}
