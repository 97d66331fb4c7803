// Byte-bounded pages over a list an agent may already see. Pure: sizes in, page bounds out. Every page is computed
// from the FILTERED list alone (the caller cuts to the scope first), so where a page ends, how many pages there are
// and whether a page is past the end depend only on visible items: a hidden entry cannot move a boundary.
import { fail, ok, type Result } from './result.js';

/** One page: the items `[start, end)` of the list, and the next page number when more follow. */
export interface Page {
  readonly start: number;
  readonly end: number;
  readonly next?: number;
}

/**
 * Page `page` (1-based) of a list whose item `i` costs `sizes[i]` bytes, each page holding as many items as fit in
 * `budget` bytes and always at least one (so paging always moves on; an item alone over the budget is left to the
 * answer's own backstop). Page 1 of an empty list is the empty page; any other page past the end is refused with the
 * number of pages, which counts visible items only.
 */
export function pageOf(sizes: readonly number[], budget: number, page: number): Result<Page, 'out_of_range'> {
  let start = 0;
  for (let p = 1; ; p++) {
    let end = start;
    let used = 0;
    while (end < sizes.length && (end === start || used + (sizes[end] ?? 0) <= budget)) {
      used += sizes[end] ?? 0;
      end += 1;
    }
    if (p === page) return ok(end < sizes.length ? { start, end, next: page + 1 } : { start, end });
    if (end >= sizes.length)
      return fail('out_of_range', `page ${page} is past the end: this answer has ${p} page${p === 1 ? '' : 's'}.`);
    start = end;
  }
}

/** Strings JSON.stringify writes unchanged, one byte per character: printable ASCII but `"` and `\`. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Bytes of `JSON.stringify(s)` encoded as UTF-8, without building it: quotes, two-byte escapes, six-byte `\u00XX`
 * escapes for other control characters, and UTF-8 widths (a lone surrogate is escaped as `\uXXXX`, as
 * well-formed JSON.stringify does).
 */
export function jsonStringBytes(s: string): number {
  // Most strings (paths, ids) are printable ASCII without a quote or backslash: one byte per character. The native
  // test is a few times faster than the loop below over a listing's 100,000 paths and ids.
  if (PLAIN_JSON.test(s)) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80)
      n +=
        c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d
          ? 2
          : c < 0x20
            ? 6
            : 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

/**
 * The longest prefix of `s` whose JSON string (quotes included) fits in `budget` bytes, ended at the last line break
 * that fits when there is one (so the rest starts on a whole line), never splitting a surrogate pair. `lines` counts
 * the line breaks kept.
 */
export function jsonPrefix(s: string, budget: number): { readonly text: string; readonly lines: number } {
  let n = 2;
  let end = 0;
  let lastBreak = -1;
  let lines = 0;
  while (end < s.length) {
    const c = s.charCodeAt(end);
    let cost: number;
    let width = 1;
    if (c < 0x80)
      cost =
        c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d
          ? 2
          : c < 0x20
            ? 6
            : 1;
    else if (c < 0x800) cost = 2;
    else if (c >= 0xd800 && c <= 0xdbff && end + 1 < s.length && (s.charCodeAt(end + 1) & 0xfc00) === 0xdc00) {
      cost = 4;
      width = 2;
    } else if (c >= 0xd800 && c <= 0xdfff) cost = 6;
    else cost = 3;
    if (n + cost > budget) break;
    n += cost;
    end += width;
    if (c === 0x0a) {
      lastBreak = end;
      lines += 1;
    }
  }
  if (end === s.length || lastBreak < 0) return { text: s.slice(0, end), lines };
  return { text: s.slice(0, lastBreak), lines };
}
