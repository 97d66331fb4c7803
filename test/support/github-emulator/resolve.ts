// Turning what a caller names (branch, tag, `heads/x`, SHA) into objects, and repository-wide facts.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './git.js';
import type { RepoFacts } from './shapes.js';
import type { RepoEntry } from './state.js';

/** The branch HEAD points at (GitHub's default branch), even in an empty repository. Read from the file: no process. */
export async function defaultBranch(dir: string): Promise<string> {
  const head = await readFile(join(dir, 'HEAD'), 'utf8').catch(() => '');
  const m = /^ref: refs\/heads\/(.+)$/m.exec(head);
  return m?.[1]?.trim() ?? 'main';
}

async function anyFile(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (e.isFile()) return true;
    if (e.isDirectory() && (await anyFile(join(dir, e.name)))) return true;
  }
  return false;
}

/**
 * True when the repository has no branches (GitHub's "Git Repository is empty."). Asked of the files-backend ref
 * store directly (loose refs, then packed-refs) because every route asks it and a git process per request is slow.
 */
export async function isEmpty(dir: string): Promise<boolean> {
  if (await anyFile(join(dir, 'refs', 'heads'))) return false;
  const packed = await readFile(join(dir, 'packed-refs'), 'utf8').catch(() => '');
  return !/^[0-9a-f]{40} refs\/heads\//m.test(packed);
}

/** Facts for the repository shapes. */
export async function repoFacts(r: RepoEntry): Promise<RepoFacts> {
  const [defaultB, counts, latestOut] = await Promise.all([
    defaultBranch(r.dir),
    git(r.dir, ['count-objects', '-v']),
    git(r.dir, ['for-each-ref', '--sort=-committerdate', '--count=1', '--format=%(committerdate:unix)', 'refs/heads']),
  ]);
  const kb = [...counts.matchAll(/^(size|size-pack): (\d+)$/gm)].reduce((n, m) => n + Number(m[2]), 0);
  const latest = latestOut.trim();
  const empty = latest === '';
  return {
    defaultBranch: defaultB,
    sizeKb: empty ? 0 : Math.max(1, kb),
    pushedAt: empty ? r.createdAt : new Date(Number(latest) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}
