// Conflicts as one perimeter sees them. Pure: a merge-tree prediction and the stages of one conflicted file in, what
// an agent may read out. Conflicts on hidden paths are counted, never named; a side's bytes are shown only when the
// core would serve them through get_file (text within the cap; a link only when its target is readable).
import { decodeUtf8, sniffBinary } from './binary.js';
import type { Scope } from './scope.js';
import { linkServable } from './symlink.js';

export interface PreflightCut {
  /** `conflicts` when the cut list or the opaque count is not empty: never git's exit code (a write-only conflict sets it). */
  readonly status: 'clean' | 'conflicts';
  readonly conflicts: readonly string[];
  /** Conflicted paths outside the window (not those the perimeter may write but not read). */
  readonly omitted_count: number;
}

/**
 * Cuts the conflicted paths `git merge-tree --write-tree --name-only` names to the scope: readable ones listed (sorted,
 * once each), hidden ones counted unless the perimeter may write them (SPEC §4.11), and the status derived from
 * those two alone: git's own verdict also reflects write-only paths, so it never reaches the answer.
 */
export function cutPreflight(paths: readonly string[], scope: Scope): PreflightCut {
  const seen = new Set<string>();
  const shown: string[] = [];
  let omitted = 0;
  for (const p of paths) {
    if (seen.has(p)) continue;
    seen.add(p);
    if (scope.canRead(p)) shown.push(p);
    else if (!scope.canWrite(p)) omitted++;
  }
  shown.sort();
  return { status: shown.length + omitted > 0 ? 'conflicts' : 'clean', conflicts: shown, omitted_count: omitted };
}

/** One stage of a conflicted file as the adapter read it (object id, mode and bytes, possibly cut at a cap). */
export interface RawSide {
  readonly sha: string;
  readonly mode: string;
  readonly size: number;
  readonly bytes: Uint8Array;
  /** True when `bytes` is a prefix of the blob (the adapter stopped at its cap). */
  readonly truncated: boolean;
  /**
   * True when this path held the blob in the commit the stage stands for. False: git paired it from another path
   * (a rename), whose readability nobody judged, so the stage reads as absent.
   */
  readonly atPath: boolean;
}

export type SideView =
  | { readonly present: false }
  | { readonly present: true; readonly sha: string; readonly size: number; readonly binary: true }
  | {
      readonly present: true;
      readonly sha: string;
      readonly size: number;
      readonly binary: false;
      readonly truncated: boolean;
      readonly content: string;
    };

/** One marker region in the working file, 1-based line numbers of `<<<<<<<`, `=======` and `>>>>>>>`. */
export interface MarkerRegion {
  readonly start_line: number;
  readonly separator_line: number;
  readonly end_line: number;
}

const LINK_MODE = '120000';

/**
 * Whether the working file of a conflict may be shown: only when every stage git merged into it came from this path.
 * Its conflict hunks are the stages' lines, so a stage taken from a hidden file by rename pairing would show there.
 */
export function workingServable(sides: readonly (RawSide | undefined)[]): boolean {
  return sides.every((s) => s === undefined || s.atPath);
}

/**
 * A stage as served. A stage git paired from another path reads as absent. A link whose target is not readable reads as an absent stage (as get_file reads it as missing);
 * binary content is flagged, never decoded; text is cut to `maxBytes` on a character boundary.
 */
export function sideView(path: string, side: RawSide | undefined, scope: Scope, maxBytes: number): SideView {
  if (side === undefined || !side.atPath) return { present: false };
  if (side.mode === LINK_MODE) {
    const target = decodeUtf8(side.bytes);
    if (target === undefined || side.truncated || !linkServable(path, target, scope)) return { present: false };
  }
  if (sniffBinary(side.truncated ? trimPartialChar(side.bytes) : side.bytes))
    return { present: true, sha: side.sha, size: side.size, binary: true };
  const cut = side.bytes.length > maxBytes ? trimPartialChar(side.bytes.subarray(0, maxBytes)) : side.bytes;
  const content = decodeUtf8(cut) ?? '';
  return {
    present: true,
    sha: side.sha,
    size: side.size,
    binary: false,
    truncated: side.truncated || cut.length < side.bytes.length,
    content,
  };
}

/** Drops a trailing incomplete UTF-8 sequence, so a cut never turns text into "binary". */
export function trimPartialChar(bytes: Uint8Array): Uint8Array {
  let i = bytes.length;
  let back = 0;
  while (i > 0 && back < 4 && ((bytes[i - 1] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return bytes;
  const lead = bytes[i - 1] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? bytes.subarray(0, i - 1) : bytes;
}

/** Marker regions of a conflicted working file (git's default 7-character markers). Unclosed regions are dropped. */
export function markerRegions(text: string): MarkerRegion[] {
  const out: MarkerRegion[] = [];
  let start = 0;
  let sep = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const n = i + 1;
    if (l.startsWith('<<<<<<<')) {
      start = n;
      sep = 0;
    } else if (l.startsWith('=======') && start > 0) sep = n;
    else if (l.startsWith('>>>>>>>') && start > 0 && sep > 0) {
      out.push({ start_line: start, separator_line: sep, end_line: n });
      start = 0;
      sep = 0;
    }
  }
  return out;
}
