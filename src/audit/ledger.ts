// The ledger handle: validates options (failing closed on a bad key), serialises appends within the process through a
// bounded two-lane queue, and turns every append failure into degraded state plus a log line. The file work is in
// writer.ts. Each append costs a lock and an fsync, so a flood of cheap requests (unauthenticated /api 401s) outruns
// the disk: those go to the bulk lane, where repeats merge into one counted entry and the lane has a fixed size,
// and every entry of the calls lane (agent and operator calls) is written before any bulk entry.
import { lstat, mkdir } from 'node:fs/promises';
import { loadSigner, type Signer, type SigningKeyConfig } from './keys.js';
import { AuditEvent } from './record.js';
import { Writer } from './writer.js';

/** Where the ledger reports its own trouble; it never throws into the caller. */
export type AuditLog = (level: 'warn' | 'error', message: string, detail?: Record<string, unknown>) => void;

/** How to open a ledger. Sizes are bytes; `salt` should be at least 16 random bytes (see loadOrCreateSalt). */
export interface LedgerOptions {
  dir: string;
  /** Active file name inside dir; default `audit.jsonl`. */
  fileName?: string;
  salt: Buffer | string;
  /** Store paths and args as given instead of salted HMACs. */
  clearPaths?: boolean;
  signingKey?: SigningKeyConfig;
  /** Rotate before the active file would exceed this; default 10 MiB. */
  maxBytes?: number;
  /** Rotated segments retained; default 5. */
  keep?: number;
  now?: () => Date;
  log?: AuditLog;
  /** Entries the bulk lane may hold (distinct merge keys); beyond it bulk entries are dropped and counted. Default 1024. */
  maxBulk?: number;
  /** Entries the calls lane may hold; beyond it entries are dropped and counted (a stuck disk). Default 10 000. */
  maxCalls?: number;
  /** Wait at most this long for the cross-process lock; default 10 s. */
  lockTimeoutMs?: number;
  /** A lock older than this is abandoned; default 30 s. */
  staleLockMs?: number;
}

/** Health of the appender. `ok` is the outcome of the last append; `failures` never goes down. */
export interface LedgerState {
  ok: boolean;
  lastError?: string;
  /** Events appended through this handle. */
  entries: number;
  failures: number;
  lastSeq?: number;
  file: string;
  /** Entries waiting to be written, both lanes. */
  queued: number;
  /** Bulk events merged into a waiting entry (each still counted in that entry's `count`). */
  coalesced: number;
  /** Events never written because their lane was full. */
  dropped: number;
}

/** How one event is queued. */
export interface AppendOptions {
  /** `calls` (default) is written first; `bulk` is for floods of refusals: bounded, merged, written last. */
  lane?: 'calls' | 'bulk';
  /** Bulk events with the same key that meet while waiting become one entry with a `count`. */
  coalesce?: string;
}

/** An open ledger. append() never rejects: a failure degrades state() and goes to the log callback. */
export interface Ledger {
  /** Queues one event, stamped now unless it carries `at`; resolves once it is written (or dropped). */
  append(e: AuditEvent, o?: AppendOptions): Promise<void>;
  state(): LedgerState;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

/** Opens (creating if needed) a ledger. Rejects on bad configuration, above all a configured key that cannot sign. */
export async function openLedger(o: LedgerOptions): Promise<Ledger> {
  const fileName = o.fileName ?? 'audit.jsonl';
  if (fileName === '' || fileName === '.' || fileName === '..' || /[/\\\0]/.test(fileName)) {
    throw new Error('audit: fileName must be a plain file name');
  }
  const salt = typeof o.salt === 'string' ? Buffer.from(o.salt, 'utf8') : o.salt;
  if (salt.length < 16) throw new Error('audit: the salt must be at least 16 bytes');
  const maxBytes = o.maxBytes ?? 10 * MiB;
  if (!Number.isInteger(maxBytes) || maxBytes < 4096) throw new Error('audit: maxBytes must be an integer >= 4096');
  const keep = o.keep ?? 5;
  if (!Number.isInteger(keep) || keep < 0) throw new Error('audit: keep must be an integer >= 0');
  let signer: Signer | undefined;
  if (o.signingKey !== undefined) {
    const loaded = loadSigner(o.signingKey);
    if (!loaded.ok) throw new Error(`audit: ${loaded.message}`);
    signer = loaded.value;
  }
  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  const dirStat = await lstat(o.dir);
  if (!dirStat.isDirectory()) throw new Error('audit: dir must be a directory, not a symlink');
  if (process.platform !== 'win32' && (dirStat.mode & 0o022) !== 0) {
    throw new Error('audit: dir must not be writable by group or others');
  }
  const writer = new Writer({
    dir: o.dir,
    base: fileName,
    salt,
    redaction: o.clearPaths === true ? 'clear' : 'hmac-sha256',
    signer,
    maxBytes,
    keep,
    now: o.now ?? (() => new Date()),
    timing: { timeoutMs: o.lockTimeoutMs ?? 10_000, staleMs: o.staleLockMs ?? 30_000 },
  });
  const log = o.log;
  const state: LedgerState = { ok: true, entries: 0, failures: 0, file: writer.active, queued: 0, coalesced: 0, dropped: 0 };
  const now = o.now ?? (() => new Date());
  const maxBulk = o.maxBulk ?? 1024;
  const maxCalls = o.maxCalls ?? 10_000;
  let closed = false;

  const report = (level: 'warn' | 'error', message: string, detail?: Record<string, unknown>): void => {
    try {
      log?.(level, message, detail);
    } catch {
      // A broken logger must not turn an audit problem into a tool failure.
    }
  };
  writer.warn = (m) => report('warn', m, { file: writer.active });

  const appendOne = async (e: AuditEvent): Promise<void> => {
    try {
      if (closed) throw new Error('ledger is closed');
      const parsed = AuditEvent.safeParse(e);
      if (!parsed.success) throw new Error(`invalid audit event: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
      const seq = await writer.append(parsed.data);
      state.ok = true;
      state.entries += 1;
      state.lastSeq = seq;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      state.ok = false;
      state.failures += 1;
      state.lastError = message;
      report('error', `audit append failed: ${message}`, { file: writer.active, tool: e?.tool });
    }
  };

  // One waiting entry. Merged repeats share its promise, so a flood costs one closure per entry, not per request.
  interface Waiting {
    e: AuditEvent;
    count: number;
    lastAt: string | undefined;
    key: string | undefined;
    done: Promise<void>;
    resolve: () => void;
  }
  const calls: Waiting[] = [];
  const bulk: Waiting[] = [];
  const bulkByKey = new Map<string, Waiting>();
  let draining: Promise<void> | undefined;
  let droppedReported = 0;

  const waiting = (e: AuditEvent, key: string | undefined): Waiting => {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    return { e, count: e.count ?? 1, lastAt: undefined, key, done, resolve };
  };
  const drop = (): Promise<void> => {
    state.dropped += 1;
    // One log line per thousand drops: the log must not become the next unbounded queue.
    if (state.dropped - droppedReported >= 1000 || droppedReported === 0) {
      droppedReported = state.dropped;
      report('warn', 'audit queue full: events dropped', { dropped: state.dropped, file: writer.active });
    }
    return Promise.resolve();
  };
  const drain = async (): Promise<void> => {
    for (;;) {
      const next = calls.shift() ?? bulk.shift();
      if (next === undefined) return;
      if (next.key !== undefined && bulkByKey.get(next.key) === next) bulkByKey.delete(next.key);
      state.queued = calls.length + bulk.length;
      const e: AuditEvent = next.count > 1 ? { ...next.e, count: next.count, ...(next.lastAt ? { lastAt: next.lastAt } : {}) } : next.e;
      await appendOne(e);
      next.resolve();
    }
  };
  const kick = (): void => {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (calls.length + bulk.length > 0) kick();
    });
  };

  return {
    append(e, opts = {}) {
      // The event's own time, taken here: a write that waits must not move it.
      const at = e.at ?? now().toISOString();
      const stamped: AuditEvent = { ...e, at };
      if (opts.lane === 'bulk') {
        const merged = opts.coalesce === undefined ? undefined : bulkByKey.get(opts.coalesce);
        if (merged) {
          merged.count += 1;
          merged.lastAt = at;
          state.coalesced += 1;
          return merged.done;
        }
        if (bulk.length >= maxBulk) return drop();
        const w = waiting(stamped, opts.coalesce);
        bulk.push(w);
        if (opts.coalesce !== undefined) bulkByKey.set(opts.coalesce, w);
        state.queued = calls.length + bulk.length;
        kick();
        return w.done;
      }
      if (calls.length >= maxCalls) return drop();
      const w = waiting(stamped, undefined);
      calls.push(w);
      state.queued = calls.length + bulk.length;
      kick();
      return w.done;
    },
    state: () => ({ ...state }),
    async close() {
      while (draining) await draining;
      closed = true;
    },
  };
}

