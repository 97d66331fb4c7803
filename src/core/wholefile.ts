/**
 * A file's change as git shows a plain add or delete: line counts and a hunks-only patch, computed from its bytes.
 * Used for the visible side of a rename that crosses the read boundary: the upstream paired it with a hidden file,
 * and its counts and missing patch would otherwise tell how similar the hidden file is (an agent that may write a
 * path it cannot read could confirm a guess line by line). Served instead exactly as an unpaired add or delete.
 */
import { SNIFF_BYTES } from './binary.js';

/** Patches longer than this are omitted, as the local adapter does (GitHub omits large patches too). */
export const MAX_WHOLE_PATCH_BYTES = 64 * 1024;

/** Counts and patch of a whole-file add or delete. */
export interface WholeChange {
  readonly additions: number;
  readonly deletions: number;
  readonly patch?: string;
}

/** The change git reports when a file with these bytes is added (or removed) outright. */
export function wholeFileChange(bytes: Uint8Array, side: 'added' | 'removed'): WholeChange {
  // git's own binary test: a NUL in the first 8000 bytes. Binary files get no counts and no patch.
  const head = bytes.length > SNIFF_BYTES ? bytes.subarray(0, SNIFF_BYTES) : bytes;
  if (head.includes(0)) return { additions: 0, deletions: 0 };
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  if (text === '') return { additions: 0, deletions: 0 };
  const endsWithNewline = text.endsWith('\n');
  const lines = (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  const n = lines.length;
  const range = n === 1 ? '1' : `1,${n}`;
  const header = side === 'added' ? `@@ -0,0 +${range} @@` : `@@ -${range} +0,0 @@`;
  const mark = side === 'added' ? '+' : '-';
  let patch = `${header}\n${lines.map((l) => mark + l).join('\n')}`;
  if (!endsWithNewline) patch += '\n\\ No newline at end of file';
  const counts = side === 'added' ? { additions: n, deletions: 0 } : { additions: 0, deletions: n };
  return new TextEncoder().encode(patch).length <= MAX_WHOLE_PATCH_BYTES ? { ...counts, patch } : counts;
}
