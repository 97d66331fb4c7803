// Differences the twin check finds that are known and not yet fixed (issue 19 §2), each tied to a tool, the condition
// of the pair that causes it and its class number: never a blanket skip. The lead removes an entry when its fix lands;
// an entry that no longer matches anything is reported by the CI test so it gets removed.
import type { Difference } from './drive.js';
import type { Hidden, TwinSpec } from './spec.js';

/** One known, not-yet-fixed difference. */
export interface Known {
  readonly id: string;
  /** Issue 19 §2 class number. */
  readonly cls: number;
  readonly tool: string;
  /** True when this pair and call can show the difference (judged on the spec and the call's arguments). */
  readonly when: (spec: TwinSpec, d: Difference) => boolean;
  readonly note: string;
}

/** True when either twin hides something satisfying `f`. */
export const either = (spec: TwinSpec, f: (h: Hidden) => boolean): boolean => f(spec.a) || f(spec.b);

/** The entry explaining `d`, if any. */
export function knownClass(known: readonly Known[], spec: TwinSpec, d: Difference): Known | undefined {
  return known.find((k) => k.tool === d.tool && k.when(spec, d));
}

const links = (h: Hidden) => h.linkFile || h.linkDir;
const named = (d: Difference, paths: readonly string[]): boolean => paths.some((p) => JSON.stringify(d.args).includes(`"${p}`));

/** The known differences on the current code (found by this check on its own; see FINDINGS.md). */
export const KNOWN: readonly Known[] = [
  {
    id: 'preflight-hidden-conflict-status',
    cls: 3,
    tool: 'conflict_preflight',
    when: (s) => either(s, (h) => h.conflict !== 'none'),
    note: 'status "conflicts" (and, for wo/, omitted_count) set by a conflict on a hidden, privacy-zone or write-only path',
  },
  { id: 'status-cap-hidden-records', cls: 6, tool: 'workspace_status', when: (s) => either(s, (h) => h.manyUntracked), note: 'truncated set by hidden untracked records past the cap' },
  { id: 'status-link-hidden-target', cls: 5, tool: 'workspace_status', when: (s) => either(s, links), note: 'an untracked link to a hidden file or directory is listed' },
  { id: 'brief-link-hidden-target', cls: 5, tool: 'workspace_brief', when: (s) => either(s, links), note: 'an untracked link to a hidden target is counted' },
  { id: 'brief-cap-hidden-records', cls: 6, tool: 'workspace_brief', when: (s) => either(s, (h) => h.manyUntracked), note: 'counts cut by hidden records past the status cap' },
  { id: 'scope-link-hidden-target', cls: 5, tool: 'scope_summary', when: (s) => either(s, (h) => links(h) || h.linkCommitted), note: 'a link to a hidden target is counted, listed, exists as a path, and its lines count in churn' },
  { id: 'scope-churn-window', cls: 6, tool: 'scope_summary', when: (s) => either(s, (h) => h.many), note: 'the 100-commit churn window is filled by hidden-only commits' },
  { id: 'scope-cap-hidden-records', cls: 6, tool: 'scope_summary', when: (s) => either(s, (h) => h.manyUntracked), note: 'working_tree.truncated set by hidden records' },
  { id: 'integrity-cap-hidden-records', cls: 6, tool: 'integrity_check', when: (s) => either(s, (h) => h.manyUntracked), note: 'truncated set by hidden untracked records' },
  { id: 'diff-huge-hidden', cls: 6, tool: 'workspace_diff', when: (s) => either(s, (h) => h.huge !== 'none'), note: 'a hidden diff past the cap truncates the answer and drops visible files' },
  { id: 'diff-non-utf8-hidden', cls: 6, tool: 'workspace_diff', when: (s) => either(s, (h) => h.nonUtf8), note: 'a hidden non-UTF-8 name fails the whole call' },
  {
    id: 'diff-pairing-across-boundary',
    cls: 8,
    tool: 'workspace_diff',
    when: (s) => (s.shared.renameIn && either(s, (h) => h.renameIn !== 'none')) || (s.shared.renameOut && either(s, (h) => h.renameOut !== 'none')),
    note: 'a visible add paired with a hidden delete (or the reverse) shows as a rename or changes counts',
  },
  { id: 'conflict-read-hidden-stage', cls: 8, tool: 'conflict_read', when: (s, d) => s.shared.renameConflict && named(d, ['app/r.txt']), note: 'stages taken from a hidden path by rename detection are served' },
];
