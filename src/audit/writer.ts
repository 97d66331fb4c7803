// The file work of the ledger, done in batches under the cross-process lock (group commit): many events become one
// write and one fdatasync. The active file stays open and the chain head stays in memory between batches; each batch
// still takes the lock and checks (fstat of our handle, lstat of the path) that nobody appended or rotated since, and
// re-reads the head from disk (repairing a torn tail) when someone did, so several processes can still share a ledger.
// A batch resolves only after its fdatasync: nothing is reported written before it is durable, and the next batch
// chains on a durable head. Rotation renames the full file, starts a new one with a checkpoint, then prunes segments
// beyond `keep` — but never one whose newest entry is younger than `minAgeMs` (the ledger grows instead).
import { constants, fstatSync, lstatSync, type Stats } from 'node:fs';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from './canonical.js';
import {
  fsyncDir,
  fileDigest,
  listSegments,
  MAX_LINE_BYTES,
  readFirstLine,
  readTail,
  segmentName,
  type SegmentFile,
} from './files.js';
import type { Signer } from './keys.js';
import { withFileLock, type LockTiming } from './lock.js';
import {
  eventBody,
  saltId,
  sealRecord,
  type AuditEvent,
  type CheckpointRecord,
  type EventRecord,
  type Redaction,
  type Unsealed,
} from './record.js';

const DAY_MS = 86_400_000;

interface Head {
  seq: number;
  hash: string;
}

/** Everything the writer needs, resolved from LedgerOptions. */
export interface WriterConfig {
  dir: string;
  base: string;
  salt: Buffer;
  redaction: Redaction;
  signer: Signer | undefined;
  maxBytes: number;
  keep: number;
  now: () => Date;
  timing: LockTiming;
  /** A rotated segment whose newest entry is younger than this is never deleted, whatever `keep` says. */
  minAgeMs: number;
  /** When the ledger is shipped to a store: the highest seq the store holds. A segment past it is never deleted. */
  shippedThrough: (() => number) | undefined;
}

/** Segments deleted by one rotation (the ledger records this as an `audit.prune` event). */
export interface PruneReport {
  segments: string[];
  firstSeq: number;
  throughSeq: number;
  bytes: number;
}

/** Retention as the status shows it: segments kept beyond `keep` because they are too young, and what was pruned. */
export interface Retention {
  held: number;
  prunedSegments: number;
  lastPrune?: PruneReport & { at: string };
}

type HeadState = { kind: 'empty' } | { kind: 'head'; seq: number; hash: string; lastKind: string; size: number };

const parseObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The path's own stat (a link is not followed), or undefined when it cannot be had. */
function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const headOf = (text: string, where: string): Head => {
  const r = parseObject(text);
  const seq = r?.['seq'];
  const hash = r?.['hash'];
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || typeof hash !== 'string') {
    throw new Error(`the last entry of ${where} is not a ledger record; run the verifier`);
  }
  return { seq, hash };
};

/** Appends batches under the lock; throws on any failure (the ledger handle turns that into degraded state). */
export class Writer {
  readonly active: string;
  warn: (message: string) => void = () => undefined;

  private readonly c: WriterConfig;
  private readonly saltId: string;
  private fh: FileHandle | undefined;
  // The head this process wrote last, with the file identity and size it left: valid while both still match.
  private cache: { ino: number; size: number; seq: number; hash: string; lastKind: string } | undefined;
  private readonly ret: Retention = { held: 0, prunedSegments: 0 };

  constructor(c: WriterConfig) {
    this.c = c;
    this.saltId = saltId(c.salt);
    this.active = join(c.dir, c.base);
  }

  /** Retention as of the last rotation (or the survey at open). */
  retention(): Retention {
    return { ...this.ret, ...(this.ret.lastPrune ? { lastPrune: { ...this.ret.lastPrune } } : {}) };
  }

  /** Counts segments beyond `keep` that are too young to prune (so a restart shows a held ledger at once). */
  async survey(): Promise<void> {
    const { segments } = await listSegments(this.c.dir, this.c.base);
    const plan = await this.prunePlan(segments);
    this.ret.held = plan.held;
  }

  /** Appends events in order (a checkpoint first whenever a new file starts); returns each event's seq. */
  appendBatch(events: readonly AuditEvent[]): Promise<number[]> {
    return withFileLock(`${this.active}.lock`, this.c.timing, () => this.batchLocked(events));
  }

  /** The seq of the last entry this writer made durable (checkpoints and pruning notes included). */
  lastSeq(): number | undefined {
    return this.cache?.seq;
  }

  /** Closes the active file handle (the data is already durable). */
  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    this.cache = undefined;
    await fh?.close().catch(() => undefined);
  }

  private async batchLocked(events: readonly AuditEvent[]): Promise<number[]> {
    try {
      return await this.writeBatch(events);
    } catch (err) {
      // Whatever was half done, the next batch starts from the disk, not from memory.
      await this.close();
      throw err;
    }
  }

  private async writeBatch(events: readonly AuditEvent[]): Promise<number[]> {
    let { fh, head } = await this.current();
    const seqs: number[] = [];
    let pending: string[] = [];
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const text = pending.join('');
      pending = [];
      await fh.write(text);
    };
    const push = (line: { text: string; seq: number; hash: string }, size: number): number => {
      pending.push(line.text);
      head = {
        kind: 'head',
        seq: line.seq,
        hash: line.hash,
        lastKind: 'event',
        size: size + Buffer.byteLength(line.text),
      };
      return line.seq;
    };
    for (const e of events) {
      // The event's own time (stamped when it was queued); a checkpoint written with it shares it.
      const ts = e.at ?? this.c.now().toISOString();
      const h: HeadState = head;
      if (h.kind === 'empty') {
        seqs.push(push(await this.firstLines(e, ts), 0));
        continue;
      }
      const line = this.eventLine(e, { seq: h.seq + 1, ts, prevHash: h.hash });
      // A file holding only its checkpoint is never rotated away, however large the event.
      if (h.lastKind === 'checkpoint' || h.size + Buffer.byteLength(line.text) <= this.c.maxBytes) {
        seqs.push(push(line, h.size));
        continue;
      }
      await flush();
      await fh.datasync();
      await this.close();
      const rotated = await this.rotateThenAppend(e, h, ts);
      fh = await this.openActive();
      const after: Head = { seq: rotated.seq, hash: rotated.hash };
      head = { kind: 'head', ...after, lastKind: 'event', size: rotated.size };
      seqs.push(rotated.seq);
      // The pruning is itself on the record, right after the checkpoint that explains the gap.
      if (rotated.pruned !== undefined) push(this.pruneLine(rotated.pruned, after, ts), rotated.size);
    }
    await flush();
    await fh.datasync();
    if (head.kind === 'head') {
      const st = fstatSync(fh.fd);
      this.cache = { ino: st.ino, size: st.size, seq: head.seq, hash: head.hash, lastKind: head.lastKind };
    }
    return seqs;
  }

  private async openActive(): Promise<FileHandle> {
    const fh = await open(
      this.active,
      constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW,
      0o600,
    );
    this.fh = fh;
    this.cache = undefined;
    return fh;
  }

  /** The open active file and its head: from memory when the file is the one we left, else read from disk. */
  private async current(): Promise<{ fh: FileHandle; head: HeadState }> {
    let fh = this.fh;
    // The checks of every batch are synchronous metadata calls (microseconds on the local state disk), not trips
    // through the thread pool; the write and its fdatasync stay asynchronous.
    let st: Stats | undefined;
    if (fh !== undefined) {
      const own = fstatSync(fh.fd);
      const named = lstatOrNothing(this.active);
      // Another process rotated (or someone replaced) the file: our handle points at a segment now.
      if (named === undefined || named.ino !== own.ino || named.dev !== own.dev) {
        await this.close();
        fh = undefined;
      } else st = own;
    }
    fh ??= await this.openActive();
    st ??= fstatSync(fh.fd);
    if (!st.isFile() || st.nlink !== 1) throw new Error('the active file must be a regular file with one link');
    const c = this.cache;
    if (c !== undefined && c.ino === st.ino && c.size === st.size) {
      return { fh, head: { kind: 'head', seq: c.seq, hash: c.hash, lastKind: c.lastKind, size: c.size } };
    }
    return { fh, head: await this.readHead(fh, st.size) };
  }

  /** The lines that start an empty active file: a first ever entry, or a checkpoint after a crash mid-rotation. */
  private async firstLines(e: AuditEvent, ts: string): Promise<{ text: string; seq: number; hash: string }> {
    const { segments } = await listSegments(this.c.dir, this.c.base);
    const newest = segments.at(-1);
    if (newest === undefined) return this.eventLine(e, { seq: 1, ts, prevHash: 'genesis' });
    const lastLine = (await this.lastLineOf(newest.name)) ?? '';
    const prev = headOf(lastLine, newest.name);
    return this.checkpointThenEvent(e, prev, newest.name, Math.min(segments.length, this.c.keep), ts);
  }

  private async readHead(fh: FileHandle, size: number): Promise<HeadState> {
    let tail = await readTail(fh, size);
    const torn = tail.kind === 'torn_only' || tail.kind === 'lines' ? tail.torn : undefined;
    if (torn !== undefined) {
      if (parseObject(torn) !== undefined) {
        // A complete record whose newline was lost: give it its newline.
        await fh.write('\n');
        size += 1;
        this.warn('audit: repaired a missing final newline in the active file');
      } else if (tail.kind === 'lines' && tail.completeEnd > 0) {
        await fh.truncate(tail.completeEnd);
        size = tail.completeEnd;
        this.warn('audit: removed a torn (partially written) last line from the active file');
      } else {
        throw new Error('the active file holds a single corrupt record; run the verifier');
      }
      tail = await readTail(fh, size);
    }
    switch (tail.kind) {
      case 'empty':
        return { kind: 'empty' };
      case 'lines': {
        const h = headOf(tail.last, 'the active file');
        const kind = parseObject(tail.last)?.['kind'];
        return { kind: 'head', ...h, lastKind: typeof kind === 'string' ? kind : 'unknown', size };
      }
      case 'torn_only':
      case 'unreadable':
        throw new Error('the end of the active file is unreadable; run the verifier');
    }
  }

  private async lastLineOf(name: string): Promise<string | undefined> {
    const fh = await open(join(this.c.dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const tail = await readTail(fh, (await fh.stat()).size);
      return tail.kind === 'lines' ? tail.last : undefined;
    } finally {
      await fh.close();
    }
  }

  /**
   * Which segments beyond `keep` may go: the oldest first, stopping at the first one whose newest entry is younger than
   * minAgeMs (or cannot be dated) or not yet shipped to the store, so retention never leaves a gap and one perimeter's flood cannot shorten the record
   * below the time bound.
   */
  private async prunePlan(segments: readonly SegmentFile[]): Promise<{ prune: SegmentFile[]; held: number }> {
    const excess = segments.length - this.c.keep;
    if (excess <= 0) return { prune: [], held: 0 };
    const prune: SegmentFile[] = [];
    const now = this.c.now().getTime();
    for (const seg of segments.slice(0, excess)) {
      // Entries the store has not received yet exist only here: never pruned, whatever their age (issue 21).
      if (this.c.shippedThrough !== undefined && seg.last > this.c.shippedThrough()) break;
      if (this.c.minAgeMs > 0) {
        const ts = parseObject((await this.lastLineOf(seg.name)) ?? '')?.['ts'];
        const at = typeof ts === 'string' ? Date.parse(ts) : NaN;
        if (!Number.isFinite(at) || now - at < this.c.minAgeMs) break;
      }
      prune.push(seg);
    }
    return { prune, held: excess - prune.length };
  }

  /** Renames the full active file to its segment name, starts a new one with a checkpoint, then prunes. */
  private async rotateThenAppend(
    e: AuditEvent,
    head: Head,
    ts: string,
  ): Promise<{ seq: number; hash: string; size: number; pruned: PruneReport | undefined }> {
    const first = headOf((await readFirstLine(this.active)) ?? '', 'the active file (first line)').seq;
    const segName = segmentName(this.c.base, first, head.seq);
    const segPath = join(this.c.dir, segName);
    // rename() would silently replace an existing segment; under the lock nobody else creates one.
    if (
      await stat(segPath).then(
        () => true,
        () => false,
      )
    )
      throw new Error(`segment ${segName} already exists`);
    await rename(this.active, segPath);
    await fsyncDir(this.c.dir);
    const { segments } = await listSegments(this.c.dir, this.c.base);
    const plan = await this.prunePlan(segments);
    const lines = await this.checkpointThenEvent(e, head, segName, segments.length - plan.prune.length, ts);
    const fh = await open(
      this.active,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await fh.write(lines.text);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await fsyncDir(this.c.dir);
    // Prune after the checkpoint is durable: a crash leaves an extra old segment, never an unexplained gap.
    let bytes = 0;
    for (const old of plan.prune) {
      const path = join(this.c.dir, old.name);
      bytes += (await stat(path)).size;
      await unlink(path);
    }
    if (plan.prune.length > 0) await fsyncDir(this.c.dir);
    if (plan.held > 0 && plan.held !== this.ret.held) {
      this.warn(
        `audit: ${plan.held} segment(s) beyond the retention count are younger than the minimum age; the ledger grows instead of pruning them`,
      );
    }
    this.ret.held = plan.held;
    const firstPruned = plan.prune[0];
    const lastPruned = plan.prune.at(-1);
    const pruned =
      firstPruned === undefined || lastPruned === undefined
        ? undefined
        : { segments: plan.prune.map((s) => s.name), firstSeq: firstPruned.first, throughSeq: lastPruned.last, bytes };
    if (pruned !== undefined) {
      this.ret.prunedSegments += pruned.segments.length;
      this.ret.lastPrune = { ...pruned, at: ts };
    }
    return { seq: lines.seq, hash: lines.hash, size: Buffer.byteLength(lines.text), pruned };
  }

  /** The ledger's own record of a pruning: which sequence numbers left the disk, and how many bytes. */
  private pruneLine(p: PruneReport, head: Head, ts: string): { text: string; seq: number; hash: string } {
    const e: AuditEvent = {
      surface: 'api',
      tool: 'audit.prune',
      verdict: 'allow',
      result: `pruned seq ${p.firstSeq}-${p.throughSeq}`,
      bytes: p.bytes,
      durationMs: 0,
      at: ts,
    };
    return this.eventLine(e, { seq: head.seq + 1, ts, prevHash: head.hash });
  }

  private async checkpointThenEvent(
    e: AuditEvent,
    prev: Head,
    prevSegment: string,
    retained: number,
    ts: string,
  ): Promise<{ text: string; seq: number; hash: string }> {
    const body: Unsealed<CheckpointRecord> = {
      v: 1,
      kind: 'checkpoint',
      seq: prev.seq + 1,
      ts,
      prev_seq: prev.seq,
      prev_segment: prevSegment,
      prev_digest: await fileDigest(join(this.c.dir, prevSegment)),
      retained,
      prev_hash: prev.hash,
    };
    const cp = sealRecord<CheckpointRecord>(body, this.c.signer);
    const line = this.eventLine(e, { seq: prev.seq + 2, ts, prevHash: cp.hash });
    return { text: `${canonicalJson(cp)}\n${line.text}`, seq: prev.seq + 2, hash: line.hash };
  }

  /** Seals an event as one line; an oversized clear event is stored redacted rather than lost. */
  private eventLine(
    e: AuditEvent,
    at: { seq: number; ts: string; prevHash: string },
  ): { text: string; seq: number; hash: string } {
    const make = (mode: Redaction): { text: string; hash: string } => {
      const rec = sealRecord<EventRecord>(
        eventBody(e, at, { mode, salt: this.c.salt, saltId: this.saltId }),
        this.c.signer,
      );
      return { text: `${canonicalJson(rec)}\n`, hash: rec.hash };
    };
    let line = make(this.c.redaction);
    if (Buffer.byteLength(line.text) > MAX_LINE_BYTES && this.c.redaction === 'clear') {
      this.warn('audit: event too large for a clear line; its paths and args are stored as HMACs');
      line = make('hmac-sha256');
    }
    if (Buffer.byteLength(line.text) > MAX_LINE_BYTES)
      throw new Error('audit event is larger than 256 KiB even when hashed');
    return { ...line, seq: at.seq };
  }
}

/** The default minimum age of a segment before it may be pruned: 30 days. */
export const DEFAULT_MIN_AGE_MS = 30 * DAY_MS;

/** The default number of rotated segments kept (`--audit-keep`). */
export const DEFAULT_KEEP = 5;
