// The files of a workspace proposal for the approval page. A patch is shown as the agent's own text, split per file and
// rendered line by line through the same escaping as any diff; other operations list the paths the preview reported
// (the working tree is not read again for the page: what the person approves is bound by the preview's fingerprint).
import type { FileDiff } from './filediffs.js';
import type { DiffLine } from './linediff.js';

const NOTE_PREVIEW = 'touched by the operation (paths from the working-tree preview; content is not shown)';

/** One row per path the preview reported. */
export function previewDiffs(paths: readonly string[]): FileDiff[] {
  return paths.map((path) => ({ path, change: 'touched', added: 0, removed: 0, notes: [NOTE_PREVIEW], symlinkChange: false }));
}

/** A unified patch cut into per-file diffs; text before the first file header is shown as its own section. */
export function patchDiffs(patch: string): FileDiff[] {
  const out: FileDiff[] = [];
  let cur: { path: string; lines: DiffLine[]; notes: string[]; symlink: boolean } | undefined;
  const flush = () => {
    if (cur === undefined) return;
    const added = cur.lines.filter((l) => l.kind === 'add').length;
    const removed = cur.lines.filter((l) => l.kind === 'del').length;
    out.push({ path: cur.path, change: 'touched', lines: cur.lines, added, removed, notes: cur.notes, symlinkChange: cur.symlink });
  };
  for (const line of patch.replace(/\n$/, '').split('\n')) {
    const header = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (header !== null || cur === undefined) {
      flush();
      cur = { path: header?.[2] ?? '(text before the first file)', lines: [], notes: [], symlink: false };
      if (header !== null) continue;
    }
    if (/^(new|deleted) file mode 120000|^(old|new) mode /.test(line)) {
      cur.symlink ||= line.includes('120000');
      cur.notes.push(line);
    }
    if (line.startsWith('@@')) cur.lines.push({ kind: 'hunk', text: line });
    else if (line.startsWith('+') && !line.startsWith('+++ ')) cur.lines.push({ kind: 'add', text: line.slice(1) });
    else if (line.startsWith('-') && !line.startsWith('--- ')) cur.lines.push({ kind: 'del', text: line.slice(1) });
    else cur.lines.push({ kind: 'same', text: line.startsWith(' ') ? line.slice(1) : line });
  }
  flush();
  return out;
}
