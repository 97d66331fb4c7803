// Differences the twin check finds today that other work is closing (issue 19 §2), each named by its class, the tool
// and the condition it shows under. CI stays green while they are open; the lead removes an entry when its fix merges
// (a stale entry is reported by the CLI and the test as "not seen", so it is noticed). Never a blanket skip: an entry
// matches one tool and a condition on the plan or the call.
import type { Difference } from './drive.js';

/** One known, not-yet-fixed difference. */
export interface KnownEntry {
  readonly id: string;
  /** The class of issue 19 §2 that closes it. */
  readonly issueClass: number;
  readonly tool: string;
  readonly upstream?: 'local' | 'github';
  readonly note: string;
  readonly when: (d: Difference) => boolean;
}

/** The known, not-yet-fixed differences (the lead removes an entry when its fix merges). */
export const KNOWN: readonly KnownEntry[] = [];

/** The KNOWN entry accounting for `d`, if any. */
export function knownFor(d: Difference, known: readonly KnownEntry[] = KNOWN): KnownEntry | undefined {
  return known.find((k) => k.tool === d.call.tool && (k.upstream === undefined || k.upstream === d.kind) && k.when(d));
}
