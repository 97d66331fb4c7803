import { EXTRA_LINKS } from './generate.js';

// Channels SPEC accepts on purpose, removed from both answers before they are compared. Each is a documented
// exception, not a finding: commit ids (mapped by IdMap, SPEC §4.11) and the fields listed here. Nothing else is.

/** An answer in the shape the driver compares. */
interface Shape {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: unknown;
}

/**
 * get_commit's `omitted_count` counts changed files outside both read and write (SPEC §4.11 rule 2: "files outside both
 * still are" counted; the tool's contract promises the count). Twins differ in it by construction, so the count and
 * its summary phrase are blanked in both; whether a write-only file is counted is then not checked here (issue 9's
 * pair test covers it).
 */
function omittedCount(a: Shape): Shape {
  const text = a.text.replace(/^\d+ other files omitted(?:; |\n)/m, '');
  const s = a.structured as Record<string, unknown> | null;
  const structured = s && typeof s === 'object' && typeof s.omitted_count === 'number' ? { ...s, omitted_count: 0 } : a.structured;
  return { ...a, text, structured };
}

/**
 * SPEC §8: get_commit still lists the change of a readable-path symlink whose target is not readable (path and status,
 * no patch, zero counts), and list_commits narrowed to its path lists its commits. The `extra-link` option adds such
 * links to one twin only (to find the tools that must not show them), so these two answers are blanked of them.
 */
function extraLinks(a: Shape): Shape {
  const paths = new Set(Object.keys(EXTRA_LINKS));
  let text = a.text;
  for (const p of paths) text = text.split(new RegExp(`^[AMDT] ${p} \\+0 -0\n`, 'm')).join('');
  const s = a.structured as Record<string, unknown> | null;
  const files = s && typeof s === 'object' && Array.isArray(s.files) ? (s.files as { path?: unknown }[]).filter((f) => !paths.has(String(f.path))) : undefined;
  return { ...a, text, structured: files ? { ...s, files } : a.structured };
}

/** Whether this call's whole answer is an accepted channel (then it is not compared). */
export function acceptedWhole(call: { tool: string; args: Record<string, unknown> }): boolean {
  if (call.tool !== 'list_commits' || typeof call.args.path !== 'string') return false;
  const asked = normalisedPath(call.args.path);
  // The link's own path, or the directory that holds nothing else (its history is the link's).
  return Object.keys(EXTRA_LINKS).some((p) => asked === p || (asked === p.slice(0, p.lastIndexOf('/')) && asked !== 'app'));
}

const normalisedPath = (p: string): string => p.replace(/^\.?\/+/, '').replace(/\/+/g, '/').replace(/\/$/, '');

/** The answer of `tool` with the accepted channels blanked. */
export function withoutAccepted<T extends Shape>(tool: string, a: T): T {
  switch (tool) {
    case 'get_commit':
      return { ...a, ...extraLinks(omittedCount(a)) };
    default:
      return a;
  }
}
