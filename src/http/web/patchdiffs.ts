// The files of a workspace proposal for the approval page. A patch is drawn from the very parse the policy judged
// (`patchPaths`: names from the `---`/`+++` and rename lines, hunk lines placed by the `@@` counts), so the page
// cannot name one file while git edits another. Other operations list the paths the preview reported (the working
// tree is not read again for the page: what the person approves is bound by the preview's fingerprint).
import { patchPaths, type PatchLine, type PatchSection } from '../../core/index.js';
import type { FileDiff } from './filediffs.js';
import type { DiffLine } from './linediff.js';

const NOTE_PREVIEW = 'touched by the operation (paths from the working-tree preview; content is not shown)';
/** The red flag of a path the change names that no drawn section places. */
export const UNPLACED = 'named by the change but not placed in any file section shown here';

/** One row per path the preview reported. */
export function previewDiffs(paths: readonly string[]): FileDiff[] {
  return paths.map((path) => ({
    path,
    change: 'touched',
    added: 0,
    removed: 0,
    notes: [NOTE_PREVIEW],
    symlinkChange: false,
  }));
}

const lineOf = (l: PatchLine): DiffLine => {
  switch (l.kind) {
    case 'add':
    case 'del':
    case 'same':
    case 'hunk':
      return { kind: l.kind, text: l.text };
    case 'meta':
    case 'note':
      return { kind: 'hunk', text: l.text };
    default:
      return assertNever(l.kind);
  }
};

/** One section of the policy's patch parse as a file diff. */
export function sectionDiff(s: PatchSection): FileDiff {
  const path = s.to ?? s.from ?? '';
  const notes = [...s.modes];
  if (s.binary) notes.push('binary patch: content is not shown as lines');
  const moved = s.from !== undefined && s.to !== undefined && s.from !== s.to;
  const change = s.change === 'renamed' || s.change === 'copied' ? 'modified' : s.change;
  if (moved) notes.unshift(`${s.change} from ${s.from}`);
  return {
    path,
    ...(moved ? { from: s.from } : {}),
    change,
    lines: s.lines.map(lineOf),
    added: s.added,
    removed: s.removed,
    notes,
    symlinkChange: s.modes.some((m) => m.includes('120000')),
  };
}

/**
 * A patch cut into per-file diffs by the policy's own parse, then one red-flagged row for every path in `named` (the
 * change's facts) that no section placed. A patch the parse refuses is shown whole as one red-flagged section.
 */
export function patchDiffs(patch: string, named: readonly string[]): FileDiff[] {
  const parsed = patchPaths(patch);
  const out: FileDiff[] = parsed.ok
    ? parsed.value.files.map(sectionDiff)
    : [
        {
          path: '(the whole patch)',
          change: 'touched',
          lines: patch.split('\n').map((text) => ({ kind: 'same', text })),
          added: 0,
          removed: 0,
          notes: [parsed.message],
          symlinkChange: false,
          flag: 'the page cannot read this patch',
        },
      ];
  const placed = new Set(out.flatMap((f) => (f.from === undefined ? [f.path] : [f.path, f.from])));
  for (const path of named) {
    if (!placed.has(path))
      out.push({
        path,
        change: 'touched',
        added: 0,
        removed: 0,
        notes: [UNPLACED],
        symlinkChange: false,
        flag: 'not placed',
      });
  }
  return out;
}

function assertNever(x: never): never {
  throw new Error(`unhandled patch line ${JSON.stringify(x)}`);
}
