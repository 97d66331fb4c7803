// Turning what a caller names (branch, tag, `heads/x`, SHA) into objects, and repository-wide facts.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitRaw } from './git.js';
import { plausibleRef } from './refname.js';
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

/** Candidate full ref names for what a caller wrote, in GitHub's lookup order (branch before tag). */
function candidates(ref: string): string[] {
  if (ref.startsWith('refs/')) return [ref];
  if (ref.startsWith('heads/') || ref.startsWith('tags/')) return [`refs/${ref}`, `refs/heads/${ref}`, `refs/tags/${ref}`];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

/** The first expression that names an object, resolved in one `cat-file --batch-check` (one process, not one per try). */
async function firstExisting(dir: string, exprs: readonly string[]): Promise<{ sha: string; type: string } | null> {
  if (exprs.length === 0) return null;
  const r = await gitRaw(dir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: exprs.map((e) => `${e}\n`).join('') });
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const m = /^([0-9a-f]{40}) (\w+)$/.exec(line);
    if (m?.[1] && m[2]) return { sha: m[1], type: m[2] };
  }
  return null;
}

/** Expressions worth trying for what a caller wrote, in GitHub's order: full SHA, branch, tag, abbreviated SHA. */
function commitExprs(ref: string): string[] {
  if (/^[0-9a-f]{40}$/i.test(ref)) return [`${ref.toLowerCase()}^{commit}`];
  const out = plausibleRef(ref) ? candidates(ref).map((c) => `${c}^{commit}`) : [];
  if (/^[0-9a-f]{7,39}$/i.test(ref)) out.push(`${ref.toLowerCase()}^{commit}`);
  return out;
}

/** A commit SHA for a branch, tag, qualified ref or (possibly abbreviated) SHA; null when nothing matches. */
export async function resolveCommit(dir: string, ref: string): Promise<string | null> {
  return (await firstExisting(dir, commitExprs(ref)))?.sha ?? null;
}

/** A tree SHA for a tree SHA, commit SHA, branch or tag name; null when nothing matches. */
export async function resolveTree(dir: string, ref: string): Promise<string | null> {
  if (/^[0-9a-f]{40}$/i.test(ref)) return (await firstExisting(dir, [`${ref.toLowerCase()}^{tree}`]))?.sha ?? null;
  return (await firstExisting(dir, commitExprs(ref).map((e) => e.replace(/\^\{commit\}$/, '^{tree}'))))?.sha ?? null;
}
