// The pure half of search_code: which files a search may look into, what a query may contain, and how a hit's line
// is cut. The upstream finds matches; these rules decide what is searched and what an agent is shown.
import type { TreeEntry } from './model.js';
import { isWithin, parentOf } from './path.js';
import type { Scope } from './scope.js';
import { linkServable } from './symlink.js';

/** Files above this size are not searched (on either upstream, so both answer alike). */
export const MAX_SEARCH_FILE_BYTES = 1024 * 1024;
/** Characters of a matching line an answer carries. */
export const EXCERPT_CHARS = 300;
/** How much of the excerpt comes before the match when the line is longer. */
const LEAD_CHARS = 100;

/** Why a query cannot be searched, or undefined. Line breaks, NUL and other control characters never match a line. */
export function queryProblem(query: string, regex: boolean, caseSensitive: boolean): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(query)) {
    return 'The query contains a line break or a control character; search for text on one line (tabs are fine).';
  }
  if (!regex) return undefined;
  try {
    new RegExp(query, caseSensitive ? '' : 'i');
  } catch (e) {
    return `The regular expression is not valid: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}.`;
  }
  return undefined;
}

/**
 * The files below `base` a search may look into: readable regular files up to the size bound (never symlinks or
 * submodules, whose "text" is a target name or a commit id), in listing order.
 */
export function searchableFiles(
  entries: readonly TreeEntry[],
  scope: Scope,
  base: string,
  maxBytes = MAX_SEARCH_FILE_BYTES,
): TreeEntry[] {
  return entries.filter(
    (e) =>
      e.type === 'file' &&
      (base === '' || isWithin(e.path, base)) &&
      e.path !== base &&
      scope.canRead(e.path) &&
      (e.size ?? 0) <= maxBytes,
  );
}

/** True when at least one readable file (of any kind) lies below `base`: a directory with none reads as missing. */
export function holdsReadable(entries: readonly TreeEntry[], scope: Scope, base: string): boolean {
  return entries.some(
    (e) => e.type !== 'dir' && (base === '' || isWithin(e.path, base)) && e.path !== base && scope.canRead(e.path),
  );
}

/**
 * The readable symlinks below `base` whose targets decide whether `base` shows at all: none when another readable
 * entry already keeps it visible, else the first `max` links in listing order (get_tree reads the same ones).
 */
export function linksDecidingDir(entries: readonly TreeEntry[], scope: Scope, base: string, max: number): string[] {
  const below = entries.filter(
    (e) => e.type !== 'dir' && isWithin(e.path, base) && e.path !== base && scope.canRead(e.path),
  );
  if (below.some((e) => e.type !== 'symlink')) return [];
  return below.map((e) => e.path).slice(0, max);
}

/**
 * Whether `base` shows, judged like get_tree: a readable non-link entry below it, or a readable link whose target is
 * readable (`targets` holds the links that were read; a link not read reads as missing).
 */
export function dirVisible(
  entries: readonly TreeEntry[],
  scope: Scope,
  base: string,
  targets: ReadonlyMap<string, string | undefined>,
): boolean {
  return entries.some((e) => {
    if (e.type === 'dir' || !isWithin(e.path, base) || e.path === base || !scope.canRead(e.path)) return false;
    if (e.type !== 'symlink') return true;
    const target = targets.get(e.path);
    return target !== undefined && linkServable(e.path, target, scope);
  });
}

/**
 * The fewest literal pathspecs (directories or files, in listing order) whose blobs are exactly `files`: a directory
 * stands for its files only when every non-directory entry below it is one of them. `''` (the whole tree) only when
 * `base` is the root and every entry is searched. What an upstream runs the agent's pattern on is decided here, so
 * a hidden, oversized or linked entry can never fall under a pathspec.
 */
export function exactCover(entries: readonly TreeEntry[], files: readonly string[], base: string): string[] {
  const chosen = new Set(files);
  // For each directory at or below `base` (the root as ''): how many non-directory entries it holds, and how many chosen.
  const total = new Map<string, number>();
  const picked = new Map<string, number>();
  const ancestors = (path: string): string[] => {
    const out: string[] = [];
    for (let d = parentOf(path); ; d = parentOf(d)) {
      if (base !== '' && !isWithin(d, base)) break;
      out.push(d);
      if (d === '' || d === base) break;
    }
    return out;
  };
  for (const e of entries) {
    if (e.type === 'dir' || !isWithin(e.path, base) || e.path === base) continue;
    for (const d of ancestors(e.path)) {
      total.set(d, (total.get(d) ?? 0) + 1);
      if (chosen.has(e.path)) picked.set(d, (picked.get(d) ?? 0) + 1);
    }
  }
  const whole = (d: string): boolean => (picked.get(d) ?? 0) > 0 && picked.get(d) === total.get(d);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    // The highest wholly chosen ancestor stands for `f`; ancestors() runs from the nearest up.
    let item = f;
    for (const d of ancestors(f)) if (whole(d)) item = d;
    if (!seen.has(item)) {
      seen.add(item);
      out.push(item);
    }
  }
  return out;
}

/**
 * Cuts a piece of a matching line (`text` starts at `textColumn`; the match at `column`, both 1-based) to at most
 * EXCERPT_CHARS characters around the match, never splitting a surrogate pair.
 */
export function excerpt(text: string, textColumn: number, column: number): string {
  if (text.length <= EXCERPT_CHARS) return text;
  const at = Math.max(0, column - textColumn);
  let start = Math.max(0, Math.min(at - LEAD_CHARS, text.length - EXCERPT_CHARS));
  let end = start + EXCERPT_CHARS;
  if (/[\uDC00-\uDFFF]/.test(text[start] ?? '')) start += 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1;
  return text.slice(start, end);
}
