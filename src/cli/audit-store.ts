// One audit answer for every instance (issue 21): readers over the store's copy (PostgreSQL) for `audit query|tail|
// verify --store` and `GET /api/audit`, and the same answer from this instance's own ledger on the file store.
import { queryLedger, verifyCopy, type LedgerEntry } from '../audit/index.js';
import type { AuditRead, AuditReader } from '../http/api/audit.js';
import type { AuditAnswer, AuditEntryView } from '../http/api/schema.js';
import { describeStore, openAuditCopyReader } from '../state/postgres/index.js';
import type { AuditCopy, AuditCopyEntry, AuditCopyQuery } from '../state/types.js';
import { CliError } from './client.js';

/** The instance name of the file store's single ledger in answers. */
export const LOCAL_INSTANCE = 'local';

/** The event fields an answer shows (the line's own, as chained; sealing fields but the hash left out). */
export function entryView(instance: string, e: LedgerEntry): AuditEntryView {
  return {
    instance,
    seq: e.seq,
    ts: e.ts,
    surface: e.surface,
    ...(e.perimeter === undefined ? {} : { perimeter: e.perimeter }),
    ...(e.branch === undefined ? {} : { branch: e.branch }),
    tool: e.tool,
    ...(e.client === undefined ? {} : { client: e.client }),
    verdict: e.verdict,
    result: e.result,
    bytes: e.bytes,
    duration_ms: e.duration_ms,
    ...(e.commit === undefined ? {} : { commit: e.commit }),
    ...(e.count === undefined ? {} : { count: e.count }),
    ...(e.last_ts === undefined ? {} : { last_ts: e.last_ts }),
    ...(e.source === undefined ? {} : { source: e.source }),
    redaction: e.redaction,
    ...(e.paths === undefined ? {} : { paths: e.paths }),
    hash: e.hash,
  };
}

/** A stored line as a ledger entry; a line that does not parse is a damaged copy (verify says where). */
function parsed(row: AuditCopyEntry): LedgerEntry {
  try {
    return JSON.parse(row.line) as LedgerEntry;
  } catch {
    throw new CliError(`The store's copy of ${row.instance} entry ${row.seq} is not JSON; run "audit verify --store".`);
  }
}

const filterOf = (q: Omit<AuditRead, 'limit'>): Omit<AuditCopyQuery, 'from' | 'limit' | 'after'> => ({
  perimeter: q.perimeter,
  client: q.client,
  tool: q.tool,
  verdict: q.verdict,
  since: q.since,
  until: q.until,
});

/** `GET /api/audit` on PostgreSQL: every instance's shipped events, newest `limit`, oldest first. */
export function storeAuditReader(copy: AuditCopy): AuditReader {
  return async (q) => {
    try {
      const rows = await copy.query({ ...filterOf(q), from: 'newest', limit: q.limit + 1 });
      const truncated = rows.length > q.limit;
      const kept = truncated ? rows.slice(1) : rows;
      const instances = await copy.instances();
      const value: AuditAnswer = {
        source: 'store',
        entries: kept.map((r) => entryView(r.instance, parsed(r))),
        truncated,
        instances: instances.map((i) => ({
          instance: i.instance,
          shipped_seq: i.head?.seq ?? null,
          shipped_at: i.shippedAt ?? null,
        })),
      };
      return { ok: true, value };
    } catch (e) {
      if (e instanceof CliError) throw e;
      return {
        ok: false,
        code: 'unavailable',
        message: `The store does not answer (${(e as Error).message}); every instance keeps its entries on disk until it does.`,
      };
    }
  };
}

/** `GET /api/audit` on the file store: this instance's own ledger is every instance's. */
export function ledgerAuditReader(file: () => string): AuditReader {
  return async (q) => {
    const window: AuditEntryView[] = [];
    let matched = 0;
    for await (const e of queryLedger(file(), {
      ...(q.perimeter === undefined ? {} : { perimeter: q.perimeter }),
      ...(q.client === undefined ? {} : { client: q.client }),
      ...(q.tool === undefined ? {} : { tool: q.tool }),
      ...(q.verdict === undefined ? {} : { verdict: q.verdict }),
      ...(q.since === undefined ? {} : { since: new Date(q.since) }),
      ...(q.until === undefined ? {} : { until: new Date(q.until) }),
    })) {
      matched += 1;
      window.push(entryView(LOCAL_INSTANCE, e));
      if (window.length > q.limit) window.shift();
    }
    return { ok: true, value: { source: 'ledger', entries: window, truncated: matched > q.limit, instances: [] } };
  };
}

/** Opens the store's copy for a reader command; a store that cannot be read is exit 1 with a message naming no secret. */
export async function openCopyForCli(url: string): Promise<{ copy: AuditCopy; close(): Promise<void> }> {
  const opened = await openAuditCopyReader(url);
  if (!opened.ok) throw new CliError(opened.message);
  return opened;
}

/** Every matching event of the store's copy, oldest first; `limit`: only the newest that many. */
export async function storeEvents(
  copy: AuditCopy,
  q: Omit<AuditRead, 'limit'> & { limit?: number | undefined },
): Promise<{ instance: string; entry: LedgerEntry }[]> {
  const filter = filterOf(q);
  const out: { instance: string; entry: LedgerEntry }[] = [];
  try {
    if (q.limit !== undefined) {
      if (q.limit <= 0) return out;
      for (const r of await copy.query({ ...filter, from: 'newest', limit: q.limit }))
        out.push({ instance: r.instance, entry: parsed(r) });
      return out;
    }
    // Page by position so a long history never sits in one answer.
    for (let after: AuditCopyQuery['after']; ;) {
      const page = await copy.query({ ...filter, from: 'oldest', limit: 1000, ...(after ? { after } : {}) });
      for (const r of page) out.push({ instance: r.instance, entry: parsed(r) });
      const last = page.at(-1);
      if (last === undefined || page.length < 1000) return out;
      after = { ts: last.ts, instance: last.instance, seq: last.seq };
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`Cannot read the store's audit copy (${(e as Error).message}).`);
  }
}

/** `audit verify --store`: one line per instance; exit 0 all intact, 3 any broken, 2 usage. */
export async function verifyStoreCopy(
  copy: AuditCopy,
  url: string,
  o: { publicKeys: Record<string, string>; requireSigned: boolean },
): Promise<{ exitCode: 0 | 2 | 3; lines: string[] }> {
  let outcome;
  try {
    outcome = await verifyCopy(copy, o);
  } catch (e) {
    throw new CliError(`Cannot read the store's audit copy (${(e as Error).message}).`);
  }
  if (!outcome.ok) return { exitCode: 2, lines: [outcome.usage] };
  const where = describeStore(url);
  if (outcome.reports.length === 0) return { exitCode: 3, lines: [`no audit entries in the store at ${where}`] };
  const lines: string[] = [];
  for (const r of outcome.reports) {
    if (r.ok)
      lines.push(
        `${r.instance}: verified, ${r.entries} entries, seq ${r.firstSeq ?? '-'}..${r.lastSeq ?? '-'}${r.startsAfterPruning ? ' (shipping began after older segments were pruned)' : ''}`,
      );
    else lines.push(`${r.instance}: FAILED: ${r.code}: ${r.message} (after ${r.entries} good entries)`);
  }
  const broken = outcome.reports.filter((r) => !r.ok).length;
  lines.unshift(
    broken === 0
      ? `audit copy verified: ${outcome.reports.length} instance(s) in the store at ${where}`
      : `audit copy FAILED: ${broken} of ${outcome.reports.length} instance(s) in the store at ${where}`,
  );
  if (!outcome.signaturesChecked) lines.push('signatures NOT checked: no public key given');
  return { exitCode: broken === 0 ? 0 : 3, lines };
}
