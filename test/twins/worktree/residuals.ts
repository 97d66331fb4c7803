// Channels SPEC accepts on purpose, blanked in both answers before they are compared (commit ids are mapped, not
// blanked: drive.ts). Each is documented; nothing else is.
import type { Answer } from '../equal.js';
import { onlyWriteOnlyDiffers, type TwinSpec } from './spec.js';

/**
 * `omitted_count` of workspace_diff and conflict_preflight counts changed or conflicted files outside both read and
 * write (SPEC §4.11: "files outside both still are" counted; the tools' contracts promise the count). Twins differ in it
 * by construction, so it is blanked — except where the twins differ in write-only files only: there it must match
 * (write-only paths are never counted), and it is compared.
 */
function omittedCount(a: Answer): Answer {
  const text = a.text.replace(/, omitted \d+/, ', omitted N');
  const s = a.structured as Record<string, unknown> | null | undefined;
  const structured =
    s && typeof s === 'object' && typeof s.omitted_count === 'number' ? { ...s, omitted_count: 0 } : a.structured;
  return { ...a, text, structured };
}

/**
 * conflict_preflight's `status` is `conflicts` when the cut list or `omitted_count` is not empty (SPEC §3.4): with an
 * empty list it repeats the accepted count's one bit (zero or not), so it is blanked with the count, and only there.
 */
function preflightStatus(a: Answer): Answer {
  const o = omittedCount(a);
  const s = o.structured as { conflicts?: unknown[]; status?: unknown } | null | undefined;
  if (!s || typeof s !== 'object' || !Array.isArray(s.conflicts) || s.conflicts.length > 0) return o;
  return {
    ...o,
    text: o.text.replace(/: (conflicts|clean), omitted N/, ': <status>, omitted N'),
    structured: { ...s, status: '<status>' },
  };
}

/** The function that blanks `tool`'s accepted channels for this pair. */
export function acceptedResidual(spec: TwinSpec, tool: string): (a: Answer) => Answer {
  switch (tool) {
    case 'workspace_diff':
      return onlyWriteOnlyDiffers(spec) ? (a) => a : omittedCount;
    case 'conflict_preflight':
      return onlyWriteOnlyDiffers(spec) ? (a) => a : preflightStatus;
    default:
      return (a) => a;
  }
}
