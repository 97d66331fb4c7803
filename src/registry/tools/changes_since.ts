import * as z from 'zod/v4';
import {
  cursorFits,
  diffListings,
  linksToJudge,
  linkTargetOf,
  parseCursorPayload,
  type CursorPayload,
  type ListingLinks,
  type TreeEntry,
} from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import { field, statusLetter } from '../render.js';
import { Ref, Repo } from '../schemas.js';
import { defineTool, type ToolContext } from '../tool.js';

/** Most changes one answer lists; beyond it `truncated` is true and the agent re-lists with get_tree. */
export const MAX_CHANGES = 1000;

/**
 * Most changed symlinks resolved per side (each a blob read; on GitHub a request), as get_tree's cap. Links beyond it
 * read as missing on that side; which ones depends on readable paths only.
 */
export const MAX_LINKS_PER_SIDE = 200;

const Cursor = z.string().max(4096).describe('From your last answer.');
type Args = { cursor?: string | undefined; repo?: string; ref?: string };

const Change = z.object({
  path: z.string(),
  change: z.enum(['added', 'modified', 'deleted', 'renamed']),
  previous_path: z.string().optional(),
});
const Output = z.object({
  cursor: z.string().describe('Send it back next time to get what changed after this answer.'),
  fresh_instance: z
    .boolean()
    .describe(
      'True when there was nothing to compare with: no cursor, or one that no longer applies. Start over from get_tree.',
    ),
  changes: z.array(Change),
  truncated: z
    .boolean()
    .describe(`True when more than ${MAX_CHANGES} paths changed; only the first ones (by path) are listed.`),
});
type Output = z.infer<typeof Output>;

type Raw =
  | { readonly kind: 'fresh'; readonly cursor: string; readonly head: string }
  | {
      readonly kind: 'since';
      readonly cursor: string;
      readonly head: string;
      readonly base: readonly TreeEntry[];
      readonly now: readonly TreeEntry[];
      /** Target texts of the changed readable links (agent surfaces); absent on the operator surface. */
      readonly links: ListingLinks | undefined;
    };

/** Where a cursor may be used: one perimeter (or the operator surface), one repository, one branch. */
function placeOf(ctx: ToolContext): Omit<CursorPayload, 'v' | 'commit'> {
  return {
    who: ctx.binding.surface === 'agent' ? `agent:${ctx.binding.perimeterId}` : 'root',
    repo: ctx.target.repo,
    branch: ctx.target.ref,
  };
}

async function run(a: Args, ctx: ToolContext): Promise<UpResult<Raw>> {
  const seal = ctx.cursors;
  if (!seal)
    return { ok: false, error: { code: 'unavailable', message: 'Change cursors are not configured on this server.' } };
  const { repo, ref } = ctx.target;
  const head = await ctx.upstream.branchHead(repo, ref);
  if (!head.ok) return head;
  const here = placeOf(ctx);
  const cursor = seal.seal(JSON.stringify({ v: 1, ...here, commit: head.value } satisfies CursorPayload));
  const fresh: UpResult<Raw> = { ok: true, value: { kind: 'fresh', cursor, head: head.value } };
  // Whatever is wrong with a cursor (absent, foreign, forged, edited, stale) the answer is the same fresh start.
  const opened = a.cursor === undefined ? undefined : seal.open(a.cursor);
  const payload = opened === undefined ? undefined : parseCursorPayload(opened);
  if (payload === undefined || !cursorFits(payload, here)) return fresh;
  const behind = await ctx.upstream.isAncestor(repo, payload.commit, head.value);
  if (!behind.ok) return behind;
  if (!behind.value) return fresh;
  const [base, now] = await Promise.all([
    ctx.upstream.getTree(repo, payload.commit, ''),
    ctx.upstream.getTree(repo, head.value, ''),
  ]);
  if (!base.ok) return base.error.code === 'not_found' ? fresh : base;
  if (!now.ok) return now;
  let links: ListingLinks | undefined;
  if (ctx.binding.surface === 'agent') {
    // A link is visible only while its target is readable (the rule get_tree and get_file apply): read the targets
    // of the links that changed, on the side each is on.
    const wanted = linksToJudge(base.value.entries, now.value.entries, ctx.scope, MAX_LINKS_PER_SIDE);
    const [b, h] = await Promise.all([
      targetsAt(ctx, payload.commit, wanted.base),
      targetsAt(ctx, head.value, wanted.head),
    ]);
    if (!b.ok) return b;
    if (!h.ok) return h;
    links = { base: b.value, head: h.value };
  }
  return {
    ok: true,
    value: { kind: 'since', cursor, head: head.value, base: base.value.entries, now: now.value.entries, links },
  };
}

/** The target text of each symlink in `paths` at `commit` (undefined when the read is no link or not UTF-8). */
async function targetsAt(
  ctx: ToolContext,
  commit: string,
  paths: readonly string[],
): Promise<UpResult<Map<string, string | undefined>>> {
  const out = new Map<string, string | undefined>();
  if (paths.length === 0) return { ok: true, value: out };
  const reads = await ctx.upstream.readFiles(ctx.target.repo, commit, paths);
  if (!reads.ok) return reads;
  for (const r of reads.value) out.set(r.path, r.ok && r.symlink ? linkTargetOf(r.bytes) : undefined);
  return { ok: true, value: out };
}

/** The cursor, whether this is a fresh start, then one `A|M|D|R path` line per change. */
function render(o: Output): string {
  const lines = [
    `cursor: ${o.cursor}\n`,
    o.fresh_instance ? 'fresh_instance: start over from get_tree\n' : `${o.changes.length} changes\n`,
  ];
  for (const c of o.changes) {
    const letter = statusLetter(c.change === 'deleted' ? 'removed' : c.change);
    lines.push(
      c.previous_path === undefined
        ? `${letter} ${field(c.path)}\n`
        : `${letter} ${field(c.previous_path)} -> ${field(c.path)}\n`,
    );
  }
  if (o.truncated) lines.push(`truncated: over ${MAX_CHANGES} changes; list the tree again with get_tree\n`);
  return lines.join('');
}

export const changesSince = defineTool<Args, Raw, Output>({
  name: 'changes_since',
  access: 'read',
  surfaces: ['agent', 'root'],
  pathMode: 'all',
  description:
    'What changed in your readable files on the bound branch since the `cursor` you send back (first call: a cursor only).',
  annotations: {
    title: 'Changes since a cursor',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  agentInput: z.strictObject({ cursor: Cursor.optional() }),
  rootInput: z.strictObject({ cursor: Cursor.optional(), repo: Repo, ref: Ref.describe('Branch to follow.') }),
  output: Output,
  paths: () => [],
  rootTarget: (a) => ({ repo: a.repo ?? '', ref: a.ref ?? '' }),
  run,
  filter: (raw, _a, ctx) => {
    if (raw.kind === 'fresh')
      return {
        kind: 'ok',
        value: { cursor: raw.cursor, fresh_instance: true, changes: [], truncated: false },
        commit: raw.head,
      };
    const all = diffListings(raw.base, raw.now, ctx.scope, raw.links);
    const changes = all
      .slice(0, MAX_CHANGES)
      .map((c) => (c.previous_path === undefined ? { path: c.path, change: c.change } : { ...c }));
    return {
      kind: 'ok',
      value: { cursor: raw.cursor, fresh_instance: false, changes, truncated: all.length > MAX_CHANGES },
      commit: raw.head,
    };
  },
  notFound: () => 'Not found: the bound branch does not exist upstream any more.',
  render,
});
