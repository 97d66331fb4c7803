// A long-lived `git cat-file --batch-command --buffer` per repository: object and ref reads without a process per
// call. Requests are written in order, each batch followed by `flush`, and answers are matched to requests in the
// order git prints them. git re-reads refs and re-scans packs on a miss, so objects and refs written by other
// processes are seen by later requests. A dead process fails what was in flight (retried once on a fresh one).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { HARDENED_CONFIG, hardenedEnv } from './hardening.js';
import { parentPath } from './run.js';
import { countSpawn } from './spawns.js';

/** What `info` learns about a name: its id, type and size, or that git knows no such object. */
export type ObjectInfo =
  | { readonly found: true; readonly sha: string; readonly type: string; readonly size: number }
  | { readonly found: false };

/** What `contents` returns: the bytes, a refusal by size (read from `info` first), or nothing. */
export type ObjectRead =
  | { readonly kind: 'object'; readonly sha: string; readonly type: string; readonly bytes: Buffer }
  | { readonly kind: 'too_large'; readonly sha: string; readonly type: string; readonly size: number }
  | { readonly kind: 'missing' };

/** Why a request could not be answered at all (git missing, the process died twice, the reader was ended). */
export class ObjectReaderError extends Error {
  readonly reason: 'missing' | 'died' | 'ended';
  constructor(message: string, reason: 'missing' | 'died' | 'ended') {
    super(message);
    this.reason = reason;
  }
}

interface Pending {
  readonly command: 'info' | 'contents';
  readonly resolve: (r: ObjectInfo | ObjectRead) => void;
  readonly reject: (e: Error) => void;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/** One running `cat-file --batch-command` with its answer parser. */
class BatchProcess {
  private readonly child: Child;
  private readonly queue: Pending[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Body bytes still expected for the request at the queue head (-1: waiting for a header line). */
  private bodyLeft = -1;
  private header: { sha: string; type: string; size: number } | undefined;
  dead = false;

  constructor(gitDir: string, path: string | undefined, onExit: (p: BatchProcess) => void) {
    countSpawn('cat-file --batch-command');
    this.child = spawn('git', [...HARDENED_CONFIG, 'cat-file', '--batch-command', '--buffer'], {
      cwd: gitDir,
      env: { ...hardenedEnv(path), GIT_DIR: gitDir },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child.stdout.on('data', (d: Buffer) => this.onData(d));
    // stderr is drained so git never blocks on it; warnings (ambiguous refs) carry nothing we act on.
    this.child.stderr.on('data', () => undefined);
    this.child.stdin.on('error', () => undefined);
    const die = (err?: NodeJS.ErrnoException) => {
      if (this.dead) return;
      this.dead = true;
      const reason = err?.code === 'ENOENT' ? 'missing' : 'died';
      const e = new ObjectReaderError(
        reason === 'missing' ? 'git is not installed or not on PATH' : 'git cat-file exited',
        reason,
      );
      for (const p of this.queue.splice(0)) p.reject(e);
      onExit(this);
    };
    this.hold(false);
    this.child.on('error', die);
    this.child.on('exit', () => die());
    this.child.stdout.on('close', () => die());
  }

  /** Sends `lines` (one command each) and a flush; answers arrive through `pending`, in the same order. */
  send(lines: readonly string[], pending: readonly Pending[]): void {
    if (this.queue.length === 0) this.hold(true);
    this.queue.push(...pending);
    this.child.stdin.write(`${lines.join('\n')}\nflush\n`);
  }

  /** An idle reader must not keep the server (or a test run) alive: the process is referenced only while asked. */
  private hold(on: boolean): void {
    const handles = [this.child, this.child.stdout, this.child.stderr, this.child.stdin] as unknown as {
      ref?(): void;
      unref?(): void;
    }[];
    for (const h of handles) (on ? h.ref : h.unref)?.call(h);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Requests sent and not yet answered. */
  get load(): number {
    return this.queue.length;
  }

  /** Closes stdin: git finishes what it has and exits. */
  end(): void {
    this.child.stdin.end();
  }

  /** Ends the process now (a stuck or unwanted reader). */
  kill(): void {
    this.child.kill('SIGKILL');
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.buffered += d.length;
    try {
      while (this.step());
    } catch (err) {
      // A framing error means we no longer know where answers start: fail everything and drop the process.
      const e = new ObjectReaderError(`git cat-file answer not understood: ${(err as Error).message}`, 'died');
      for (const p of this.queue.splice(0)) p.reject(e);
      this.kill();
    }
  }

  private done(): void {
    this.queue.shift();
    if (this.queue.length === 0) this.hold(false);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  /** Consumes one header or one body if buffered; false when more bytes are needed. */
  private step(): boolean {
    const head = this.queue[0];
    if (!head) {
      if (this.buffered > 0) throw new Error('output with no request waiting');
      return false;
    }
    if (this.bodyLeft >= 0) {
      if (this.buffered < this.bodyLeft + 1) return false;
      const body = Buffer.from(this.take(this.bodyLeft + 1).subarray(0, this.bodyLeft));
      const h = this.header!;
      this.bodyLeft = -1;
      this.header = undefined;
      this.done();
      head.resolve({ kind: 'object', sha: h.sha, type: h.type, bytes: body });
      return true;
    }
    let nl = -1;
    let seen = 0;
    for (const c of this.chunks) {
      const i = c.indexOf(0x0a);
      if (i >= 0) {
        nl = seen + i;
        break;
      }
      seen += c.length;
    }
    if (nl < 0) return false;
    const line = this.take(nl + 1).toString('utf8', 0, nl);
    if (line.endsWith(' missing') || line.endsWith(' ambiguous')) {
      this.done();
      head.resolve(head.command === 'info' ? { found: false } : { kind: 'missing' });
      return true;
    }
    const m = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+) (\d+)$/.exec(line);
    if (!m) throw new Error('unexpected header line');
    const info = { sha: m[1]!, type: m[2]!, size: Number(m[3]) };
    if (head.command === 'info') {
      this.done();
      head.resolve({ found: true, ...info });
      return true;
    }
    this.header = info;
    this.bodyLeft = info.size;
    return true;
  }
}

export interface ObjectReaderOptions {
  /** The repository's git dir (reads never consult a working tree). */
  readonly gitDir: string;
  /** PATH to find git with; default the parent's (nothing else is inherited). */
  readonly path?: string | undefined;
  /** Most `cat-file` processes kept for this repository (default: one per core, 2 to 4). */
  readonly processes?: number;
}

/**
 * One process answers one batch at a time, so a busy repository's reads queued behind each other while the other
 * core sat idle (issue 24 profile). A few processes per repository, started only when every running one is busy.
 */
const DEFAULT_PROCESSES = Math.max(2, Math.min(4, availableParallelism()));

/** A pipelined object reader over one repository (a small pool of processes; each batch goes to one of them). */
export interface ObjectReader {
  /** `info` for each name (a full id or a full ref name, optionally with `^{type}`), in order. */
  info(names: readonly string[]): Promise<ObjectInfo[]>;
  /** Contents of each name, in order; an object above `maxBytes` is refused by the size `info` reported. */
  contents(names: readonly string[], maxBytes: number): Promise<ObjectRead[]>;
  /** Ends the process; later calls fail with `ended`. */
  end(): void;
  /** The running process's id, if one runs (diagnostics, and tests that kill it). */
  pid(): number | undefined;
}

/** Names sent to git must be one line each: ids and validated ref names never contain these. */
function checkName(name: string): void {
  if (name === '' || /[\n\r\0]/.test(name) || name.trim() !== name)
    throw new Error('object name not sendable to cat-file');
}

/** Starts (lazily) a reader for `gitDir`. */
export function createObjectReader(opts: ObjectReaderOptions): ObjectReader {
  const max = Math.max(1, opts.processes ?? DEFAULT_PROCESSES);
  const pool: BatchProcess[] = [];
  let ended = false;
  /** The idlest live process; a new one when every live one is busy and the pool has room. */
  const current = (): BatchProcess => {
    if (ended) throw new ObjectReaderError('object reader ended', 'ended');
    let best: BatchProcess | undefined;
    for (const p of pool) if (!p.dead && (best === undefined || p.load < best.load)) best = p;
    if (best !== undefined && (best.load === 0 || pool.length >= max)) return best;
    const p = new BatchProcess(opts.gitDir, opts.path ?? parentPath(), (gone) => {
      const i = pool.indexOf(gone);
      if (i >= 0) pool.splice(i, 1);
    });
    pool.push(p);
    return p;
  };
  /**
   * Whether a request sent now would start at once on a process already running and idle (or on the first one). A
   * busy pool gathers the turn's asks instead: under load one write per turn beats one per ask (and a second process
   * is started only when the turn's batch finds every running one busy).
   */
  const idle = (): boolean => pool.length === 0 || pool.some((p) => !p.dead && p.load === 0);

  // Requests made in the same turn of the event loop go out together: one write to one process, each distinct line
  // once (two calls resolving the same branch at the same moment share the answer; both were made before it was
  // asked, so neither sees an older state than its own start). On a busy server every write to a pipe was a
  // context switch; this makes it one per turn instead of one per call.
  interface Ask {
    readonly command: 'info' | 'contents';
    readonly names: readonly string[];
    readonly resolve: (answers: (ObjectInfo | ObjectRead)[]) => void;
    readonly reject: (e: Error) => void;
  }
  let asks: Ask[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const batch = asks;
    asks = [];
    let p: BatchProcess;
    try {
      p = current();
    } catch (err) {
      for (const a of batch) a.reject(err as Error);
      return;
    }
    const lines: string[] = [];
    const pending: Pending[] = [];
    const answerOf = new Map<string, Promise<ObjectInfo | ObjectRead>>();
    const perAsk = batch.map((a) =>
      a.names.map((n) => {
        const line = `${a.command} ${n}`;
        let answer = answerOf.get(line);
        if (answer === undefined) {
          answer = new Promise((resolve, reject) => pending.push({ command: a.command, resolve, reject }));
          answerOf.set(line, answer);
          lines.push(line);
        }
        return answer;
      }),
    );
    p.send(lines, pending);
    batch.forEach((a, i) => void Promise.all(perAsk[i]!).then(a.resolve, a.reject));
  };

  /** One pipelined round trip; a process that dies under it is replaced and the request sent once more. */
  async function round<T extends ObjectInfo | ObjectRead>(
    command: 'info' | 'contents',
    names: readonly string[],
  ): Promise<T[]> {
    names.forEach(checkName);
    if (names.length === 0) return [];
    const once = () =>
      new Promise<T[]>((resolve, reject) => {
        asks.push({ command, names, resolve: resolve as (answers: (ObjectInfo | ObjectRead)[]) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // A process with nothing in flight answers at once: waiting for the turn to end would only add the rest of
          // the turn's work to this read (a sequential caller's whole wait). Asks made in this same synchronous run
          // still go together. When every process is busy, the turn's asks are gathered into one write.
          if (idle()) queueMicrotask(flush);
          else setImmediate(flush);
        }
      });
    try {
      return await once();
    } catch (err) {
      // Reads are idempotent: one retry on a fresh process covers a reader killed between two calls.
      if (!(err instanceof ObjectReaderError) || err.reason !== 'died' || ended) throw err;
      return once();
    }
  }

  return {
    info: (names) => round<ObjectInfo>('info', names),

    async contents(names, maxBytes) {
      const infos = await round<ObjectInfo>('info', names);
      const small = [...new Set(infos.flatMap((i) => (i.found && i.size <= maxBytes ? [i.sha] : [])))];
      const read = await round<ObjectRead>('contents', small);
      const bySha = new Map<string, ObjectRead>();
      small.forEach((sha, k) => bySha.set(sha, read[k]!));
      return infos.map((i): ObjectRead => {
        if (!i.found) return { kind: 'missing' };
        if (i.size > maxBytes) return { kind: 'too_large', sha: i.sha, type: i.type, size: i.size };
        // An object cannot vanish between the two round trips (git never prunes what it just reported as fresh).
        return bySha.get(i.sha) ?? { kind: 'missing' };
      });
    },

    end() {
      ended = true;
      for (const p of pool.splice(0)) p.end();
    },

    pid: () => pool.find((p) => !p.dead)?.pid,
  };
}
