// A long-lived `git diff-tree --stdin` per repository: one tree-to-tree diff per request line, no process per call.
// diff-tree echoes a line it cannot parse as object ids, so each request is followed by a marker line drawn at
// random per process; its echo ends that answer. Paths inside an answer are repository content, but none can start
// with `~` at the beginning of a patch line and none can guess the marker.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { HARDENED_CONFIG, hardenedEnv } from './hardening.js';
import { ObjectReaderError } from './object-reader.js';
import { parentPath } from './run.js';
import { countSpawn } from './spawns.js';

/** The empty tree: git knows it without it being stored, so it stands for "no parent". */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** One diff's output, or a refusal because it is larger than the reader holds. */
export type DiffAnswer = { readonly kind: 'diff'; readonly out: Buffer } | { readonly kind: 'too_large' };

interface Pending {
  /** The `<from> <to>` line diff-tree prints before a non-empty two-tree diff (stripped from the answer). */
  readonly header: Buffer;
  readonly resolve: (a: DiffAnswer) => void;
  readonly reject: (e: Error) => void;
}

class DiffProcess {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly queue: Pending[] = [];
  private readonly end: Buffer;
  private chunks: Buffer[] = [];
  private held = 0;
  private overflow = false;
  private readonly maxBytes: number;
  dead = false;

  constructor(gitDir: string, args: readonly string[], maxBytes: number, onExit: (p: DiffProcess) => void) {
    this.maxBytes = maxBytes;
    this.end = Buffer.from(`~end-${randomBytes(16).toString('hex')}\n`);
    countSpawn('diff-tree --stdin');
    this.child = spawn('git', [...HARDENED_CONFIG, 'diff-tree', '--stdin', '--no-commit-id', ...args], {
      cwd: gitDir,
      env: { ...hardenedEnv(parentPath()), GIT_DIR: gitDir },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.hold(false);
    this.child.stdout.on('data', (d: Buffer) => this.onData(d));
    this.child.stderr.on('data', () => undefined);
    this.child.stdin.on('error', () => undefined);
    const die = (err?: NodeJS.ErrnoException) => {
      if (this.dead) return;
      this.dead = true;
      const reason = err?.code === 'ENOENT' ? 'missing' : 'died';
      const e = new ObjectReaderError(
        reason === 'missing' ? 'git is not installed or not on PATH' : 'git diff-tree exited',
        reason,
      );
      for (const p of this.queue.splice(0)) p.reject(e);
      onExit(this);
    };
    this.child.on('error', die);
    this.child.on('exit', () => die());
    this.child.stdout.on('close', () => die());
  }

  private hold(on: boolean): void {
    const handles = [this.child, this.child.stdout, this.child.stderr, this.child.stdin] as unknown as {
      ref?(): void;
      unref?(): void;
    }[];
    for (const h of handles) (on ? h.ref : h.unref)?.call(h);
  }

  send(from: string, to: string, p: Pending): void {
    if (this.queue.length === 0) this.hold(true);
    this.queue.push(p);
    this.child.stdin.write(`${from} ${to}\n${this.end.toString('latin1')}`);
  }

  close(): void {
    this.child.stdin.end();
  }

  /** The last `n` held bytes (n is at most the marker's length), without joining everything held. */
  private lastBytes(n: number): Buffer {
    const parts: Buffer[] = [];
    let need = n;
    for (let k = this.chunks.length - 1; k >= 0 && need > 0; k--) {
      const c = this.chunks[k]!;
      parts.unshift(c.length <= need ? c : c.subarray(c.length - need));
      need -= Math.min(need, c.length);
    }
    return Buffer.concat(parts);
  }

  private onData(d: Buffer): void {
    let data = d;
    while (data.length > 0) {
      // Only the new bytes and the few before them can hold a marker that was not there before.
      const tailLen = Math.min(this.end.length - 1, this.held);
      const tail = this.lastBytes(tailLen);
      const window = tailLen > 0 ? Buffer.concat([tail, data]) : data;
      const at = window.indexOf(this.end);
      if (at < 0) {
        this.chunks.push(data);
        this.held += data.length;
        // Bounded memory: past the cap only the last few bytes are kept (the marker may straddle two chunks).
        if (this.held > this.maxBytes) {
          this.overflow = true;
          const keep = Buffer.from(this.lastBytes(Math.min(this.held, this.end.length - 1)));
          this.chunks = [keep];
          this.held = keep.length;
        }
        return;
      }
      // `at` counts from the window's start, which is `tailLen` bytes before `data`.
      const inData = at - tailLen;
      const all = Buffer.concat([...this.chunks, data.subarray(0, Math.max(0, inData))]);
      const out = all.subarray(0, this.held + inData);
      data = data.subarray(inData + this.end.length);
      this.chunks = [];
      this.held = 0;
      const p = this.queue.shift();
      if (!p) {
        this.child.kill('SIGKILL');
        return;
      }
      if (this.queue.length === 0) this.hold(false);
      const body = out.subarray(0, p.header.length).equals(p.header) ? out.subarray(p.header.length) : out;
      p.resolve(this.overflow ? { kind: 'too_large' } : { kind: 'diff', out: Buffer.from(body) });
      this.overflow = false;
    }
  }
}

/** Tree-to-tree diffs with fixed options through one long-lived process per repository. */
export interface DiffReader {
  /** `git diff-tree <args> <from> <to>` for two tree ids (`EMPTY_TREE` for a root commit). */
  diff(from: string, to: string): Promise<DiffAnswer>;
  end(): void;
}

/** Starts (lazily) a diff reader over `gitDir` with `args` (output options), holding at most `maxBytes` per answer. */
export function createDiffReader(gitDir: string, args: readonly string[], maxBytes: number): DiffReader {
  let proc: DiffProcess | undefined;
  let ended = false;
  const once = (from: string, to: string) =>
    new Promise<DiffAnswer>((resolve, reject) => {
      if (ended) return reject(new ObjectReaderError('diff reader ended', 'ended'));
      if (!proc || proc.dead) {
        proc = new DiffProcess(gitDir, args, maxBytes, (p) => {
          if (proc === p) proc = undefined;
        });
      }
      proc.send(from, to, { header: Buffer.from(`${from} ${to}\n`), resolve, reject });
    });
  return {
    async diff(from, to) {
      if (!/^[0-9a-f]{40,64}$/.test(from) || !/^[0-9a-f]{40,64}$/.test(to))
        throw new Error('diff reader takes tree ids only');
      try {
        return await once(from, to);
      } catch (err) {
        if (!(err instanceof ObjectReaderError) || err.reason !== 'died' || ended) throw err;
        return once(from, to);
      }
    },
    end() {
      ended = true;
      proc?.close();
      proc = undefined;
    },
  };
}
