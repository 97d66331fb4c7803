// The pure half of search_code: which files a search may look into, what a query may contain, and how a hit's line
// is cut. The upstream finds matches; these rules decide what is searched and what an agent is shown.
import type { TreeEntry } from './model.js';
import { isWithin } from './path.js';
import type { Scope } from './scope.js';

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
export function searchableFiles(entries: readonly TreeEntry[], scope: Scope, base: string, maxBytes = MAX_SEARCH_FILE_BYTES): TreeEntry[] {
  return entries.filter(
    (e) => e.type === 'file' && (base === '' || isWithin(e.path, base)) && e.path !== base && scope.canRead(e.path) && (e.size ?? 0) <= maxBytes,
  );
}

/** True when at least one readable file (of any kind) lies below `base`: a directory with none reads as missing. */
export function holdsReadable(entries: readonly TreeEntry[], scope: Scope, base: string): boolean {
  return entries.some((e) => e.type !== 'dir' && (base === '' || isWithin(e.path, base)) && e.path !== base && scope.canRead(e.path));
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
