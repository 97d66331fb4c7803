// Differences the twin check finds today that other work is closing (issue 19 §2), each named by its class, the tool
// and the condition it shows under. CI stays green while they are open; the lead removes an entry when its fix merges
// (a stale entry is reported by the CLI and the test as "not seen", so it is noticed). Never a blanket skip: an entry
// matches one tool and a condition on the plan or the call.
import type { Difference } from './drive.js';
import type { HiddenOption } from './generate.js';
import { pairingPoints } from './materialise.js';

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

/** Either twin has `option`. */
const either = (d: Difference, ...options: HiddenOption[]): boolean => options.some((o) => d.plan.a.options.includes(o) || d.plan.b.options.includes(o));


/** The known, not-yet-fixed differences (the lead removes an entry when its fix merges). */
export const KNOWN: readonly KnownEntry[] = [
  {
    // Found by this check (not in the review's list): git pairs renames over the whole tree, then the cut drops the
    // hidden side. A visible delete paired with a hidden add (or a visible add with a hidden delete) moves in the
    // file order, and a visible rename that git pairs with a hidden copy instead reads as add + delete: the `stats`,
    // the order and the page boundaries then depend on hidden files.
    id: 'c8-get-commit-pairs-before-the-cut',
    issueClass: 8,
    tool: 'get_commit',
    note: 'rename detection runs before the cut: order, stats and pages move with a hidden rename partner',
    when: (d) => {
      const { addAt, delAt } = pairingPoints(d.plan);
      const at = [...(either(d, 'rename-in', 'copy-in') && addAt ? [addAt.label] : []), ...(either(d, 'rename-out') && delAt ? [delAt.label] : [])];
      return at.some((label) => d.answers.every((a) => a.includes(`<${label}>`)));
    },
  },
];

/** The KNOWN entry accounting for `d`, if any. */
export function knownFor(d: Difference, known: readonly KnownEntry[] = KNOWN): KnownEntry | undefined {
  return known.find((k) => k.tool === d.call.tool && (k.upstream === undefined || k.upstream === d.kind) && k.when(d));
}
