// The ledger handle: validates options (failing closed on a bad key), serialises appends within the process behind a
// promise queue, and turns every append failure into degraded state plus a log line. The file work is in writer.ts.
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

