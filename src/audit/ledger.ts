// The ledger handle: validates options (failing closed on a bad key), serialises appends within the process through a
// two-lane queue drained in batches (group commit, see writer.ts: one lock, one write and one fdatasync per batch, so
// the batch grows with the load), and turns every failure into degraded state plus a log line.
// - calls lane (agent and operator calls): never dropped while there is room. Each perimeter (a `share`) has its fair
//   part of the lane; a call whose share is full waits (bounded) for room before it is answered — back-pressure slows
//   the producer instead of losing its entry. Only a lane full to 2 × `maxCalls` after that wait drops, and any drop or
//   failed write is a loss: `lost` goes up and never down, and the status shows `degraded`.
// - bulk lane (floods of unauthenticated /api refusals): repeats merge into one counted entry, written after every
//   call entry; when it is full, new keys merge into one overflow entry per route and status instead of being dropped.
import { lstat, mkdir } from 'node:fs/promises';
import { loadSigner, type Signer, type SigningKeyConfig } from './keys.js';
import { AuditEvent } from './record.js';
import { DEFAULT_KEEP, DEFAULT_MIN_AGE_MS, Writer, type Retention } from './writer.js';

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
  /**
   * Entries the calls lane holds before calls wait for room (each perimeter its fair part); a call whose bounded wait
   * ends is queued anyway up to twice this, and only beyond that dropped and counted (a stuck disk). Default 10 000.
   */
  maxCalls?: number;
  /** Wait at most this long for the cross-process lock; default 10 s. */
  lockTimeoutMs?: number;
  /** A lock older than this is abandoned; default 30 s. */
  staleLockMs?: number;
  /** A segment whose newest entry is younger than this is never pruned (the ledger grows); default 30 days. */
  minAgeMs?: number;
  /** How long a call may wait for room in its share of the calls lane before it is queued anyway; default 5 s. */
  maxWaitMs?: number;
  /** Events written per batch at most; default 4096. */
  maxBatch?: number;
  /** Shipped to a store (issue 21): the highest seq the store holds; segments past it are never pruned. */
  shippedThrough?: () => number;
  /** Called after each durable batch with the last seq written (the shipper reads no further). */
  onDurable?: (seq: number) => void;
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
  /** Events never written, for any reason (dropped, or a failed write); any value above 0 means `degraded`. */
  lost: number;
  /** Calls that waited for room in their perimeter's share of the queue (back-pressure), and the longest wait. */
  waited: number;
  maxWaitedMs: number;
  /** Write batches (group commits) and the largest one. */
  batches: number;
  maxBatch: number;
  /** Retention: segments kept beyond `keep` because they are younger than the minimum age; segments pruned. */
  retention: Retention;
}

/** How one event is queued. */
export interface AppendOptions {
  /** `calls` (default) is written first; `bulk` is for floods of refusals: bounded, merged, written last. */
  lane?: 'calls' | 'bulk';
  /** Bulk events with the same key that meet while waiting become one entry with a `count`. */
  coalesce?: string;
  /** Calls lane: whose fair part of the queue the event takes (a perimeter id); default one shared part. */
  share?: string;
}

/** One queued event: `admitted` once it holds a place in the queue (what a call waits for), `written` once durable. */
export interface Submitted {
  admitted: Promise<void>;
  written: Promise<void>;
}

/** An open ledger. append() never rejects: a failure degrades state() and goes to the log callback. */
export interface Ledger {
  /** Queues one event, stamped now unless it carries `at`; resolves once it is written (or lost). */
  append(e: AuditEvent, o?: AppendOptions): Promise<void>;
  /** Queues one event; neither promise rejects. A caller that awaits `admitted` is slowed when its share is full. */
  submit(e: AuditEvent, o?: AppendOptions): Submitted;
  state(): LedgerState;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

/** Resolves in the next turn of the event loop, after what the current one still has to do (answers included). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
  const keep = o.keep ?? DEFAULT_KEEP;
  if (!Number.isInteger(keep) || keep < 0) throw new Error('audit: keep must be an integer >= 0');
  const minAgeMs = o.minAgeMs ?? DEFAULT_MIN_AGE_MS;
  if (!Number.isFinite(minAgeMs) || minAgeMs < 0) throw new Error('audit: minAgeMs must be a number >= 0');
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
    minAgeMs,
    shippedThrough: o.shippedThrough,
  });
  const log = o.log;
  const now = o.now ?? (() => new Date());
  const maxBulk = o.maxBulk ?? 1024;
  const maxCalls = o.maxCalls ?? 10_000;
  const maxWaitMs = o.maxWaitMs ?? 5_000;
  const maxBatch = o.maxBatch ?? 4096;
  const state: Omit<LedgerState, 'retention'> = {
    ok: true,
    entries: 0,
    failures: 0,
    file: writer.active,
    queued: 0,
    coalesced: 0,
    dropped: 0,
    lost: 0,
    waited: 0,
    maxWaitedMs: 0,
    batches: 0,
    maxBatch: 0,
  };
  let closed = false;

  const report = (level: 'warn' | 'error', message: string, detail?: Record<string, unknown>): void => {
    try {
      log?.(level, message, detail);
    } catch {
      // A broken logger must not turn an audit problem into a tool failure.
    }
  };
  writer.warn = (m) => report('warn', m, { file: writer.active });
  await writer.survey().catch((err: unknown) => report('warn', `audit: cannot survey the segments: ${String(err)}`));

  // One waiting entry. Merged repeats share its promise, so a flood costs one closure per entry, not per request.
  interface Waiting {
    e: AuditEvent;
    count: number;
    lastAt: string | undefined;
    key: string | undefined;
    share: string | undefined;
    done: Promise<void>;
    resolve: () => void;
  }
  const calls: Waiting[] = [];
  const bulk: Waiting[] = [];
  const bulkByKey = new Map<string, Waiting>();
  // Calls-lane entries queued per share, and calls waiting for room in their share.
  const perShare = new Map<string, number>();
  const blocked = new Map<string, Array<() => void>>();
  let draining: Promise<void> | undefined;
  let lossReported = 0;

  const sync = (): void => {
    state.queued = calls.length + bulk.length;
  };
  const waiting = (e: AuditEvent, key: string | undefined, share: string | undefined): Waiting => {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    return { e, count: e.count ?? 1, lastAt: undefined, key, share, done, resolve };
  };
  const lose = (n: number, why: string): void => {
    state.lost += n;
    // One log line per thousand losses: the log must not become the next unbounded queue.
    if (state.lost - lossReported >= 1000 || lossReported === 0) {
      lossReported = state.lost;
      report('error', `audit: events lost (${why}); the ledger is degraded`, { lost: state.lost, file: writer.active });
    }
  };
  // A share's fair part of the calls lane: the lane divided among the shares that have entries queued or waiting.
  const shareCap = (): number => {
    let active = perShare.size;
    for (const k of blocked.keys()) if (!perShare.has(k)) active += 1;
    return Math.max(1, Math.floor(maxCalls / Math.max(1, active)));
  };
  // The fair parts add up to maxCalls; a busy share's overflow after its wait must not take a quiet share's room.
  const hasRoom = (share: string): boolean => calls.length < 2 * maxCalls && (perShare.get(share) ?? 0) < shareCap();
  const wake = (): void => {
    for (const [share, list] of blocked) {
      while (list.length > 0 && hasRoom(share)) list.shift()?.();
      if (list.length === 0) blocked.delete(share);
    }
  };

  const validEvent = (w: Waiting): AuditEvent | undefined => {
    const e: AuditEvent = w.count > 1 ? { ...w.e, count: w.count, ...(w.lastAt ? { lastAt: w.lastAt } : {}) } : w.e;
    const parsed = AuditEvent.safeParse(e);
    if (parsed.success) return parsed.data;
    fail(1, `invalid audit event: ${parsed.error.issues[0]?.message ?? 'unknown'}`, e.tool);
    return undefined;
  };
  function fail(n: number, message: string, tool?: string): void {
    state.ok = false;
    state.failures += n;
    state.lastError = message;
    state.lost += n;
    report('error', `audit append failed: ${message}`, {
      file: writer.active,
      ...(tool === undefined ? {} : { tool }),
      events: n,
    });
  }

  const writeBatch = async (batch: Waiting[]): Promise<void> => {
    const events: AuditEvent[] = [];
    for (const w of batch) {
      const e = closed ? undefined : validEvent(w);
      if (e !== undefined) events.push(e);
    }
    if (closed) fail(batch.length, 'ledger is closed');
    if (events.length === 0) return;
    try {
      const seqs = await writer.appendBatch(events);
      state.ok = true;
      state.entries += events.length;
      state.batches += 1;
      state.maxBatch = Math.max(state.maxBatch, events.length);
      const last = seqs.at(-1);
      if (last !== undefined) state.lastSeq = last;
      // The writer's own last entry (a pruning note may follow the last event), durable now.
      const durable = writer.lastSeq();
      if (durable !== undefined) {
        try {
          o.onDurable?.(durable);
        } catch {
          // A listener's fault is not a write failure.
        }
      }
    } catch (err) {
      fail(events.length, err instanceof Error ? err.message : String(err), events[0]?.tool);
    }
  };

  const drain = async (): Promise<void> => {
    for (;;) {
      // Calls first, then bulk: a flood of refusals never delays an agent call's entry.
      const batch = calls.splice(0, maxBatch);
      if (batch.length < maxBatch) batch.push(...bulk.splice(0, maxBatch - batch.length));
      if (batch.length === 0) return;
      for (const w of batch) {
        if (w.key !== undefined && bulkByKey.get(w.key) === w) bulkByKey.delete(w.key);
        if (w.share !== undefined) {
          const n = (perShare.get(w.share) ?? 1) - 1;
          if (n > 0) perShare.set(w.share, n);
          else perShare.delete(w.share);
        }
      }
      sync();
      // Room was made when the batch left the queue: waiting calls go on while it is being written.
      wake();
      await writeBatch(batch);
      for (const w of batch) w.resolve();
    }
  };
  // The batch starts after the current turn: the call that queued an entry is answered first (sealing and the lock
  // are synchronous work that would otherwise run before its answer), and the entries of one turn share the batch.
  const kick = (): void => {
    draining ??= nextTurn()
      .then(drain)
      .finally(() => {
        draining = undefined;
        if (calls.length + bulk.length > 0) kick();
      });
  };

  const enqueueCall = (stamped: AuditEvent, share: string): Waiting | undefined => {
    if (calls.length >= 2 * maxCalls) {
      state.dropped += 1;
      lose(1, 'the call queue is full');
      return undefined;
    }
    const w = waiting(stamped, undefined, share);
    calls.push(w);
    perShare.set(share, (perShare.get(share) ?? 0) + 1);
    sync();
    kick();
    return w;
  };

  const submitBulk = (stamped: AuditEvent, coalesce: string | undefined): Promise<void> => {
    const merge = (key: string): Promise<void> | undefined => {
      const merged = bulkByKey.get(key);
      if (merged === undefined) return undefined;
      merged.count += 1;
      merged.lastAt = stamped.at;
      state.coalesced += 1;
      return merged.done;
    };
    let key = coalesce;
    const hit = key === undefined ? undefined : merge(key);
    if (hit) return hit;
    if (bulk.length >= maxBulk) {
      // Full of distinct sources: merge by route and status instead, so a spread-out flood is still counted.
      key = `\u0000overflow\u0000${stamped.tool}\u0000${stamped.result}`;
      const over = merge(key);
      if (over) return over;
      if (bulk.length >= 2 * maxBulk) {
        state.dropped += 1;
        lose(1, 'the refusal queue is full');
        return Promise.resolve();
      }
    }
    const w = waiting(stamped, key, undefined);
    bulk.push(w);
    if (key !== undefined) bulkByKey.set(key, w);
    sync();
    kick();
    return w.done;
  };

  const submit = (e: AuditEvent, opts: AppendOptions = {}): Submitted => {
    // The event's own time, taken here: a write that waits must not move it.
    const stamped: AuditEvent = { ...e, at: e.at ?? now().toISOString() };
    if (opts.lane === 'bulk') {
      const written = submitBulk(stamped, opts.coalesce);
      return { admitted: Promise.resolve(), written };
    }
    const share = opts.share ?? '';
    if (hasRoom(share) && !blocked.has(share)) {
      const w = enqueueCall(stamped, share);
      return { admitted: Promise.resolve(), written: w?.done ?? Promise.resolve() };
    }
    // Back-pressure: this share is full. Wait (bounded) for room; after the wait the entry is queued anyway while the
    // lane has room at all, so waiting slows the caller but never costs its entry.
    state.waited += 1;
    const started = Date.now();
    let written!: (p: Promise<void>) => void;
    const writtenP = new Promise<Promise<void>>((r) => (written = r)).then((p) => p);
    const admitted = new Promise<void>((resolve) => {
      let settled = false;
      const go = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const list = blocked.get(share);
        const at = list?.indexOf(go) ?? -1;
        if (list && at >= 0) list.splice(at, 1);
        if (list?.length === 0) blocked.delete(share);
        state.maxWaitedMs = Math.max(state.maxWaitedMs, Date.now() - started);
        written(enqueueCall(stamped, share)?.done ?? Promise.resolve());
        resolve();
      };
      const timer = setTimeout(go, maxWaitMs);
      timer.unref?.();
      const list = blocked.get(share) ?? [];
      list.push(go);
      blocked.set(share, list);
    });
    return { admitted, written: writtenP };
  };

  return {
    append: (e, opts) => submit(e, opts).written,
    submit,
    state: () => ({ ...state, retention: writer.retention() }),
    async close() {
      // Calls still waiting for room are queued now: a clean shutdown writes every entry it accepted.
      for (const list of [...blocked.values()]) for (const go of [...list]) go();
      while (draining) await draining;
      closed = true;
      await writer.close();
    },
  };
}
