// What a tree we built changes against its base: a walk of both trees that descends only where their ids differ, so
// the cost is the directories the write touched, not the repository. A directory replaced by a file (or a file by a
// directory) lists every file below the directory: those are the paths the Git Data API would silently remove.
import { type Ctx, type RepoRef } from './context.js';
import { failure } from './errors.js';
import { fetchTree, type RawEntry } from './tree.js';

/** Trees fetched for one diff before giving up (a write that touches more is refused as too large to check). */
const MAX_DIFF_TREES = 400;

const isTree = (e: RawEntry | undefined): e is RawEntry => e !== undefined && e.type === 'tree';

/** Every file path that differs between trees `base` and `head` (full repository paths). */
export async function changedTreePaths(ctx: Ctx, r: RepoRef, base: string, head: string): Promise<string[]> {
  const out: string[] = [];
  let fetched = 0;
  const tree = async (sha: string, recursive: boolean) => {
    if (++fetched > MAX_DIFF_TREES)
      throw failure('too_large', 'This change touches too many directories to check; split it into smaller commits.');
    return fetchTree(ctx, r, sha, recursive);
  };
  const filesBelow = async (sha: string, prefix: string): Promise<void> => {
    const t = await tree(sha, true);
    if (t.truncated)
      throw failure('too_large', 'This change replaces too many files to check; split it into smaller commits.');
    for (const e of t.entries) if (e.type !== 'tree') out.push(`${prefix}/${e.path}`);
  };
  const walk = async (a: string, b: string, prefix: string): Promise<void> => {
    if (a === b) return;
    const [ta, tb] = await Promise.all([tree(a, false), tree(b, false)]);
    const left = new Map(ta.entries.map((e) => [e.path, e]));
    const right = new Map(tb.entries.map((e) => [e.path, e]));
    for (const name of [...new Set([...left.keys(), ...right.keys()])].sort()) {
      const x = left.get(name);
      const y = right.get(name);
      if (x && y && x.sha === y.sha && x.mode === y.mode) continue;
      const path = prefix ? `${prefix}/${name}` : name;
      if (isTree(x) && isTree(y)) {
        await walk(x.sha, y.sha, path);
        continue;
      }
      if (isTree(x)) await filesBelow(x.sha, path);
      else if (x) out.push(path);
      if (isTree(y)) await filesBelow(y.sha, path);
      else if (y) out.push(path);
    }
  };
  await walk(base, head, '');
  return [...new Set(out)];
}
