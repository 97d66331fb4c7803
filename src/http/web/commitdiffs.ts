// The content of a commit proposal for the approval page: the working-tree state of its paths (what the commit will
// record) as a diff against the proposal's base, read when the page is drawn. The apply records exactly that state or
// nothing: its fingerprint binds the head and every path's index and on-disk blob, so a tree changed since the
// proposal declines as stale. git's own diff (diff-index, working tree against the base) is read through the same
// parse the policy judges patches with; a path it does not list (a new untracked file) is read from disk; a path
// neither places is a red-flagged row, never dropped.
import { decodeUtf8, patchPaths, type Proposal } from '../../core/index.js';
import type { UpstreamFor } from '../../upstream/types.js';
import type { Workspace } from '../../workspace/types.js';
import { diffOf, readBase, sideOf, type FileDiff } from './filediffs.js';
import { sectionDiff } from './patchdiffs.js';

/** Bytes of one untracked file read from disk for the page. */
const DISK_READ_BYTES = 1_000_000;

const NOTE_NOW =
  'read from the working tree now; approving commits this content only if it is still what the agent proposed (otherwise the proposal fails as stale)';

const flagged = (path: string, why: string): FileDiff => ({
  path,
  change: 'touched',
  added: 0,
  removed: 0,
  notes: [why],
  symlinkChange: false,
  flag: 'content not shown',
});

/** Per-file diffs of what committing `paths` of the proposal's working tree records, against its base. */
export async function commitDiffs(
  p: Proposal,
  paths: readonly string[],
  upstreamFor: UpstreamFor,
  workspace: Workspace | undefined,
): Promise<FileDiff[]> {
  if (workspace === undefined) return paths.map((x) => flagged(x, 'this process reads no working trees'));
  const opened = await workspace.open(p.repo, p.branch);
  if (!opened.ok || opened.value === undefined)
    return paths.map((x) => flagged(x, `the working tree of ${p.branch} cannot be opened`));
  const tree = opened.value;
  const out: FileDiff[] = [];
  const listing = await tree.diff({ against: { commit: p.base }, staged: false, paths });
  if (listing.ok) {
    for (const f of listing.value.files) {
      if (f.binary) {
        out.push({
          path: f.path,
          ...(f.origPath ? { from: f.origPath } : {}),
          change: f.status === 'added' || f.status === 'deleted' ? f.status : 'modified',
          added: 0,
          removed: 0,
          notes: [NOTE_NOW, 'binary content, not shown'],
          symlinkChange: false,
        });
        continue;
      }
      const parsed = patchPaths(decodeUtf8(f.patch) ?? '');
      if (!parsed.ok) {
        out.push(flagged(f.path, parsed.message));
        continue;
      }
      for (const s of parsed.value.files) {
        const d = sectionDiff(s);
        out.push({ ...d, notes: [NOTE_NOW, ...d.notes] });
      }
    }
  }
  const placed = new Set(out.flatMap((f) => (f.from === undefined ? [f.path] : [f.path, f.from])));
  const rest = paths.filter((x) => !placed.has(x));
  if (rest.length === 0) return out;
  const base = await readBase(p, rest, upstreamFor);
  for (const path of rest) {
    const read = await tree.readFile(path, DISK_READ_BYTES);
    const b = base(path);
    if (!read.ok) {
      out.push(flagged(path, `cannot be read from the working tree (${read.error.message})`));
      continue;
    }
    switch (read.value.kind) {
      case 'file':
        if (read.value.resolvedPath !== path) {
          out.push(flagged(path, `a symlink on disk (to ${read.value.resolvedPath}): the commit records the link`));
          break;
        }
        out.push(diffOf(path, b.side, sideOf(read.value.bytes), [NOTE_NOW, ...b.notes], b.symlink));
        break;
      case 'missing':
        out.push(
          b.side.kind === 'absent'
            ? {
                path,
                change: 'unchanged',
                added: 0,
                removed: 0,
                notes: ['not present at the base nor on disk: nothing to record'],
                symlinkChange: false,
              }
            : diffOf(path, b.side, { kind: 'absent' }, [NOTE_NOW], false),
        );
        break;
      case 'too_large':
        out.push(flagged(path, `${read.value.size} bytes on disk: too large to show here`));
        break;
      case 'directory':
      case 'unresolvable':
        out.push(
          flagged(
            path,
            `is a ${read.value.kind === 'directory' ? 'directory' : 'symlink that does not resolve'} on disk`,
          ),
        );
        break;
      default:
        out.push(flagged(path, 'unknown working-tree state'));
    }
  }
  return out;
}
