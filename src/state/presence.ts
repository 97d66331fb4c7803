// The presence port (types only): what agents did recently on a repository branch, and the leases they hold. Kept in
// the shared store, so every instance tells an agent the same thing; what an agent may see of it is decided in
// core/presence.ts. The file adapter keeps it in memory (one process: a restart forgets presence and drops leases).

/** A sign of life (`seen`, any call) or a write that landed (`wrote`, with the paths it changed). */
export interface ActivityNote {
  readonly kind: 'seen' | 'wrote';
  readonly perimeter: string;
  readonly agent: string;
  readonly repo: string;
  readonly branch: string;
  /** Paths written (`wrote`); empty for `seen`. */
  readonly paths: readonly string[];
  /**
   * The most `wrote` notes the noting perimeter keeps on the repository (`activityKeep`: at least what its write budget
   * allows within the keep time); ACTIVITY_MAX_PER_PERIMETER when absent.
   */
  readonly keep?: number;
}

/** A note as stored, stamped with the store's clock (ISO). */
export interface ActivityEntry extends ActivityNote {
  readonly at: string;
}

/** A lease an agent holds on paths of one branch: other agents' writes there are refused until it ends. */
export interface Lease {
  readonly id: string;
  readonly perimeter: string;
  readonly agent: string;
  readonly repo: string;
  readonly branch: string;
  /** Globs the holder named. */
  readonly patterns: readonly string[];
  /** The holder's write globs when it took the lease: a lease binds only paths its holder may write. */
  readonly write: readonly string[];
  /** ISO, on the store's clock. */
  readonly expiresAt: string;
}

/** What an agent asks for when it takes a lease. */
export interface LeaseRequest {
  readonly perimeter: string;
  readonly agent: string;
  readonly repo: string;
  readonly branch: string;
  readonly patterns: readonly string[];
  readonly write: readonly string[];
  readonly ttlSeconds: number;
  /** Leases one agent may hold at once (its expired ones do not count). */
  readonly maxPerAgent: number;
}

/** What `acquire` did: the new lease, or the agent's own bound reached (nothing stored). */
export type AcquireOutcome =
  { readonly kind: 'acquired'; readonly lease: Lease } | { readonly kind: 'limit'; readonly held: number };

export interface PresenceStore {
  /** Records a note; `seen` notes replace the same agent's previous one on that branch (they never accumulate). */
  note(n: ActivityNote): Promise<void>;
  /** Notes on `repo`/`branch` younger than `windowMs` (the store's clock), newest first. */
  recent(repo: string, branch: string, windowMs: number): Promise<readonly ActivityEntry[]>;
  /** Takes a lease, unless the agent already holds `maxPerAgent` live ones. */
  acquire(r: LeaseRequest): Promise<AcquireOutcome>;
  /** Ends a lease the agent holds; false when it holds none by that id (gone, expired, or another agent's). */
  release(id: string, perimeter: string, agent: string): Promise<boolean>;
  /** Live leases on `repo`/`branch`. */
  leases(repo: string, branch: string): Promise<readonly Lease[]>;
  /** Ends every lease of an agent (its key was revoked), or of a whole perimeter when `agent` is undefined. */
  drop(perimeter: string, agent?: string): Promise<void>;
}
