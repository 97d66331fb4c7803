// Building trees and commits in a bare repository through a throwaway index (no working tree needed).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, gitRaw, lsTree } from './git.js';

/** One change to a tree: put an object at `path`, or delete what is there (`sha: null`). */
export type TreeEdit = { path: string; mode: string; sha: string } | { path: string; sha: null };

/** Outcome of a tree build: the new tree, or the path whose deletion found nothing. */
export type BuildResult = { ok: true; sha: string } | { ok: false; code: 'missing_path'; path: string };

/** Paths that are proper ancestors of `path` (`a`, `a/b` for `a/b/c`). */
function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Applies `edits` in order on top of `base` (or an empty tree) and writes the result. The index is modelled in
 * memory and changed with one `update-index --index-info` stream (mode 0 removes), so a tree costs a handful of git
 * processes however many entries it has.
 */
export async function buildTree(dir: string, base: string | null, edits: readonly TreeEdit[]): Promise<BuildResult> {
  const index = join(tmpdir(), `gh-emulator-index-${randomUUID()}`);
  const env = { GIT_INDEX_FILE: index };
  const run = (args: string[], input?: string) => git(dir, args, input === undefined ? { env } : { env, input });
  try {
    await run(base ? ['read-tree', '--end-of-options', base] : ['read-tree', '--empty']);
    const present = new Set(base ? (await run(['ls-files', '-z'])).split('\0').filter(Boolean) : []);
    const lines: string[] = [];
    const remove = (p: string): void => {
      present.delete(p);
      lines.push(`0 ${'0'.repeat(40)}\t${p}`);
    };
    for (const e of edits) {
      // Whatever lives at the path now (the file itself, or everything beneath a directory), and files in the way.
      const under = [...present].filter((p) => p === e.path || p.startsWith(`${e.path}/`));
      if (e.sha === null && under.length === 0) return { ok: false, code: 'missing_path', path: e.path };
      under.forEach(remove);
      if (e.sha === null) continue;
      ancestors(e.path)
        .filter((a) => present.has(a))
        .forEach(remove);
      const add = (mode: string, sha: string, path: string): void => {
        present.add(path);
        lines.push(`${mode} ${sha}\t${path}`);
      };
      if (e.mode === '040000') {
        for (const f of await lsTree(dir, e.sha, true))
          if (f.type !== 'tree') add(f.mode, f.sha, `${e.path}/${f.path}`);
      } else {
        add(e.mode, e.sha, e.path);
      }
    }
    if (lines.length) await run(['update-index', '-z', '--index-info'], lines.map((l) => `${l}\0`).join(''));
    return { ok: true, sha: (await run(['write-tree'])).trim() };
  } finally {
    await rm(index, { force: true });
  }
}

/** Writes a blob and returns its SHA (the same as `git hash-object`). */
export async function writeBlob(dir: string, content: Buffer): Promise<string> {
  return (await git(dir, ['hash-object', '-w', '--stdin'], { input: content })).trim();
}

/** Identity and date of an author or committer. */
export interface Signature {
  name: string;
  email: string;
  date: Date;
}

/** Writes a commit object and returns its SHA. */
export async function writeCommit(
  dir: string,
  c: { tree: string; parents: readonly string[]; message: string; author: Signature; committer: Signature },
): Promise<string> {
  const stamp = (d: Date): string => `${Math.floor(d.getTime() / 1000)} +0000`;
  const args = ['commit-tree', c.tree, ...c.parents.flatMap((p) => ['-p', p]), '-F', '-'];
  const r = await gitRaw(dir, args, {
    input: c.message,
    env: {
      GIT_AUTHOR_NAME: c.author.name,
      GIT_AUTHOR_EMAIL: c.author.email,
      GIT_AUTHOR_DATE: stamp(c.author.date),
      GIT_COMMITTER_NAME: c.committer.name,
      GIT_COMMITTER_EMAIL: c.committer.email,
      GIT_COMMITTER_DATE: stamp(c.committer.date),
    },
  });
  if (r.code !== 0) throw new Error(`commit-tree failed: ${r.stderr.trim()}`);
  return r.stdout.toString('utf8').trim();
}
