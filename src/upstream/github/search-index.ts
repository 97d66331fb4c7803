// The GitHub search index: blob texts by SHA, kept in memory (byte-bounded LRU) and on disk under the state dir
// (byte-bounded), filled from `git/blobs` on first need. GitHub's own code search cannot serve a perimeter (default
// branch only, a few requests a minute, counts that include hidden files), so searches scan these texts instead.
//
// Why a scan rather than a trigram or FTS index (measured, bench/findings.md): a warm literal scan of a 5,000-file
// repository takes tens of milliseconds in V8, well inside the 200 ms target, and content-addressed blobs make a moved
// branch cost only the blobs it changed. A token index would not serve regular expressions or substrings anyway.
// Only the files a search names are fetched (the caller passes the readable ones), so no request, byte or timing ever
// depends on a hidden file; a perimeter changed at runtime needs no rebuild.
import { mkdir, readFile, readdir, stat, writeFile, rename } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { GrepMatch, GrepRequest, GrepResult } from '../types.js';
import { ByteLru } from './cache.js';
import { mapLimit, type Ctx, type RepoRef } from './context.js';
import { fetchBlob } from './files.js';
import { scanTexts, type ScanHit } from './scan.js';

export interface SearchIndexOptions {
  /** Directory for blob texts kept across restarts; absent = memory only. */
  readonly dir?: string;
  /** Bytes kept on disk (default 1 GiB); beyond it new texts stay in memory only. */
  readonly diskBytes?: number;
  /** Bytes of decoded text kept in memory (default 256 MiB). */
  readonly memoryBytes?: number;
}

const FETCH_CONCURRENCY = 8;
const WINDOW_CHARS = 1024;
const SNIFF_BYTES = 8000;
const FULL_SHA = /^[0-9a-f]{40}$/;

/** What one blob is to the search: its text, or `null` when git's rule calls it binary (a NUL in the first 8000 bytes). */
type Text = string | null;

export interface SearchIndex {
  /**
   * Searches the texts of `request.files`, fetching the blobs it does not hold yet (the index is filled lazily,
   * so a branch that moved costs only the blobs it changed). `requests` counts the GitHub requests it made.
   */
  search(ctx: Ctx, r: RepoRef, request: GrepRequest): Promise<{ result: GrepResult; requests: number }>;
}

const textOf = (bytes: Buffer): Text => (bytes.subarray(0, SNIFF_BYTES).includes(0) ? null : bytes.toString('utf8'));

/** Builds the index. */
export function createSearchIndex(opts: SearchIndexOptions = {}): SearchIndex {
  const memory = new ByteLru(opts.memoryBytes ?? 256 * 1024 * 1024);
  const diskBudget = opts.diskBytes ?? 1024 * 1024 * 1024;
  let diskUsed: Promise<number> | undefined;

  const repoDir = (r: RepoRef): string | undefined =>
    opts.dir ? join(opts.dir, createHash('sha256').update(r.key).digest('hex').slice(0, 32)) : undefined;
  const key = (r: RepoRef, sha: string) => `${r.key}\0${sha}`;

  async function usage(): Promise<number> {
    diskUsed ??= (async () => {
      if (!opts.dir) return 0;
      let total = 0;
      const walk = async (d: string): Promise<void> => {
        const names = await readdir(d).catch(() => [] as string[]);
        for (const n of names) {
          const p = join(d, n);
          const s = await stat(p).catch(() => undefined);
          if (s?.isDirectory()) await walk(p);
          else if (s) total += s.size;
        }
      };
      await walk(opts.dir);
      return total;
    })();
    return diskUsed;
  }

  async function fromDisk(r: RepoRef, sha: string): Promise<Buffer | undefined> {
    const d = repoDir(r);
    if (!d || !FULL_SHA.test(sha)) return undefined;
    return readFile(join(d, sha.slice(0, 2), sha)).catch(() => undefined);
  }

  async function toDisk(r: RepoRef, sha: string, bytes: Buffer): Promise<void> {
    const d = repoDir(r);
    if (!d || !FULL_SHA.test(sha)) return;
    const used = await usage();
    if (used + bytes.length > diskBudget) return;
    diskUsed = Promise.resolve(used + bytes.length);
    const sub = join(d, sha.slice(0, 2));
    await mkdir(sub, { recursive: true, mode: 0o700 });
    const tmp = join(sub, `.${sha}.${process.pid}.tmp`);
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, join(sub, sha));
  }

  function remember(r: RepoRef, sha: string, bytes: Buffer): Text {
    const t = textOf(bytes);
    memory.set(key(r, sha), t, t === null ? 64 : t.length * 2 + 64);
    return t;
  }

  /** The text of one blob: memory, then disk, then GitHub. */
  async function load(ctx: Ctx, r: RepoRef, sha: string, counter: { n: number }): Promise<Text> {
    const held = memory.peek<Text>(key(r, sha));
    if (held !== undefined) return held;
    const saved = await fromDisk(r, sha);
    if (saved) return remember(r, sha, saved);
    counter.n += 1;
    const bytes = await fetchBlob(ctx, r, sha);
    await toDisk(r, sha, bytes).catch((err: unknown) =>
      ctx.log('warn', 'search index: could not keep a blob on disk', { error: String(err) }),
    );
    return remember(r, sha, bytes);
  }

  return {
    async search(ctx, r, request) {
      const counter = { n: 0 };
      const loaded = await mapLimit(request.files, FETCH_CONCURRENCY, (f) => load(ctx, r, f.sha, counter));
      const files = request.files.filter((_f, i) => typeof loaded[i] === 'string');
      const texts = loaded.filter((t): t is string => typeof t === 'string');
      const literal = request.mode === 'literal';
      const source = literal ? request.pattern.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&') : request.pattern;
      const flags = request.caseSensitive ? '' : 'i';
      const scanned = literal
        ? { hits: scanTexts(texts, source, flags, false, request.maxMatches, WINDOW_CHARS), timedOut: false }
        : await inWorker(texts, source, flags, request.maxMatches, request.timeoutMs);
      const matches: GrepMatch[] = scanned.hits.map((h) => ({
        path: (files[h.file] as { path: string }).path,
        line: h.line,
        column: h.column,
        text: h.text,
        textColumn: h.textColumn,
      }));
      const end = scanned.timedOut ? 'timeout' : matches.length >= request.maxMatches ? 'limit' : 'complete';
      // V8's engine has no match limit (only the time bound): nothing is ever skipped here.
      return { result: { matches, end, skipped: [] }, requests: counter.n };
    },
  };
}

const WORKER_SOURCE = (scan: string) => `
const { parentPort, workerData } = require('node:worker_threads');
${scan}
const d = workerData;
parentPort.postMessage(scanTexts(d.texts, d.source, d.flags, true, d.max, d.window));
`;

/** Runs a regular-expression scan in a worker, killed at `timeoutMs`: a catastrophic pattern never blocks this thread. */
function inWorker(
  texts: string[],
  source: string,
  flags: string,
  max: number,
  timeoutMs: number,
): Promise<{ hits: ScanHit[]; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE(scanTexts.toString()), {
      eval: true,
      workerData: { texts, source, flags, max, window: WINDOW_CHARS },
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      void worker.terminate();
      resolve({ hits: [], timedOut: true });
    }, timeoutMs);
    worker.once('message', (hits: ScanHit[]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve({ hits, timedOut: false });
    });
    worker.once('error', (err) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(err);
    });
  });
}
