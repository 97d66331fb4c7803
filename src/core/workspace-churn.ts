// Churn of a subtree as one perimeter sees it. Pure: per-commit numstat in (already narrowed to readable paths by the
// adapter on an agent surface), the window's totals out. The window is counted after the cut, on commits that still
// touch a file the perimeter can see, so commits touching only hidden files never use it up.
import { isWithin } from './path.js';
import type { Scope } from './scope.js';
import { linkServable } from './symlink.js';

const LINK = '120000';
const NONE = '000000';

/** One file of a churn commit; `links` when a side is a symlink (its target text; null when not UTF-8). */
export interface RawChurnFile {
  readonly path: string;
  readonly additions: number;
  readonly deletions: number;
  readonly links?: {
    readonly oldMode: string;
    readonly newMode: string;
    readonly old?: string | null;
    readonly new?: string | null;
  };
}

export interface ChurnTotals {
  readonly commits: number;
  readonly additions: number;
  readonly deletions: number;
}

/**
 * A file with its link sides judged: a side that is a link to a target the scope cannot read does not exist (as
 * get_tree and get_file judge it), so the file counts only the other side's lines, or nothing.
 */
function judged(f: RawChurnFile, scope: Scope): { additions: number; deletions: number } | undefined {
  const l = f.links;
  if (l === undefined) return { additions: f.additions, deletions: f.deletions };
  const seen = (mode: string, target: string | null | undefined) =>
    mode !== NONE && (mode !== LINK || (typeof target === 'string' && linkServable(f.path, target, scope)));
  const oldSeen = seen(l.oldMode, l.old);
  const newSeen = seen(l.newMode, l.new);
  if (oldSeen && newSeen) return { additions: f.additions, deletions: f.deletions };
  // A type change or retarget counts each side's lines on its own side of the numstat.
  if (newSeen) return { additions: f.additions, deletions: 0 };
  if (oldSeen) return { additions: 0, deletions: f.deletions };
  return undefined;
}

/** Totals over the first `window` commits (newest first) that touch a readable file under `under` once judged. */
export function cutChurn(
  commits: readonly { readonly files: readonly RawChurnFile[] }[],
  scope: Scope,
  under: string,
  window: number,
): ChurnTotals {
  let counted = 0;
  let additions = 0;
  let deletions = 0;
  for (const c of commits) {
    if (counted >= window) break;
    const files = c.files.flatMap((f) => {
      if (!isWithin(f.path, under) || !scope.canRead(f.path)) return [];
      const j = judged(f, scope);
      return j ? [j] : [];
    });
    if (files.length === 0) continue;
    counted++;
    for (const f of files) {
      additions += f.additions;
      deletions += f.deletions;
    }
  }
  return { commits: counted, additions, deletions };
}
