// Reading events back for the operator: oldest retained segment first, then the active file, streamed.
// Querying does not verify; run verifyLedger for proof.
import { basename, dirname, join } from 'node:path';
import { listSegments, readLines } from './files.js';
import type { AuditVerdict, EventRecord } from './record.js';

/** One stored event as the operator reads it. */
export type LedgerEntry = EventRecord;

/** All given conditions must hold; `since`/`until` bound `ts` (inclusive); `limit` caps the number of results. */
export interface QueryFilter {
  perimeter?: string;
  agent?: string;
  client?: string;
  tool?: string;
  verdict?: AuditVerdict;
  since?: Date;
  until?: Date;
  limit?: number;
}

const matches = (r: EventRecord, f: QueryFilter): boolean => {
  if (f.perimeter !== undefined && r.perimeter !== f.perimeter) return false;
  if (f.agent !== undefined && r.agent !== f.agent) return false;
  if (f.client !== undefined && r.client !== f.client) return false;
  if (f.tool !== undefined && r.tool !== f.tool) return false;
  if (f.verdict !== undefined && r.verdict !== f.verdict) return false;
  const t = Date.parse(r.ts);
  if (f.since !== undefined && t < f.since.getTime()) return false;
  if (f.until !== undefined && t > f.until.getTime()) return false;
  return true;
};

/**
 * Streams matching events; throws on a line that is not JSON (a torn last line of the active file is skipped).
 * Not a snapshot: a rotation racing the query can make it miss or repeat the events of the file being rotated.
 */
export async function* queryLedger(file: string, filter: QueryFilter = {}): AsyncGenerator<LedgerEntry> {
  const dir = dirname(file);
  const base = basename(file);
  const { segments } = await listSegments(dir, base);
  const names = [...segments.map((s) => s.name), base];
  const limit = filter.limit ?? Infinity;
  let found = 0;
  if (limit <= 0) return;
  for (const name of names) {
    let lines;
    try {
      lines = readLines(join(dir, name));
      for await (const ev of lines) {
        if (ev.kind === 'too_long' || ev.kind === 'bad_utf8') throw new Error(`${name}:${ev.no}: unreadable line`);
        if (ev.kind !== 'line') continue;
        let rec: unknown;
        try {
          rec = JSON.parse(ev.text);
        } catch {
          throw new Error(`${name}:${ev.no}: line is not JSON`);
        }
        if ((rec as { kind?: unknown } | null)?.kind !== 'event') continue;
        if (!matches(rec as EventRecord, filter)) continue;
        yield rec as EventRecord;
        if (++found >= limit) return;
      }
    } catch (e) {
      // The active file may not exist yet, and a segment may be pruned while we read.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
  }
}
