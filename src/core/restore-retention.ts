// How long a restore point is kept. A point is the operator's only way back after an approved write, so the rule is
// one line they can read in `restore list`: kept for a fixed number of days after it was taken, and never while the
// proposal it was taken for is still within its TTL (a proposal can be approved until then, and its point with it).

/** Days a restore point is kept after it was taken, at least. */
export const RESTORE_KEEP_DAYS = 30;

const DAY_MS = 86_400_000;

/** What the rule reads of one point: when it was taken and when its proposal's TTL runs out (null: none known). */
export interface RetentionFacts {
  readonly takenAt: string | null;
  readonly proposalExpiresAt: string | null;
}

/** The operator-facing statement of the rule (shown by `restore list` and the API). */
export function retentionRule(keepDays: number = RESTORE_KEEP_DAYS): string {
  return `kept ${keepDays} days after it was taken, and never before its proposal's TTL has run out`;
}

/**
 * The moment a point may be pruned (ISO 8601), or null when it is kept indefinitely: a point whose time is unknown
 * (a push point with no proposal on record) is never pruned, since its age cannot be told.
 */
export function keptUntil(f: RetentionFacts, keepDays: number = RESTORE_KEEP_DAYS): string | null {
  const taken = f.takenAt === null ? NaN : Date.parse(f.takenAt);
  if (Number.isNaN(taken)) return null;
  let until = taken + keepDays * DAY_MS;
  const ttl = f.proposalExpiresAt === null ? NaN : Date.parse(f.proposalExpiresAt);
  if (!Number.isNaN(ttl)) until = Math.max(until, ttl);
  return new Date(until).toISOString();
}
