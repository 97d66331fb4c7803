import * as z from 'zod/v4';
import { cutIntegrity, decodeUtf8, resolveLinkTarget, type RawIntegrity } from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import type { IntegrityEntry, WorkTree } from '../../workspace/types.js';
import { rootTargetOf } from '../schemas.js';
import { field } from '../render.js';
import { defineTool, type ToolContext } from '../tool.js';
import { notCheckedOut, onTree, readableOnly, readOnly, up, wsRootFields } from '../workspace.js';

const LINK = '120000';

const Output = z.object({
  clean: z.boolean().describe('True when every file you can read matches the bound head.'),
  entries: z.array(
    z.object({
      path: z.string(),
      change: z.enum(['modified', 'added', 'deleted', 'mode_changed', 'symlink_retargeted', 'type_changed']),
      head_sha: z.string().optional().describe('Blob id in the bound head.'),
      worktree_sha: z.string().optional().describe("git's blob id of the content on disk."),
    }),
  ),
  total: z.number(),
  truncated: z.boolean(),
});
type Output = z.infer<typeof Output>;

interface Raw {
  readonly records: readonly RawIntegrity[];
  readonly truncated: boolean;
}

/** Where each link side resolves, so the core can judge its target (a committed link by its text, one on disk hop by hop). */
async function resolveLinks(
  ctx: ToolContext,
  t: WorkTree,
  entries: readonly IntegrityEntry[],
): Promise<RawIntegrity[]> {
  const out: RawIntegrity[] = [];
  for (const e of entries) {
    // Paths the scope cannot read are dropped by the core anyway; never spend a read on them.
    if (!ctx.scope.canRead(e.path)) continue;
    let headTo: string | null | undefined;
    let wtTo: string | null | undefined;
    if (e.headMode === LINK) {
      const r = await ctx.upstream.readFiles(ctx.target.repo, ctx.target.ref, [e.path]);
      const f = r.ok ? r.value[0] : undefined;
      const text = f?.ok ? decodeUtf8(f.bytes) : undefined;
      headTo = text === undefined ? null : (resolveLinkTarget(e.path, text) ?? null);
    }
    if (e.worktreeMode === LINK) {
      const r = await t.readFile(e.path, 1);
      wtTo =
        r.ok && (r.value.kind === 'file' || r.value.kind === 'too_large' || r.value.kind === 'directory')
          ? r.value.resolvedPath
          : null;
    }
    out.push({
      path: e.path,
      ...(e.headOid !== null && e.headMode !== null
        ? { head: { sha: e.headOid, mode: e.headMode, ...(headTo !== undefined ? { resolves_to: headTo } : {}) } }
        : {}),
      ...(e.worktreeOid !== null && e.worktreeMode !== null
        ? {
            worktree: {
              sha: e.worktreeOid,
              mode: e.worktreeMode,
              ...(wtTo !== undefined ? { resolves_to: wtTo } : {}),
            },
          }
        : {}),
    });
  }
  return out;
}

function render(o: Output): string {
  return [
    `clean ${o.clean}, ${o.total} differences${o.truncated ? ' (truncated)' : ''}`,
    ...o.entries.map((e) => `${e.change} ${field(e.path)} ${e.head_sha ?? '-'} ${e.worktree_sha ?? '-'}`),
  ].join('\n');
}

export const integrityCheck = defineTool<object, Raw, Output>({
  name: 'integrity_check',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description: 'Files whose content on disk differs from the bound head, with both blob ids.',
  annotations: readOnly('Working-tree integrity'),
  agentInput: z.strictObject({}),
  rootInput: z.strictObject(wsRootFields),
  output: Output,
  paths: () => [],
  rootTarget: rootTargetOf,
  run: (_a, ctx) =>
    onTree(ctx, async (t): Promise<UpResult<Raw>> => {
      const l = up(await t.integrity(readableOnly(ctx)));
      if (!l.ok) return l;
      return {
        ok: true,
        value: { records: await resolveLinks(ctx, t, l.value.entries), truncated: l.value.truncated },
      };
    }),
  filter: (raw, _a, ctx) => {
    const entries = cutIntegrity(raw.records, ctx.scope).map((e) => ({ ...e }));
    return {
      kind: 'ok',
      value: { clean: entries.length === 0, entries, total: entries.length, truncated: raw.truncated },
    };
  },
  render,
  notFound: () => notCheckedOut('integrity_check'),
});
