// The appender: one JSONL file plus rotated segments, hash-chained, optionally signed, serialised within the process
// (a promise queue) and across processes (a lock file). The chain head is always re-read from disk under the lock, so
// several processes appending to one ledger keep one valid chain.
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from './canonical.js';
import { fsyncDir, fileDigest, listSegments, MAX_LINE_BYTES, readFirstLine, readTail, segmentName } from './files.js';
import { loadSigner, type Signer, type SigningKeyConfig } from './keys.js';
import { withFileLock, type LockTiming } from './lock.js';
import {
  AuditEvent,
  eventBody,
  saltId,
  sealRecord,
  type CheckpointRecord,
  type EventRecord,
  type Redaction,
  type Unsealed,
} from './record.js';

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
}

/** An open ledger. append() never rejects: a failure degrades state() and goes to the log callback. */
export interface Ledger {
  append(e: AuditEvent): Promise<void>;
  state(): LedgerState;
  close(): Promise<void>;
}

interface Head {
  seq: number;
  hash: string;
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
  const state: LedgerState = { ok: true, entries: 0, failures: 0, file: writer.active };
  let queue: Promise<void> = Promise.resolve();
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

  return {
    append(e) {
      const next = queue.then(() => appendOne(e));
      queue = next;
      return next;
    },
    state: () => ({ ...state }),
    async close() {
      await queue;
      closed = true;
    },
  };
}

interface WriterConfig {
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

/** The file work done under the lock. */
class Writer {
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
      const ts = this.c.now().toISOString();
      if (head.kind === 'head' && head.lastKind === 'event') {
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
