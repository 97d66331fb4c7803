// The file work of one append, done under the cross-process lock: read the chain head from disk (repairing a torn
// tail), rotate when the active file is full, write the canonical line(s), fsync. Several processes can append to one
// ledger because nothing about the chain is cached between appends.
import { constants } from 'node:fs';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from './canonical.js';
import { fsyncDir, fileDigest, listSegments, MAX_LINE_BYTES, readFirstLine, readTail, segmentName } from './files.js';
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
}

const parseObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const headOf = (text: string, where: string): Head => {
  const r = parseObject(text);
  const seq = r?.['seq'];
  const hash = r?.['hash'];
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || typeof hash !== 'string') {
    throw new Error(`the last entry of ${where} is not a ledger record; run the verifier`);
  }
  return { seq, hash };
};

/** Appends under the lock; throws on any failure (the ledger handle turns that into degraded state). */
export class Writer {
  readonly active: string;
  warn: (message: string) => void = () => undefined;

  private readonly c: WriterConfig;
  private readonly saltId: string;

  constructor(c: WriterConfig) {
    this.c = c;
    this.saltId = saltId(c.salt);
    this.active = join(c.dir, c.base);
  }

  /** Appends one event (and a checkpoint first when a new file starts); returns the event's seq. */
  append(e: AuditEvent): Promise<number> {
    return withFileLock(`${this.active}.lock`, this.c.timing, () => this.appendLocked(e));
  }

  private async appendLocked(e: AuditEvent): Promise<number> {
    const fh = await open(this.active, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
    let closed = false;
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.nlink !== 1) throw new Error('the active file must be a regular file with one link');
      const head = await this.readHead(fh, st.size);
      // The event's own time (stamped when it was queued); a checkpoint written with it shares it.
      const ts = e.at ?? this.c.now().toISOString();
      if (head.kind === 'head' && head.lastKind !== 'checkpoint') {
        const line = this.eventLine(e, { seq: head.seq + 1, ts, prevHash: head.hash });
        if (head.size + Buffer.byteLength(line) <= this.c.maxBytes) {
          await this.writeAndSync(fh, line);
          return head.seq + 1;
        }
        await fh.sync();
        await fh.close();
        closed = true;
        return await this.rotateThenAppend(e, head, ts);
      }
      if (head.kind === 'head') {
        // The file holds only its checkpoint: never rotate it away, however large the event.
        await this.writeAndSync(fh, this.eventLine(e, { seq: head.seq + 1, ts, prevHash: head.hash }));
        return head.seq + 1;
      }
      // Empty active file: a first ever entry, or a restart after a crash between rotation and the new checkpoint.
      const { segments } = await listSegments(this.c.dir, this.c.base);
      const newest = segments.at(-1);
      if (newest === undefined) {
        await this.writeAndSync(fh, this.eventLine(e, { seq: 1, ts, prevHash: 'genesis' }));
        return 1;
      }
      const lastLine = (await this.lastLineOf(newest.name)) ?? '';
      const prev = headOf(lastLine, newest.name);
      const lines = await this.checkpointThenEvent(e, prev, newest.name, Math.min(segments.length, this.c.keep), ts);
      await this.writeAndSync(fh, lines.text);
      return lines.seq;
    } finally {
      if (!closed) await fh.close();
    }
  }

  private async readHead(
    fh: FileHandle,
    size: number,
  ): Promise<{ kind: 'empty' } | { kind: 'head'; seq: number; hash: string; lastKind: string; size: number }> {
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

  /** Renames the full active file to its segment name, starts a new one with a checkpoint, then prunes. */
  private async rotateThenAppend(e: AuditEvent, head: Head, ts: string): Promise<number> {
    const first = headOf((await readFirstLine(this.active)) ?? '', 'the active file (first line)').seq;
    const segName = segmentName(this.c.base, first, head.seq);
    const segPath = join(this.c.dir, segName);
    // rename() would silently replace an existing segment; under the lock nobody else creates one.
    if (await stat(segPath).then(() => true, () => false)) throw new Error(`segment ${segName} already exists`);
    await rename(this.active, segPath);
    await fsyncDir(this.c.dir);
    const { segments } = await listSegments(this.c.dir, this.c.base);
    const lines = await this.checkpointThenEvent(e, head, segName, Math.min(segments.length, this.c.keep), ts);
    const fh = await open(this.active, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await this.writeAndSync(fh, lines.text);
    } finally {
      await fh.close();
    }
    await fsyncDir(this.c.dir);
    // Prune after the checkpoint is durable: a crash leaves an extra old segment, never an unexplained gap.
    const excess = segments.length - this.c.keep;
    for (const old of segments.slice(0, Math.max(0, excess))) await unlink(join(this.c.dir, old.name));
    if (excess > 0) await fsyncDir(this.c.dir);
    return lines.seq;
  }

  private async checkpointThenEvent(
    e: AuditEvent,
    prev: Head,
    prevSegment: string,
    retained: number,
    ts: string,
  ): Promise<{ text: string; seq: number }> {
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
    return { text: `${canonicalJson(cp)}\n${line}`, seq: prev.seq + 2 };
  }

  /** Seals an event as one line; an oversized clear event is stored redacted rather than lost. */
  private eventLine(e: AuditEvent, at: { seq: number; ts: string; prevHash: string }): string {
    const make = (mode: Redaction): string =>
      `${canonicalJson(sealRecord<EventRecord>(eventBody(e, at, { mode, salt: this.c.salt, saltId: this.saltId }), this.c.signer))}\n`;
    let line = make(this.c.redaction);
    if (Buffer.byteLength(line) > MAX_LINE_BYTES && this.c.redaction === 'clear') {
      this.warn('audit: event too large for a clear line; its paths and args are stored as HMACs');
      line = make('hmac-sha256');
    }
    if (Buffer.byteLength(line) > MAX_LINE_BYTES) throw new Error('audit event is larger than 256 KiB even when hashed');
    return line;
  }

  private async writeAndSync(fh: FileHandle, text: string): Promise<void> {
    await fh.write(text);
    await fh.datasync();
  }
}
