// What a proposal does to each file, computed against the proposal's base commit (never against the branch as it
// is now: the person approves the change the agent made on the base it saw; the service re-checks the base on approval).
import { decodeUtf8, type Proposal, type WorkspaceStep } from '../../core/index.js';
import type { FileRead, UpstreamFor } from '../../upstream/types.js';
import { diffstat, hunks, type DiffLine } from './linediff.js';
import type { Workspace } from '../../workspace/types.js';
import { commitDiffs } from './commitdiffs.js';
import { patchDiffs, previewDiffs } from './patchdiffs.js';

/** How one path changes. */
export type FileChange = 'added' | 'modified' | 'deleted' | 'no-op delete' | 'unchanged' | 'touched';

/** One file of a proposal, ready to render. `lines` is absent for binary content. */
export interface FileDiff {
  readonly path: string;
  /** The name before a rename or copy (the diffstat shows `from → path`). */
  readonly from?: string;
  readonly change: FileChange;
  readonly lines?: readonly DiffLine[];
  readonly added: number;
  readonly removed: number;
  /** Server facts about this file: a symlink replaced, binary sizes, a base that could not be read. */
  readonly notes: readonly string[];
  /** True when the change turns a symlink into a regular file (a mode change the diff text alone hides). */
  readonly symlinkChange: boolean;
  /** A red flag on this row: a name the view could not place, or content it could not read. Never dropped. */
  readonly flag?: string;
}

/** One side of a file diff. */
export type Side =
  { kind: 'absent' } | { kind: 'text'; text: string; bytes: number } | { kind: 'binary'; bytes: number };

/** One side of a file diff from its bytes: text when it decodes as UTF-8, binary otherwise. */
export const sideOf = (bytes: Uint8Array): Side => {
  const text = decodeUtf8(bytes);
  return text === undefined ? { kind: 'binary', bytes: bytes.length } : { kind: 'text', text, bytes: bytes.length };
};

/** The diff of one path from its two sides, with the server's notes. */
export function diffOf(path: string, before: Side, after: Side, notes: string[], symlinkChange: boolean): FileDiff {
  // A delete of a path that is not there changes nothing: said so, never shown as an empty file added.
  if (before.kind === 'absent' && after.kind === 'absent')
    return { path, change: 'no-op delete', lines: [], added: 0, removed: 0, notes, symlinkChange };
  const change: FileChange = before.kind === 'absent' ? 'added' : after.kind === 'absent' ? 'deleted' : 'modified';
  if (before.kind === 'binary' || after.kind === 'binary') {
    const size = (s: Side) => (s.kind === 'absent' ? 'absent' : `${s.bytes} bytes`);
    return {
      path,
      change,
      added: 0,
      removed: 0,
      notes: [...notes, `binary content (${size(before)} → ${size(after)}), not shown`],
      symlinkChange,
    };
  }
  const lines = hunks(before.kind === 'text' ? before.text : '', after.kind === 'text' ? after.text : '');
  const stat = diffstat(lines);
  const same = change === 'modified' && lines.length === 0;
  return { path, change: same ? 'unchanged' : change, lines, ...stat, notes, symlinkChange };
}

/** Per-file diffs of a proposal against its base, in the order the agent gave the paths. */
export async function fileDiffs(p: Proposal, upstreamFor: UpstreamFor, workspace?: Workspace): Promise<FileDiff[]> {
  switch (p.change.kind) {
    case 'push_files':
    case 'pull_request': {
      const { files, deletes } = p.change;
      const paths = [...files.map((f) => f.path), ...deletes];
      const base = await readBase(p, paths, upstreamFor);
      const out: FileDiff[] = [];
      for (const f of files) {
        const bytes =
          f.encoding === 'base64'
            ? new Uint8Array(Buffer.from(f.content, 'base64'))
            : new Uint8Array(Buffer.from(f.content, 'utf8'));
        const b = base(f.path);
        out.push(diffOf(f.path, b.side, sideOf(bytes), b.notes, b.symlink));
      }
      for (const d of deletes) {
        const b = base(d);
        const notes =
          b.side.kind === 'absent' && b.notes.length === 0
            ? ['not present at the base: deleting it changes nothing']
            : b.notes;
        out.push(diffOf(d, b.side, { kind: 'absent' }, notes, false));
      }
      return out;
    }
    case 'patch':
      return patchDiffs(p.change.patch, p.facts.paths);
    case 'commit':
      return withUnplaced(await commitDiffs(p, p.change.paths, upstreamFor, workspace), p.facts.paths);
    case 'plan':
      return planDiffs(p, p.change.steps, upstreamFor, workspace);
    case 'discard':
    case 'merge':
    case 'rebase':
    case 'reset':
    case 'branch':
    case 'push':
      return previewDiffs(p.facts.paths);
    default:
      return assertNever(p.change);
  }
}

/** The base side of a path, with notes when it could not be read. */
export /**
 * A plan's content step by step: each patch through the policy's parse, each commit as the working tree holds its
 * paths now (a commit after a patch in the same plan also records what the patch writes: said on its rows).
 */
async function planDiffs(
  p: Proposal,
  steps: readonly WorkspaceStep[],
  upstreamFor: UpstreamFor,
  workspace: Workspace | undefined,
): Promise<FileDiff[]> {
  const out: FileDiff[] = [];
  let patched = false;
  for (const [i, s] of steps.entries()) {
    const label = `step ${i + 1} (${s.kind})`;
    if (s.kind === 'patch') {
      out.push(...patchDiffs(s.patch, []).map((f) => ({ ...f, notes: [label, ...f.notes] })));
      patched = true;
    } else if (s.kind === 'commit') {
      const later = patched ? ['the working tree as it is now, before the earlier patch steps run'] : [];
      out.push(
        ...(await commitDiffs(p, s.paths, upstreamFor, workspace)).map((f) => ({
          ...f,
          notes: [label, ...later, ...f.notes],
        })),
      );
    }
  }
  return withUnplaced(out, p.facts.paths);
}

/** `files`, then a preview row for every path of the facts that no row names (other steps' paths). */
function withUnplaced(files: FileDiff[], named: readonly string[]): FileDiff[] {
  const placed = new Set(files.flatMap((f) => (f.from === undefined ? [f.path] : [f.path, f.from])));
  return [...files, ...previewDiffs(named.filter((x) => !placed.has(x)))];
}

export type BaseOf = (path: string) => { side: Side; notes: string[]; symlink: boolean };

/** Reads `paths` at the proposal's base through the upstream; every path answers, unreadable ones with a note. */
export async function readBase(p: Proposal, paths: readonly string[], upstreamFor: UpstreamFor): Promise<BaseOf> {
  const upstream = upstreamFor(p.repo);
  const unreadable =
    (why: string): BaseOf =>
    () => ({
      side: { kind: 'absent' },
      notes: [`base content unreadable (${why}): shown as a new file`],
      symlink: false,
    });
  if (!upstream) return unreadable('repository not served by this process');
  const read = await upstream.readFiles(p.repo, p.base, paths);
  if (!read.ok) return unreadable(read.error.message);
  const byPath = new Map<string, FileRead>(read.value.map((r) => [r.path, r]));
  return (path) => {
    const r = byPath.get(path);
    if (!r)
      return { side: { kind: 'absent' }, notes: ['base content unreadable: shown as a new file'], symlink: false };
    if (!r.ok) {
      if (r.error.code === 'not_found') return { side: { kind: 'absent' }, notes: [], symlink: false };
      return {
        side: { kind: 'absent' },
        notes: [`base content unreadable (${r.error.message}): shown as a new file`],
        symlink: false,
      };
    }
    if (r.symlink) {
      const target = decodeUtf8(r.bytes) ?? '(binary target)';
      return {
        side: sideOf(r.bytes),
        notes: [`is a symlink at the base (target ${target}); the change makes it a regular file`],
        symlink: true,
      };
    }
    return { side: sideOf(r.bytes), notes: [], symlink: false };
  };
}

function assertNever(x: never): never {
  throw new Error(`unhandled proposal kind ${JSON.stringify(x)}`);
}
