// One long-lived `git cat-file --batch-command` per repository: object lookups without a process per request.
// Commands are answered strictly in order, so a FIFO of waiters is enough to pair answers with questions.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** What `info`/`contents` found. */
export interface ObjectInfo {
  sha: string;
  type: string;
  size: number;
}

interface Waiter {
  withContent: boolean;
  resolve: (v: { info: ObjectInfo; content?: Buffer } | null) => void;
  reject: (e: Error) => void;
}

/** A cat-file process bound to one repository directory. */
class Batch {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiters: Waiter[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private dead: Error | null = null;

  constructor(dir: string) {
    this.child = spawn('git', ['-C', dir, 'cat-file', '--batch-command'], {
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      this.drain();
    });
    this.child.stderr.resume();
    const fail = (e: Error): void => {
      this.dead = e;
      for (const w of this.waiters.splice(0)) w.reject(e);
    };
    this.child.on('error', fail);
    this.child.on('exit', () => fail(new Error('git cat-file exited')));
    this.child.stdin.on('error', fail);
  }

  private drain(): void {
    for (;;) {
      const w = this.waiters[0];
      if (!w) return;
      const nl = this.buf.indexOf(10);
      if (nl < 0) return;
      const header = this.buf.subarray(0, nl).toString('utf8');
      const m = /^([0-9a-f]{40}) (\w+) (\d+)$/.exec(header);
      if (!m) {
        // "<name> missing" / "<name> ambiguous": no body follows.
        this.buf = this.buf.subarray(nl + 1);
        this.waiters.shift();
        w.resolve(null);
        continue;
      }
      const info = { sha: m[1] ?? '', type: m[2] ?? '', size: Number(m[3]) };
      if (!w.withContent) {
        this.buf = this.buf.subarray(nl + 1);
        this.waiters.shift();
        w.resolve({ info });
        continue;
      }
      const end = nl + 1 + info.size;
      if (this.buf.length < end + 1) return; // wait for the body and its trailing newline
      const content = Buffer.from(this.buf.subarray(nl + 1, end));
      this.buf = this.buf.subarray(end + 1);
      this.waiters.shift();
      w.resolve({ info, content });
    }
  }

  ask(cmd: 'info' | 'contents', object: string): Promise<{ info: ObjectInfo; content?: Buffer } | null> {
    if (this.dead) return Promise.reject(this.dead);
    // A newline would smuggle in a second command; such a name cannot exist anyway.
    if (/[\n\r]/.test(object)) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.waiters.push({ withContent: cmd === 'contents', resolve, reject });
      this.child.stdin.write(`${cmd} ${object}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

/** Per-directory batch processes, closed together with the emulator. */
export class BatchPool {
  private readonly pool = new Map<string, Batch>();

  private get(dir: string): Batch {
    let b = this.pool.get(dir);
    if (!b) {
      b = new Batch(dir);
      this.pool.set(dir, b);
    }
    return b;
  }

  private async ask(
    dir: string,
    cmd: 'info' | 'contents',
    object: string,
  ): Promise<{ info: ObjectInfo; content?: Buffer } | null> {
    try {
      return await this.get(dir).ask(cmd, object);
    } catch {
      // The process died (killed, repository replaced): start a fresh one once.
      this.pool.get(dir)?.close();
      this.pool.delete(dir);
      return this.get(dir).ask(cmd, object);
    }
  }

  /** Type, size and SHA of whatever `object` (any rev-parse expression) names; null when nothing. */
  async info(dir: string, object: string): Promise<ObjectInfo | null> {
    return (await this.ask(dir, 'info', object))?.info ?? null;
  }

  /** Bytes of the object `object` names; null when nothing. */
  async contents(dir: string, object: string): Promise<{ info: ObjectInfo; content: Buffer } | null> {
    const r = await this.ask(dir, 'contents', object);
    return r?.content ? { info: r.info, content: r.content } : null;
  }

  closeAll(): void {
    for (const b of this.pool.values()) b.close();
    this.pool.clear();
  }
}

/** One entry of a raw tree object. */
export interface RawTreeEntry {
  mode: string;
  name: string;
  sha: string;
}

/** Parses a binary tree object (`<mode> <name>\0<20-byte sha>`...), zero-padding modes as ls-tree does. */
export function parseTreeObject(buf: Buffer): RawTreeEntry[] {
  const out: RawTreeEntry[] = [];
  let i = 0;
  while (i < buf.length) {
    const sp = buf.indexOf(32, i);
    const nul = buf.indexOf(0, sp);
    if (sp < 0 || nul < 0) break;
    const mode = buf.subarray(i, sp).toString('utf8').padStart(6, '0');
    out.push({
      mode,
      name: buf.subarray(sp + 1, nul).toString('utf8'),
      sha: buf.subarray(nul + 1, nul + 21).toString('hex'),
    });
    i = nul + 21;
  }
  return out;
}
