// Ships this instance's chain to the store's copy (issue 21), off the call path: the ledger appends and fsyncs locally
// as before, and this loop reads the files afterwards and sends what the store does not hold yet, in batches. The
// store keeps one head per instance, moved in the same transaction as the rows, so a restart resumes at the head:
// nothing is shipped twice or skipped. While the store is down the entries simply stay on disk (retention never prunes
// an entry that was not shipped) and go out when it answers again. The copy keeps what the ledger's own retention
// keeps: this loop records the ledger's retention with its head and sweeps the copy (every instance's) once an hour.
import { constants } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditCopy, AuditHead, AuditRetention, AuditShipEntry, AuditSweep } from '../state/types.js';
import { listSegments, readTail } from './files.js';
import type { AuditLog } from './ledger.js';
import { DEFAULT_KEEP, DEFAULT_MIN_AGE_MS } from './writer.js';

/** How to ship one ledger. */
export interface ShipperOptions {
  /** The ledger directory and active file name (default `audit.jsonl`). */
  dir: string;
  fileName?: string;
  /** This ledger's stable name in the store (see loadOrCreateInstanceId). */
  instance: string;
  copy: AuditCopy;
  log?: AuditLog;
  /** Pause between rounds; default 500 ms. */
  intervalMs?: number;
  /** Entries and bytes per batch (one transaction); defaults 1000 and 4 MiB. */
  maxEntries?: number;
  maxBytes?: number;
  /** This ledger's retention (its keep and minAgeMs), recorded with the head; default the ledger's defaults. */
  retention?: Partial<AuditRetention>;
  /** How often this instance sweeps the copy by retention (the first round sweeps too); default 1 hour. */
  sweepEveryMs?: number;
}

/** What the status shows about shipping. */
export interface ShipState {
  instance: string;
  /** The store's head for this ledger as last seen; undefined until the store first answered. */
  shippedSeq: number | undefined;
  /** The newest entry known durable on this disk. */
  localSeq: number;
  /** Entries shipped by this process, and in how many batches. */
  shipped: number;
  batches: number;
  /** Why the last round failed (the store did not answer): the entries wait on disk. */
  lastError?: string;
  /** Set when shipping stopped for good: the local chain does not continue the store's copy. */
  stopped?: string;
  /** The last retention sweep of the copy that completed: when (this clock) and what it deleted. */
  lastSweep?: AuditSweep & { at: string };
}

/** A running shipper. */
export interface Shipper {
  /** The ledger reports each durable batch's last seq; nothing past it is read. */
  durable(seq: number): void;
  /** The highest seq the store holds for this ledger; 0 while unknown (so retention prunes nothing unshipped). */
  shippedThrough(): number;
  /** One round now: ships everything durable, or stops at the first failure. */
  flush(): Promise<void>;
  state(): ShipState;
  /** A last round (bounded), then stops. */
  close(): Promise<void>;
}

/** Where the next read starts: the file (by inode), the byte after the last line taken, and the seq expected there. */
interface Cursor {
  ino: number;
  offset: number;
  next: number;
}

interface Batch {
  entries: AuditShipEntry[];
  cursor: Cursor | undefined;
}

class Stop extends Error {}

const CHUNK = 1024 * 1024;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const parse = (text: string, file: string): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new Stop(`${file}: a line is not a ledger entry`);
};

/** The seq of the last complete line on disk (active file, else the newest segment); 0 for an empty ledger. */
async function lastSeqOnDisk(dir: string, base: string): Promise<number> {
  const { segments } = await listSegments(dir, base).catch(() => ({ segments: [] }));
  for (const name of [base, ...segments.map((s) => s.name).reverse()]) {
    let fh: FileHandle | undefined;
    try {
      fh = await open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
      const tail = await readTail(fh, (await fh.stat()).size);
      if (tail.kind !== 'lines') continue;
      const seq = (JSON.parse(tail.last) as { seq?: unknown }).seq;
      if (typeof seq === 'number') return seq;
    } catch {
      // Missing or unreadable: the next file tells.
    } finally {
      await fh?.close();
    }
  }
  return 0;
}

/**
 * Starts shipping. Call it before the ledger accepts entries: what is on disk now is durable, and from then on the
 * ledger reports each batch through durable().
 */
export async function startShipper(o: ShipperOptions): Promise<Shipper> {
  const base = o.fileName ?? 'audit.jsonl';
  const maxEntries = o.maxEntries ?? 1000;
  const maxBytes = o.maxBytes ?? 4 * 1024 * 1024;
  const st: ShipState = {
    instance: o.instance,
    shippedSeq: undefined,
    localSeq: await lastSeqOnDisk(o.dir, base),
    shipped: 0,
    batches: 0,
  };
  let head: AuditHead | undefined;
  let known = false;
  let cursor: Cursor | undefined;
  let closed = false;
  let running: Promise<void> | undefined;
  const retention: AuditRetention = {
    keep: o.retention?.keep ?? DEFAULT_KEEP,
    minAgeMs: o.retention?.minAgeMs ?? DEFAULT_MIN_AGE_MS,
  };
  const sweepEveryMs = o.sweepEveryMs ?? 3_600_000;
  let sweptAt: number | undefined;

  const report = (level: 'warn' | 'error', message: string, detail?: Record<string, unknown>): void => {
    try {
      o.log?.(level, message, { instance: o.instance, ...detail });
    } catch {
      // A broken logger must not stop shipping.
    }
  };

  const findIno = async (list: readonly { name: string }[], ino: number): Promise<number | undefined> => {
    for (let j = list.length - 1; j >= 0; j--) {
      const s = await lstat(join(o.dir, list[j]?.name ?? '')).catch(() => undefined);
      if (s?.ino === ino) return j;
    }
    return undefined;
  };

  /** Every ledger file in chain order: rotated segments, then the active file. */
  const files = async (): Promise<{ name: string; last: number | undefined }[]> => {
    const { segments } = await listSegments(o.dir, base);
    return [...segments.map((s) => ({ name: s.name, last: s.last })), { name: base, last: undefined }];
  };

  /** Reads the next batch after `head`, up to the durable bound; checks that it continues the chain. */
  const buf = Buffer.alloc(CHUNK);
  const read = async (): Promise<Batch> => {
    const list = await files();
    let next = head === undefined ? undefined : head.seq + 1;
    let prevHash = head?.hash;
    let i = 0;
    let offset = 0;
    let from = cursor !== undefined && next === cursor.next ? cursor : undefined;
    if (from !== undefined) {
      // The cursor's file is usually still the active one; after a rotation it is the newest segment.
      const found = await findIno(list, from.ino);
      if (found === undefined) from = undefined;
      else {
        i = found;
        offset = from.offset;
      }
    }
    if (from === undefined && next !== undefined) {
      const n = next;
      i = list.findIndex((f) => f.last === undefined || f.last >= n);
    }
    const entries: AuditShipEntry[] = [];
    let bytes = 0;
    let at: Cursor | undefined;
    for (; i < list.length; i++, offset = 0) {
      const f = list[i];
      if (f === undefined) break;
      let fh: FileHandle;
      try {
        fh = await open(join(o.dir, f.name), constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (e) {
        // A segment pruned or the active file not created yet: what was read so far is shipped, the next round relocates.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') break;
        throw e;
      }
      try {
        const ino = (await fh.stat()).ino;
        for (;;) {
          const { bytesRead } = await fh.read(buf, 0, CHUNK, offset);
          if (bytesRead === 0) break;
          let start = 0;
          let full = false;
          for (let nl = buf.indexOf(10, start); nl !== -1 && nl < bytesRead; nl = buf.indexOf(10, start)) {
            const text = buf.subarray(start, nl).toString('utf8');
            const r = parse(text, f.name);
            const seq = r['seq'];
            const hash = str(r['hash']);
            if (typeof seq !== 'number' || hash === undefined) throw new Stop(`${f.name}: a line without seq or hash`);
            if (seq > st.localSeq) {
              // Not reported durable yet: the next round takes it.
              full = true;
              break;
            }
            bytes += nl + 1 - start;
            start = nl + 1;
            if (next !== undefined && seq < next) continue;
            const prev = str(r['prev_hash']);
            if (next === undefined) {
              // The first entry ever shipped: the chain's start, or a checkpoint after local pruning.
              if (!(seq === 1 ? prev === 'genesis' : r['kind'] === 'checkpoint'))
                throw new Stop(`${f.name}: the oldest entry on disk (seq ${seq}) does not start a chain`);
            } else if (seq !== next) {
              throw new Stop(`entries ${next}..${seq - 1} are not on this disk any more; they were never shipped`);
            } else if (prev !== prevHash) {
              throw new Stop(`entry ${seq} does not continue the chain the store holds for ${o.instance}`);
            }
            entries.push({
              seq,
              hash,
              line: text,
              ts: str(r['ts']) ?? '',
              kind: r['kind'] === 'checkpoint' ? 'checkpoint' : 'event',
              perimeter: str(r['perimeter']),
              tool: str(r['tool']),
              client: str(r['client']),
              verdict: str(r['verdict']),
            });
            next = seq + 1;
            prevHash = hash;
            if (entries.length >= maxEntries || bytes >= maxBytes) {
              full = true;
              break;
            }
          }
          offset += start;
          at = { ino, offset, next: next ?? 1 };
          if (full) return { entries, cursor: at };
          // No complete line in a full chunk cannot happen (a line is at most 256 KiB); a torn tail waits.
          if (start === 0) break;
        }
        if (f.last === undefined) return { entries, cursor: at };
      } finally {
        await fh.close();
      }
    }
    return { entries, cursor: at };
  };

  const round = async (): Promise<void> => {
    if (st.stopped !== undefined) return;
    try {
      if (!known) {
        head = await o.copy.head(o.instance);
        known = true;
        st.shippedSeq = head?.seq ?? 0;
      }
      for (let moves = 0; moves < 3;) {
        const batch = await read();
        if (batch.entries.length === 0) break;
        const out = await o.copy.ship(o.instance, head, batch.entries, retention);
        head = out.head;
        st.shippedSeq = head?.seq ?? 0;
        if (out.kind === 'moved') {
          // Another process ships this ledger too (a shared --audit-dir): continue from where it left.
          cursor = undefined;
          moves += 1;
          continue;
        }
        cursor = batch.cursor;
        st.shipped += batch.entries.length;
        st.batches += 1;
      }
      if (st.lastError !== undefined) report('warn', 'audit shipping resumed: the store answers again');
      delete st.lastError;
      await sweep();
    } catch (e) {
      if (e instanceof Stop) {
        st.stopped = e.message;
        report('error', `audit shipping stopped: ${e.message}; run "audit verify" on this ledger and with --store`);
        return;
      }
      const message = e instanceof Error ? e.message : String(e);
      if (st.lastError === undefined)
        report('warn', 'audit shipping paused: the store does not answer; entries stay on disk', { error: message });
      st.lastError = message;
      cursor = undefined;
    }
  };

  /** Applies retention to the copy when due; a failure waits for the next sweep and never stops shipping. */
  const sweep = async (): Promise<void> => {
    if (sweptAt !== undefined && Date.now() - sweptAt < sweepEveryMs) return;
    try {
      // Ledgers that recorded no retention (an older version's) keep the defaults; a silent one goes after 30 days.
      const out = await o.copy.sweep({
        defaults: { keep: DEFAULT_KEEP, minAgeMs: DEFAULT_MIN_AGE_MS },
        silentAfterMs: DEFAULT_MIN_AGE_MS,
      });
      sweptAt = Date.now();
      st.lastSweep = { ...out, at: new Date(sweptAt).toISOString() };
    } catch (e) {
      sweptAt = Date.now();
      report('warn', 'audit copy retention sweep failed; retried at the next sweep', {
        error: e instanceof Error ? e.message : String(e),
      });
    }
  };

  const kick = (): Promise<void> => (running ??= round().finally(() => (running = undefined)));
  const timer = setInterval(() => void kick(), o.intervalMs ?? 500);
  timer.unref();

  const flush = async (): Promise<void> => {
    await running;
    await kick();
  };

  return {
    durable(seq) {
      if (seq > st.localSeq) st.localSeq = seq;
    },
    shippedThrough: () => st.shippedSeq ?? 0,
    flush,
    state: () => ({ ...st, ...(st.lastSweep === undefined ? {} : { lastSweep: { ...st.lastSweep } }) }),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      // One last round so a clean stop leaves nothing behind; a store that does not answer keeps it for the next start.
      await Promise.race([flush(), new Promise((r) => setTimeout(r, 5_000).unref())]);
    },
  };
}
