// What one perimeter may make the server store as proposals, and which stored records make room for a new one.
// Pure: both state adapters (file, PostgreSQL) ask `admitProposal` under their own per-perimeter lock, so the bounds
// are decided in one place and hold whatever tool made the proposal.
import { isTerminal, type Proposal, type ProposalStatus } from './proposal.js';

/** The store's bounds per perimeter (issue 19): every status counts, and so does every byte an agent sent. */
export interface ProposalBounds {
  /** Records one perimeter may have stored, whatever their status. */
  readonly maxRecords: number;
  /** Bytes (`proposalBytes`) one perimeter's stored records may hold together. */
  readonly maxBytes: number;
  /** Bytes one record may hold when it is stored. */
  readonly maxRecordBytes: number;
  /** How long a finished record (applied, failed, rejected, cancelled, expired) is kept after its last change. */
  readonly keepTerminalMs: number;
}

/**
 * 200 records, 32 MiB per perimeter, 8 MiB per record (the default `/mcp` body limit, so any change an agent can send
 * fits), finished records kept 7 days: long enough for the agent to read an outcome with proposal_status and for an
 * operator to review the week on the console. The audit ledger keeps every transition (id, hash, who, when) for good.
 */
export const DEFAULT_PROPOSAL_BOUNDS: ProposalBounds = {
  maxRecords: 200,
  maxBytes: 32 * 1024 * 1024,
  maxRecordBytes: 8 * 1024 * 1024,
  keepTerminalMs: 7 * 24 * 60 * 60 * 1000,
};

/** What admission needs to know of a stored record. */
export interface StoredSize {
  readonly id: string;
  readonly status: ProposalStatus;
  readonly bytes: number;
  /** ISO time of its last change. */
  readonly updated_at: string;
}

/** The size a record counts for: the UTF-8 bytes of its JSON, the same number for every adapter. */
export function proposalBytes(p: Proposal): number {
  return new TextEncoder().encode(JSON.stringify(p)).length;
}

/** The stored-size summary of a record. */
export function sizeOf(p: Proposal): StoredSize {
  return { id: p.id, status: p.status, bytes: proposalBytes(p), updated_at: p.updated_at };
}

/** A new record is stored after the finished records in `evict` are deleted, or refused with a message for the agent. */
export type Admission =
  { readonly kind: 'admit'; readonly evict: readonly string[] } | { readonly kind: 'refuse'; readonly message: string };

const oldestFirst = (a: StoredSize, b: StoredSize): number =>
  a.updated_at === b.updated_at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.updated_at < b.updated_at ? -1 : 1;

/**
 * Decides whether `incoming` may join a perimeter's `stored` records (all of that perimeter's, any status). Finished
 * records past `keepTerminalMs` (measured at the new record's `updated_at`) go first; then, while the count or the bytes
 * would exceed the bounds, the oldest finished ones. Open records (pending, approved, applying) are never evicted: when
 * they alone leave no room the new record is refused, and nothing is deleted.
 */
export function admitProposal(stored: readonly StoredSize[], incoming: StoredSize, bounds: ProposalBounds): Admission {
  if (incoming.bytes > bounds.maxRecordBytes) {
    return {
      kind: 'refuse',
      message: `This change is too large to hold for approval (${incoming.bytes} bytes stored, at most ${bounds.maxRecordBytes}). Nothing was proposed; split it into smaller changes.`,
    };
  }
  const now = Date.parse(incoming.updated_at);
  const evict: string[] = [];
  const finished: StoredSize[] = [];
  let count = 0;
  let bytes = 0;
  for (const s of stored) {
    if (isTerminal(s) && Date.parse(s.updated_at) + bounds.keepTerminalMs <= now) {
      evict.push(s.id);
      continue;
    }
    count += 1;
    bytes += s.bytes;
    if (isTerminal(s)) finished.push(s);
  }
  finished.sort(oldestFirst);
  for (const s of finished) {
    if (count + 1 <= bounds.maxRecords && bytes + incoming.bytes <= bounds.maxBytes) break;
    evict.push(s.id);
    count -= 1;
    bytes -= s.bytes;
  }
  if (count + 1 > bounds.maxRecords) {
    return {
      kind: 'refuse',
      message: `${count} proposals of this perimeter are still open; wait for decisions or cancel some (proposal_cancel). Nothing was proposed.`,
    };
  }
  if (bytes + incoming.bytes > bounds.maxBytes) {
    return {
      kind: 'refuse',
      message: `The open proposals of this perimeter already hold ${bytes} bytes; with this one (${incoming.bytes}) that is over ${bounds.maxBytes}. Wait for decisions or cancel some (proposal_cancel). Nothing was proposed.`,
    };
  }
  return { kind: 'admit', evict };
}
