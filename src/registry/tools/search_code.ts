import * as z from 'zod/v4';
import {
  dirVisible,
  exactCover,
  excerpt,
  holdsReadable,
  linksDecidingDir,
  linkTargetOf,
  queryProblem,
  searchableFiles,
  type TreeEntry,
} from '../../core/index.js';
import type { GrepResult, UpResult } from '../../upstream/types.js';
import { field } from '../render.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool, type ToolContext, type ToolOutcome } from '../tool.js';
import { MAX_LINKS_PER_LISTING } from './get_tree.js';

/** Hard bound on one search; a pattern that needs longer is refused (the search process or worker is killed). */
export const SEARCH_TIMEOUT_MS = 5000;
export const MAX_SEARCH_RESULTS = 200;

const shape = {
  query: z.string().min(1).max(512).describe('Text to find, on one line.'),
  regex: z.boolean().optional().describe('JavaScript syntax.'),
  case_sensitive: z.boolean().optional(),
  path: Path.optional().describe('Directory.'),
  max_results: z.number().int().min(1).max(MAX_SEARCH_RESULTS).optional().describe('Default 50.'),
};
export type SearchArgs = {
  query: string;
  regex?: boolean | undefined;
  case_sensitive?: boolean | undefined;
  path?: string | undefined;
  max_results?: number | undefined;
};
type Args = SearchArgs;

const Match = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number().describe('1-based, in UTF-16 code units, of the first match on the line.'),
  text: z.string().describe('The matching line, cut to 300 characters around the match.'),
});
const Output = z.object({
  matches: z.array(Match),
  truncated: z.boolean().describe('True when more matches exist than were returned.'),
  skipped: z
    .array(z.string())
    .optional()
    .describe('Files the regular expression was too expensive to run on (not searched).'),
});
export type SearchOutput = z.infer<typeof Output>;
type Output = SearchOutput;

/** What the search's upstream step hands its filter (shared with the `search` alias). */
export type SearchRaw =
  | { readonly kind: 'missing' }
  | { readonly kind: 'searched'; readonly files: ReadonlySet<string>; readonly result: GrepResult };

const limitOf = (a: Args) => a.max_results ?? 50;

/**
 * Whether `base` shows on this binding, judged as get_tree judges it: a directory kept only by links to hidden
 * targets reads as missing (the links are read only when nothing else keeps the directory).
 */
async function baseShows(
  entries: readonly TreeEntry[],
  commit: string,
  base: string,
  ctx: ToolContext,
): Promise<UpResult<boolean>> {
  if (ctx.binding.surface === 'root') return { ok: true, value: holdsReadable(entries, ctx.scope, base) };
  const links = linksDecidingDir(entries, ctx.scope, base, MAX_LINKS_PER_LISTING);
  const targets = new Map<string, string | undefined>();
  if (links.length > 0) {
    const reads = await ctx.upstream.readFiles(ctx.target.repo, commit, links);
    if (!reads.ok) return reads;
    for (const r of reads.value) targets.set(r.path, r.ok && r.symlink ? linkTargetOf(r.bytes) : undefined);
  }
  return { ok: true, value: dirVisible(entries, ctx.scope, base, targets) };
}

/** search_code's upstream step: the listing, the visible-directory check, and the grep over the readable files. */
export async function runSearch(a: Args, ctx: ToolContext): Promise<UpResult<SearchRaw>> {
  const base = a.path ?? '';
  const { repo, ref } = ctx.target;
  const tree = await ctx.upstream.getTree(repo, ref, base);
  if (!tree.ok) return tree;
  const { entries, commit } = tree.value;
  // A directory with nothing visible below it answers exactly like one that does not exist, as get_tree does.
  if (base !== '') {
    const shows = await baseShows(entries, commit, base, ctx);
    if (!shows.ok) return shows;
    if (!shows.value) return { ok: true, value: { kind: 'missing' } };
  }
  const files = searchableFiles(entries, ctx.scope, base).map((e) => ({ path: e.path, sha: e.sha }));
  // The agent's pattern runs on these files' bytes and no others: the cover is exact, never a prefix of a glob.
  const result = await ctx.upstream.grep(repo, commit, {
    files,
    cover: exactCover(
      entries,
      files.map((f) => f.path),
      base,
    ),
    pattern: a.query,
    mode: a.regex ? 'regex' : 'literal',
    caseSensitive: a.case_sensitive ?? false,
    maxMatches: limitOf(a) + 1,
    timeoutMs: SEARCH_TIMEOUT_MS,
  });
  if (!result.ok) return result;
  return { ok: true, value: { kind: 'searched', files: new Set(files.map((f) => f.path)), result: result.value } };
}

/** `git grep -n --column`-like: `path:line:column: text`, and a last line when more matches exist. */
function render(o: Output): string {
  const lines = o.matches.map(
    (m) => `${field(m.path)}:${m.line}:${m.column}: ${m.text.replace(/[\r\n\u2028\u2029]/g, ' ')}\n`,
  );
  if (o.matches.length === 0) lines.push('no matches\n');
  for (const p of o.skipped ?? [])
    lines.push(`skipped: ${field(p)}: the regular expression is too expensive to run on this file\n`);
  if (o.truncated) lines.push('truncated: more matches exist (raise max_results or narrow path)\n');
  return lines.join('');
}

/** search_code's cut: every hit judged again, the limit applied after the cut, skipped files of the given list only. */
export function filterSearch(raw: SearchRaw, a: Args, ctx: ToolContext): ToolOutcome<Output> {
  if (raw.kind === 'missing') return { kind: 'not_found' };
  if (raw.result.end === 'timeout') {
    return {
      kind: 'refused',
      message: `The search was stopped after ${SEARCH_TIMEOUT_MS / 1000} s: the pattern is too expensive to run. Use a plain-text query, a simpler regular expression or a narrower \`path\`.`,
    };
  }
  // Every hit is judged again: only files the search was given, and only paths this binding may read.
  const kept = raw.result.matches.filter((m) => raw.files.has(m.path) && ctx.scope.canRead(m.path));
  const limit = limitOf(a);
  const matches = kept
    .slice(0, limit)
    .map((m) => ({ path: m.path, line: m.line, column: m.column, text: excerpt(m.text, m.textColumn, m.column) }));
  // Only files the search was given can be skipped; each one is readable, so the note tells nothing hidden.
  const skipped = raw.result.skipped.filter((p) => raw.files.has(p) && ctx.scope.canRead(p));
  return { kind: 'ok', value: { matches, truncated: kept.length > limit, ...(skipped.length > 0 ? { skipped } : {}) } };
}

export const searchCode = defineTool<Args, SearchRaw, Output>({
  name: 'search_code',
  access: 'read',
  surfaces: ['agent', 'root'],
  pathMode: 'all',
  description:
    'Find text or a `regex` in your readable files on the bound branch (case-insensitive by default; skips binary and files over 1 MiB).',
  annotations: {
    title: 'Search code',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape),
  output: Output,
  paths: (a) => [{ path: a.path ?? '', role: 'dir' }],
  rootTarget: rootTargetOf,
  guard: (a) => queryProblem(a.query, a.regex ?? false, a.case_sensitive ?? false),
  run: runSearch,
  filter: filterSearch,
  notFound: (a) =>
    `Not found: directory "${a.path ?? ''}" does not exist on this branch. List its parent with get_tree to see what exists.`,
  render,
});
