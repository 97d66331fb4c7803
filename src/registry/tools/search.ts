// `search`: the fixed name ChatGPT's Deep Research and connectors call. An alias of search_code, not a new path: the
// same gate (`paths`, decide), the same upstream step and the same cut (`runSearch`, `filterSearch`), so a hidden
// file is as absent here as there; only the shape differs: one result per file, with a sealed id `fetch` opens.
import * as z from 'zod/v4';
import { contentCap, queryProblem } from '../../core/index.js';
import { resultId, resultUrl } from '../result-ids.js';
import { rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';
import { filterSearch, MAX_SEARCH_RESULTS, runSearch, type SearchArgs, type SearchRaw } from './search_code.js';

const shape = { query: z.string().min(1).max(512).describe('Text to find (literal, case-insensitive).') };
type Args = { query: string };

const Result = z.object({ id: z.string().describe('Pass to fetch.'), title: z.string(), url: z.string() });
const Output = z.object({ results: z.array(Result) });
type Output = z.infer<typeof Output>;

/** The search_code call this alias stands for: literal, case-insensitive, the whole window, the most matches. */
const asSearchCode = (a: Args): SearchArgs => ({ query: a.query, max_results: MAX_SEARCH_RESULTS });

/** `{"results":[` `]}`: what the list costs around its items. */
const ENVELOPE_BYTES = 14;

export const searchAlias = defineTool<Args, SearchRaw, Output>({
  name: 'search',
  aliasOf: 'search_code',
  access: 'read',
  surfaces: ['agent'],
  pathMode: 'all',
  description:
    'search_code for ChatGPT connectors: files of your perimeter containing `query` (literal, case-insensitive).',
  annotations: {
    title: 'Search (connector)',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  // Never listed on the operator surface (isExposed); declared for the table's uniformity.
  rootInput: withTarget(shape),
  output: Output,
  paths: () => [{ path: '', role: 'dir' }],
  rootTarget: rootTargetOf,
  guard: (a) => queryProblem(a.query, false, false),
  run: async (a, ctx) => {
    if (!ctx.cursors)
      return { ok: false, error: { code: 'unavailable', message: 'Result ids are not configured on this server.' } };
    return runSearch(asSearchCode(a), ctx);
  },
  filter: (raw, a, ctx) => {
    const cut = filterSearch(raw, asSearchCode(a), ctx);
    if (cut.kind !== 'ok') return cut;
    // One result per file, in the order search_code lists them; as many as fit in half the answer cap (the text
    // block repeats the JSON), so the answer is never refused as too large.
    const room = contentCap(ctx.binding) - ENVELOPE_BYTES;
    const results: Output['results'] = [];
    const seen = new Set<string>();
    let used = 0;
    for (const m of cut.value.matches) {
      if (seen.has(m.path)) continue;
      seen.add(m.path);
      const id = resultId(ctx.binding, ctx.cursors, m.path);
      if (id === undefined)
        return {
          kind: 'error',
          error: { code: 'unavailable', message: 'Result ids are not configured on this server.' },
        };
      const r = { id, title: m.path, url: resultUrl(ctx.binding, m.path) };
      const bytes = Buffer.byteLength(JSON.stringify(r)) + (results.length > 0 ? 1 : 0);
      if (used + bytes > room) break;
      used += bytes;
      results.push(r);
    }
    return { kind: 'ok', value: { results } };
  },
  notFound: () => 'Not found: nothing to search on this branch.',
  // The connector contract: the text block is the same JSON as the structured content.
  render: (o) => JSON.stringify(o),
});
