/**
 * Symlinks in commits. A link's patch is its target text, which may name a hidden path; `get_tree` and the file
 * reads hide such a link (core/symlink.ts), and a commit must not show the text either. The commit APIs give no file
 * modes (GitHub), so the caller reads the few files whose patch could be a link's and tells which sides are links.
 */
import type { CommitFile } from './model.js';
import type { Scope } from './scope.js';

const NO_NEWLINE = '\\ No newline at end of file';

/** Which side of a change a path was read at: the commit itself (`new`) or its first parent (`old`). */
export type LinkSide = 'new' | 'old';

/** The key of one side in the set of bad links. */
export const linkKey = (side: LinkSide, path: string): string => `${side}:${path}`;

/**
 * Readable paths whose change could be a symlink's: its patch is at most one line out and one line in, without a final
 * newline (a link's target is stored without one), or a type change (file <-> link: git gives it no usable patch, and
 * either side may be the link). Returns the paths to read at the commit and at its parent.
 */
export function linkCandidates(files: readonly CommitFile[], scope: Scope): { atNew: string[]; atOld: string[] } {
  const atNew = new Set<string>();
  const atOld = new Set<string>();
  for (const f of files) {
    const oneLine = f.patch !== undefined && f.patch.includes(NO_NEWLINE) && f.additions <= 1 && f.deletions <= 1;
    if (!oneLine && f.status !== 'changed') continue;
    if (f.status !== 'removed' && scope.canRead(f.path)) atNew.add(f.path);
    const old = f.previous_path ?? f.path;
    if (f.status !== 'added' && scope.canRead(old)) atOld.add(old);
  }
  return { atNew: [...atNew], atOld: [...atOld] };
}
