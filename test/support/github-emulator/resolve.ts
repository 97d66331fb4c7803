// Turning what a caller names (branch, tag, `heads/x`, SHA) into objects, and repository-wide facts.
import { git, gitRaw, objectType, revParse } from './git.js';
import { plausibleRef } from './refname.js';
import type { RepoFacts } from './shapes.js';
import type { RepoEntry } from './state.js';

/** The branch HEAD points at (GitHub's default branch), even in an empty repository. */
export async function defaultBranch(dir: string): Promise<string> {
  const r = await gitRaw(dir, ['symbolic-ref', '--short', '-q', 'HEAD']);
  return r.code === 0 ? r.stdout.toString('utf8').trim() : 'main';
}

/** True when the repository has no branches (GitHub's "Git Repository is empty."). */
export async function isEmpty(dir: string): Promise<boolean> {
  return (await git(dir, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads'])).trim() === '';
}

/** Facts for the repository shapes. */
export async function repoFacts(r: RepoEntry): Promise<RepoFacts> {
  const defaultB = await defaultBranch(r.dir);
  const counts = await git(r.dir, ['count-objects', '-v']);
  const kb = [...counts.matchAll(/^(size|size-pack): (\d+)$/gm)].reduce((n, m) => n + Number(m[2]), 0);
  const latest = (await git(r.dir, ['for-each-ref', '--sort=-committerdate', '--count=1', '--format=%(committerdate:unix)', 'refs/heads'])).trim();
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

/** A commit SHA for a branch, tag, qualified ref or (possibly abbreviated) SHA; null when nothing matches. */
export async function resolveCommit(dir: string, ref: string): Promise<string | null> {
  if (/^[0-9a-f]{40}$/i.test(ref)) return revParse(dir, `${ref.toLowerCase()}^{commit}`);
  if (plausibleRef(ref)) {
    for (const full of candidates(ref)) {
      const sha = await revParse(dir, `${full}^{commit}`);
      if (sha) return sha;
    }
  }
  if (/^[0-9a-f]{7,39}$/i.test(ref)) return revParse(dir, `${ref.toLowerCase()}^{commit}`);
  return null;
}

/** A tree SHA for a tree SHA, commit SHA, branch or tag name; null when nothing matches. */
export async function resolveTree(dir: string, ref: string): Promise<string | null> {
  if (/^[0-9a-f]{40}$/i.test(ref)) {
    const type = await objectType(dir, ref.toLowerCase());
    if (type === 'tree') return ref.toLowerCase();
    if (type === 'commit' || type === 'tag') return revParse(dir, `${ref.toLowerCase()}^{tree}`);
    return null;
  }
  const commit = await resolveCommit(dir, ref);
  return commit ? revParse(dir, `${commit}^{tree}`) : null;
}
