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
  const structured =
    s && typeof s === 'object' && typeof s.omitted_count === 'number' ? { ...s, omitted_count: 0 } : a.structured;
  return { ...a, text, structured };
}

/**
 * SPEC §8: list_commits narrowed to the path of a readable-path link whose target is not readable lists the commits
 * that touched it (the `extra-link` option adds such links to one twin only). get_commit leaves such a link out
 * (issue 19), so only this whole answer is accepted.
 */
export function acceptedWhole(call: { tool: string; args: Record<string, unknown> }): boolean {
  if (call.tool !== 'list_commits' || typeof call.args.path !== 'string') return false;
  const asked = normalisedPath(call.args.path);
  // The link's own path, or the directory that holds nothing else (its history is the link's).
  return Object.keys(EXTRA_LINKS).some(
    (p) => asked === p || (asked === p.slice(0, p.lastIndexOf('/')) && asked !== 'app'),
  );
}

const normalisedPath = (p: string): string =>
  p
    .replace(/^\.?\/+/, '')
    .replace(/\/+/g, '/')
    .replace(/\/$/, '');

/**
 * The PR tools' `omitted_count` (wherever it sits) and its text phrases, by the same rule as get_commit's; and
 * create_pull_request's count of paths outside write that the agent cannot read (issue 22: "others are counted, never
 * named" — the count is promised, so twins differ in it by construction).
 */
function pullCounts(a: Shape): Shape {
  const text = a.text
    .replace(/ \(\d+ other files omitted\)|; \d+ other files omitted/g, '')
    .replace(/\d+ paths? outside this perimeter's write scope/g, "N paths outside this perimeter's write scope");
  const blank = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(blank);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, k === 'omitted_count' && typeof x === 'number' ? 0 : blank(x)]),
    );
  };
  return { ...a, text, structured: blank(a.structured) };
}

/** The answer of `tool` with the accepted channels blanked. */
export function withoutAccepted<T extends Shape>(tool: string, a: T): T {
  switch (tool) {
    case 'get_commit':
      return { ...a, ...omittedCount(a) };
    case 'create_pull_request':
    case 'list_pull_requests':
    case 'get_pull_request':
    case 'get_pull_request_files':
      return { ...a, ...pullCounts(a) };
    default:
      return a;
  }
}
