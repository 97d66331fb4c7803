/**
 * Text edits that refuse instead of overwriting: each `old_text` is located in the content the agent is editing (the
 * file as it is now, never the result of another edit of the same call), must be found exactly once (or at the asked
 * occurrence), and no two edits may overlap. Pure: strings in, the new text or the first refusal out.
 */
import { fail, ok, type Result } from './result.js';

/** One replacement. `occurrence` (from 1) picks among several matches, counted left to right without overlap. */
export interface TextEdit {
  readonly old_text: string;
  readonly new_text: string;
  readonly occurrence?: number | undefined;
}

/** Why a set of edits does not apply; the message names the file and the edit (1-based) and says nothing was written. */
export type EditRefusal = 'not_found' | 'ambiguous' | 'occurrence' | 'overlap' | 'unchanged';

/** Matches are counted up to this many: enough to say "occurs N times" and to reach any sane occurrence. */
export const MAX_COUNTED = 1000;

/** Offsets of up to `limit` non-overlapping matches of `needle` in `text`. */
function matchesOf(text: string, needle: string, limit: number): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i !== -1 && at.length < limit; i = text.indexOf(needle, i + needle.length))
    at.push(i);
  return at;
}

const times = (n: number): string => (n >= MAX_COUNTED ? `at least ${MAX_COUNTED} times` : `${n} times`);

/**
 * Applies `edits` to `text` (the file at `path`), or refuses with the first problem found, in edit order. Every edit
 * is located in `text` itself, so the agent's `old_text` is compared with what it read.
 */
export function applyEdits(path: string, text: string, edits: readonly TextEdit[]): Result<string, EditRefusal> {
  const spans: { start: number; end: number; edit: number; text: string }[] = [];
  for (const [i, e] of edits.entries()) {
    const label = `Edit ${i + 1} of "${path}"`;
    const want = e.occurrence ?? 1;
    const found = matchesOf(text, e.old_text, e.occurrence === undefined ? 2 : Math.min(want, MAX_COUNTED));
    if (found.length === 0)
      return fail(
        'not_found',
        `${label}: old_text does not occur in the file as it is now; nothing was written. Read it again and retry.`,
      );
    if (e.occurrence === undefined && found.length > 1) {
      const n = matchesOf(text, e.old_text, MAX_COUNTED).length;
      return fail(
        'ambiguous',
        `${label}: old_text occurs ${times(n)}; nothing was written. Give more surrounding text, or an occurrence (1 to ${Math.min(n, MAX_COUNTED)}).`,
      );
    }
    const start = found[want - 1];
    if (start === undefined) {
      const n = found.length;
      return fail(
        'occurrence',
        `${label}: occurrence ${want} was asked but old_text occurs ${times(n)}; nothing was written.`,
      );
    }
    spans.push({ start, end: start + e.old_text.length, edit: i + 1, text: e.new_text });
  }
  spans.sort((a, b) => a.start - b.start || a.edit - b.edit);
  for (let k = 1; k < spans.length; k++) {
    const prev = spans[k - 1];
    const cur = spans[k];
    if (prev && cur && cur.start < prev.end) {
      const [x, y] = prev.edit < cur.edit ? [prev.edit, cur.edit] : [cur.edit, prev.edit];
      return fail(
        'overlap',
        `Edits ${x} and ${y} of "${path}" replace overlapping text; nothing was written. Merge them into one edit.`,
      );
    }
  }
  let out = '';
  let from = 0;
  for (const s of spans) {
    out += text.slice(from, s.start) + s.text;
    from = s.end;
  }
  out += text.slice(from);
  if (out === text)
    return fail('unchanged', `The edits leave "${path}" as it is; nothing was written (no empty commit is made).`);
  return ok(out);
}
