// One lock file serialises appenders across processes: created with `wx`, holding {pid, host, token, at}.
// A lock is stale when its holder's pid is gone (same host) or it is older than staleMs.
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { link, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long to wait for the lock, and when a held lock counts as abandoned. */
export interface LockTiming {
  timeoutMs: number;
  staleMs: number;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
  at: number;
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errno(e) === 'EPERM';
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    return typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.token === 'string'
      ? (h as Holder)
      : undefined;
  } catch {
    return undefined;
  }
}

async function isStale(path: string, text: string, staleMs: number): Promise<boolean> {
  const holder = parseHolder(text);
  if (holder && holder.host === hostname() && holder.pid !== process.pid && !pidAlive(holder.pid)) return true;
  // An unparseable lock is a holder caught between create and write: only age can condemn it.
  const { mtimeMs } = await stat(path);
  return Date.now() - mtimeMs > staleMs;
}

/**
 * Removes a stale lock without removing a fresh one that replaced it meanwhile: move it aside, compare, and put it
 * back if it was not the one judged stale. Known wart: a third process can take the lock in that short window and then
 * two holders exist; it needs two processes breaking the same stale lock at the same instant.
 */
async function breakStale(path: string, judged: string): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (e) {
    if (errno(e) === 'ENOENT') return;
    throw e;
  }
  const moved = await readFile(aside, 'utf8');
  if (moved !== judged) await link(aside, path).catch(() => undefined);
  await unlink(aside);
}

// Taking and releasing the lock are a few metadata calls on a small local file, once per batch of the ledger: done
// synchronously, they cost microseconds where each trip through the thread pool cost a wake-up and a callback (the
// sequential call path paid about a dozen of them per entry; issue 24). Waiting and breaking a stale lock stay async.
// This assumes the audit dir is on a local disk (the state dir's place): on a network mount that stalls, these calls
// would stall the whole process, not only the ledger.
function tryCreate(path: string, holder: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, JSON.stringify(holder));
  } catch (e) {
    // A lock that could not say who holds it would only be broken as stale, 30 s later: it is not left behind.
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
    throw e;
  }
  closeSync(fd);
  return true;
}

/** The lock's text, or undefined when it is gone (or unreadable: then it is not ours to remove). */
function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs fn while holding the lock file at `path`; rejects when the lock cannot be had within timeoutMs. */
export async function withFileLock<T>(path: string, timing: LockTiming, fn: () => Promise<T>): Promise<T> {
  const holder: Holder = { pid: process.pid, host: hostname(), token: randomUUID(), at: Date.now() };
  const deadline = Date.now() + timing.timeoutMs;
  for (;;) {
    if (tryCreate(path, holder)) break;
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
      if (await isStale(path, text, timing.staleMs)) {
        await breakStale(path, text);
        continue;
      }
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
      continue; // released between our attempts
    }
    if (Date.now() > deadline) throw new Error(`audit lock ${path} is held by another writer (timed out)`);
    await sleep(2 + Math.floor(Math.random() * 10));
  }
  try {
    return await fn();
  } finally {
    // Only remove our own lock: if it was judged stale and broken, the file now belongs to someone else.
    const text = readLock(path);
    if (text !== undefined && parseHolder(text)?.token === holder.token) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone: nothing of ours is left behind.
      }
    }
  }
}
