// Object lookups through the repository's long-lived cat-file process: resolving names, reading blobs and entries.
import type { CommitInfo, LsEntry } from './git.js';
import { parseTreeObject } from './batch.js';
import { plausibleRef } from './refname.js';
import type { RepoEntry } from './state.js';

/** The object type (`blob`, `tree`, `commit`, `tag`) of a full SHA, or null when it does not exist. */
export async function objectType(r: RepoEntry, sha: string): Promise<string | null> {
  if (!/^[0-9a-f]{40}$/.test(sha)) return null;
  return (await r.batch.info(r.dir, sha))?.type ?? null;
}

/** Reads a blob's bytes (throws when it is missing: callers found it in a tree first). */
export async function readBlob(r: RepoEntry, sha: string): Promise<Buffer> {
  const got = await r.batch.contents(r.dir, sha);
  if (!got || got.info.type !== 'blob') throw new Error(`no blob ${sha}`);
  return got.content;
}

/** Candidate full ref names for what a caller wrote, in GitHub's lookup order (branch before tag). */
function candidates(ref: string): string[] {
  if (ref.startsWith('refs/')) return [ref];
  if (ref.startsWith('heads/') || ref.startsWith('tags/'))
    return [`refs/${ref}`, `refs/heads/${ref}`, `refs/tags/${ref}`];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

/** Names worth trying for what a caller wrote: full SHA, else branch, tag, then an abbreviated SHA. */
function names(ref: string): string[] {
  if (/^[0-9a-f]{40}$/i.test(ref)) return [ref.toLowerCase()];
  const out = plausibleRef(ref) ? candidates(ref) : [];
  if (/^[0-9a-f]{7,39}$/i.test(ref)) out.push(ref.toLowerCase());
  return out;
}

async function firstPeeled(r: RepoEntry, ref: string, kind: 'commit' | 'tree'): Promise<string | null> {
  for (const n of names(ref)) {
    const got = await r.batch.info(r.dir, `${n}^{${kind}}`);
    if (got) return got.sha;
  }
  return null;
}

/** A commit SHA for a branch, tag, qualified ref or (possibly abbreviated) SHA; null when nothing matches. */
export function resolveCommit(r: RepoEntry, ref: string): Promise<string | null> {
  return firstPeeled(r, ref, 'commit');
}

/** A tree SHA for a tree SHA, commit SHA, branch or tag name; null when nothing matches. */
export function resolveTree(r: RepoEntry, ref: string): Promise<string | null> {
  return firstPeeled(r, ref, 'tree');
}

const TYPE_OF_MODE: Record<string, LsEntry['type']> = { '040000': 'tree', '160000': 'commit' };

/** The entry at `path` inside `commit` (mode, type, sha, blob size), or null. */
export async function entryAt(r: RepoEntry, commit: string, path: string): Promise<LsEntry | null> {
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  const name = parts.pop() ?? '';
  // `<commit>:<dir>` takes the directory literally (no pathspec magic); the root is `<commit>^{tree}`.
  const parent = await r.batch.contents(r.dir, parts.length ? `${commit}:${parts.join('/')}` : `${commit}^{tree}`);
  if (!parent || parent.info.type !== 'tree') return null;
  const hit = parseTreeObject(parent.content).find((e) => e.name === name);
  if (!hit) return null;
  const type = TYPE_OF_MODE[hit.mode] ?? 'blob';
  const size = type === 'blob' ? ((await r.batch.info(r.dir, hit.sha))?.size ?? 0) : null;
  return { mode: hit.mode, type, sha: hit.sha, size, path };
}

function isoSeconds(epoch: string): string {
  return new Date(Number(epoch) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Metadata of one commit, parsed from the raw object (the same facts `git log` prints). */
export async function commitInfo(r: RepoEntry, sha: string): Promise<CommitInfo> {
  const got = await r.batch.contents(r.dir, sha);
  if (!got || got.info.type !== 'commit') throw new Error(`no commit ${sha}`);
  const text = got.content.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split >= 0 ? text.slice(0, split) : text).split('\n');
  const message = split >= 0 ? text.slice(split + 2).replace(/\n$/, '') : '';
  const info: CommitInfo = {
    sha: got.info.sha,
    tree: '',
    parents: [],
    authorName: '',
    authorEmail: '',
    authorDate: '',
    committerName: '',
    committerEmail: '',
    committerDate: '',
    message,
  };
  for (const h of headers) {
    const sp = h.indexOf(' ');
    const key = h.slice(0, sp);
    const value = h.slice(sp + 1);
    if (key === 'tree') info.tree = value;
    else if (key === 'parent') info.parents.push(value);
    else if (key === 'author' || key === 'committer') {
      const m = /^(.*) <([^>]*)> (\d+) [+-]\d{4}$/.exec(value);
      if (!m) continue;
      if (key === 'author')
        [info.authorName, info.authorEmail, info.authorDate] = [m[1] ?? '', m[2] ?? '', isoSeconds(m[3] ?? '0')];
      else
        [info.committerName, info.committerEmail, info.committerDate] = [
          m[1] ?? '',
          m[2] ?? '',
          isoSeconds(m[3] ?? '0'),
        ];
    }
  }
  return info;
}
