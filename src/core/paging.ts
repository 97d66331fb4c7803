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
    if (end >= sizes.length) return fail('out_of_range', `page ${page} is past the end: this answer has ${p} page${p === 1 ? '' : 's'}.`);
    start = end;
  }
}
