// Deterministic synthetic repositories built with `git fast-import` (seconds for 50,000 files / 20,000 commits),
// cached under bench/.cache/ between runs.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const CACHE_DIR = new URL('./.cache/', import.meta.url).pathname;

export interface RepoShape {
  /** Every file of the first commit, by index. */
  readonly paths: readonly string[];
  /** Total commits on main, the first one included. */
  readonly commits: number;
  /** A commit (by 1-based number) that changes this many files at once. */
  readonly bigCommit?: { readonly at: number; readonly files: number };
  /** Files changed by an ordinary commit are drawn from this subset of indexes when given. */
  readonly churn?: (commit: number, n: number) => number[];
  /** Extra branches pointing at main's head. */
  readonly branches?: readonly string[];
  /** Commit message of commit c. */
  readonly message?: (c: number, files: readonly string[]) => string;
}

/** Mean ~900 bytes of TypeScript-looking text; version `v` changes a line. */
export function contentOf(path: string, k: number, v: number): string {
  const lines = [`// ${path}`, `export const version = ${v};`];
  for (let i = 0; i < 10 + (k % 25); i++)
    lines.push(`export function f${i}(x: number): number { return x * ${(k * 31 + i * 7 + v) % 997}; }`);
  return lines.join('\n') + '\n';
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

/** Builds a bare repository at `dir` from `shape` (deterministic: same shape, same SHAs). */
export async function buildRepo(dir: string, shape: RepoShape): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await run('git', ['init', '-q', '--bare', '-b', 'main', dir]);
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
  ])
    await run('git', ['-C', dir, 'config', k as string, v as string]);
  const child = spawn('git', ['-C', dir, 'fast-import', '--quiet', '--done'], {
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const chunks: Buffer[] = [];
  let pending = 0;
  const push = async (s: string | Buffer): Promise<void> => {
    const b = typeof s === 'string' ? Buffer.from(s) : s;
    chunks.push(b);
    pending += b.length;
    if (pending > 1 << 20) await flush();
  };
  const flush = async (): Promise<void> => {
    const b = Buffer.concat(chunks);
    chunks.length = 0;
    pending = 0;
    if (!child.stdin.write(b)) await new Promise((r) => child.stdin.once('drain', r));
  };
  const data = async (s: string) => push(`data ${Buffer.byteLength(s)}\n${s}\n`);
  const rnd = lcg(42);
  const n = shape.paths.length;
  const version = new Array<number>(n).fill(0);
  const t0 = Date.UTC(2025, 0, 1) / 1000;
  for (let c = 1; c <= shape.commits; c++) {
    let idx: number[];
    if (c === 1) idx = shape.paths.map((_, i) => i);
    else if (shape.bigCommit && c === shape.bigCommit.at)
      idx = Array.from({ length: Math.min(n, shape.bigCommit.files) }, (_, j) => (j * 17) % n);
    else if (shape.churn) idx = shape.churn(c, n);
    else idx = Array.from({ length: 1 + (rnd() % 4) }, () => rnd() % n);
    idx = [...new Set(idx)];
    const files = idx.map((i) => shape.paths[i] as string);
    const when = `${t0 + c * 60} +0000`;
    await push(
      `commit refs/heads/main\nmark :${c}\nauthor Bench Author <author@bench.test> ${when}\ncommitter Bench Committer <committer@bench.test> ${when}\n`,
    );
    await data(
      shape.message?.(c, files) ??
        (c === 1
          ? 'Initial import'
          : `Change ${files.length} file(s) under ${files[0]?.split('/').slice(0, 2).join('/')}`),
    );
    for (const i of idx) {
      version[i] = (version[i] ?? 0) + (c === 1 ? 0 : 1);
      const path = shape.paths[i] as string;
      await push(`M 100644 inline ${path}\n`);
      await data(contentOf(path, i, version[i] ?? 0));
    }
    await push('\n');
  }
  for (const b of shape.branches ?? []) await push(`reset refs/heads/${b}\nfrom :${shape.commits}\n\n`);
  await push('done\n');
  await flush();
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import failed with ${code}`);
}

/** Returns a cached repository built from `shape` under bench/.cache/<name>, building it on first use. */
export async function cachedRepo(
  name: string,
  shape: () => RepoShape,
): Promise<{ dir: string; built: boolean; ms: number }> {
  const dir = join(CACHE_DIR, `${name}.git`);
  const marker = join(dir, 'bench-complete');
  if (existsSync(marker)) return { dir, built: false, ms: 0 };
  const t = Date.now();
  await buildRepo(dir, shape());
  await writeFile(marker, new Date().toISOString());
  return { dir, built: true, ms: Date.now() - t };
}

/** A bare clone of this repository at its current HEAD, cached: a real repository with real code and history. */
export async function selfRepo(): Promise<string> {
  const dir = join(CACHE_DIR, 'self.git');
  if (existsSync(join(dir, 'bench-complete'))) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(CACHE_DIR, { recursive: true });
  const root = new URL('..', import.meta.url).pathname;
  await run('git', ['clone', '-q', '--bare', '--no-local', '--single-branch', root, dir]);
  const head = (await run('git', ['-C', dir, 'symbolic-ref', '--short', 'HEAD'])).stdout.trim();
  if (head !== 'main') await run('git', ['-C', dir, 'branch', '-m', head, 'main']);
  await run('git', ['-C', dir, 'config', 'gc.auto', '0']);
  await writeFile(join(dir, 'bench-complete'), new Date().toISOString());
  return dir;
}

/** Runs git in `dir`, returning stdout (64 MiB buffer). */
export async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', ['-C', dir, ...args], { maxBuffer: 256 * 1024 * 1024 })).stdout;
}
