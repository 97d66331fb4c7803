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

/** The known differences on the current code (found by this check on its own; see FINDINGS.md). */
export const KNOWN: readonly Known[] = [];
