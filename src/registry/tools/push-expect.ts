// push_files' preconditions: `expected_head` (the branch has not moved in the agent's window) and per-file
// `expected_blob_sha` (the file is still what the agent read). Both are judged on what the agent can see: a commit
// that touches only hidden files never moves the head an agent knows, and an unreadable path reads as a missing one.
import { historyPrefixes } from '../../core/index.js';
import type { FileRead, UpstreamError } from '../../upstream/types.js';
import { visibleHistory } from '../history.js';
import type { ToolContext } from '../tool.js';
import { norm } from './commit-write.js';
import { serveOn } from './get_file.js';
import { DEFAULT_MAX_FILE_BYTES } from './push-checks.js';

/** What the checks found: nothing to check, checked at `head` (the write must start from there), or a refusal. */
export type Precondition =
  | { readonly kind: 'none' }
  | { readonly kind: 'checked'; readonly head: string }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'error'; readonly error: UpstreamError };

interface Expectations {
  readonly expected_head?: string | undefined;
  readonly files: readonly { path: string; expected_blob_sha?: string | undefined }[];
}

/** The newest commit the binding can see at `head` (the agent's `list_commits` first entry); undefined: none. */
async function newestVisible(
  ctx: ToolContext,
  head: string,
): Promise<{ ok: true; value: string | undefined } | { ok: false; error: UpstreamError }> {
  const b = ctx.binding;
  if (b.surface === 'root') return { ok: true, value: head };
  if (historyPrefixes(b.readGlobs).prefixes.length === 0) return { ok: true, value: undefined };
  const page = await visibleHistory(ctx.upstream, ctx.scope, {
    repo: ctx.target.repo,
    ref: head,
    readGlobs: b.readGlobs,
    trustPrefixes: false,
    path: undefined,
    skip: 0,
    limit: 1,
  });
  if (!page.ok) return page;
  return { ok: true, value: page.value.commits[0]?.sha };
}

const stale = (path: string, want: string, now?: string): string =>
  now === undefined
    ? `Stale: "${path}" does not exist on the bound branch (expected blob ${want}); nothing was written. Read it again and retry.`
    : `Stale: "${path}" changed since you read it (its blob is ${now} now, not ${want}); nothing was written. Read it again and retry.`;

/** Checks the call's expectations at the branch's current head; `none` when it states none. */
export async function pushPreconditions(ctx: ToolContext, a: Expectations): Promise<Precondition> {
  const expected = a.files.flatMap((f) =>
    f.expected_blob_sha === undefined ? [] : [{ path: norm(f.path), want: f.expected_blob_sha }],
  );
  if (a.expected_head === undefined && expected.length === 0) return { kind: 'none' };
  const head = await ctx.upstream.branchHead(ctx.target.repo, ctx.target.ref);
  if (!head.ok) return { kind: 'error', error: head.error };
  if (a.expected_head !== undefined) {
    const newest = await newestVisible(ctx, head.value);
    if (!newest.ok) return { kind: 'error', error: newest.error };
    if (newest.value !== a.expected_head)
      return {
        kind: 'refused',
        message: `Moved: the newest commit you can see on the bound branch is ${newest.value ?? '(none)'}, not expected_head ${a.expected_head}; nothing was written. See what changed (changes_since, list_commits) and retry.`,
      };
  }
  if (expected.length > 0) {
    // Hidden paths are never read: they answer as missing ones do.
    const readable = expected.map((e) => e.path).filter((p) => !ctx.hidden.has(p));
    const b = ctx.binding;
    const maxBytes = (b.surface === 'agent' ? b.limits.max_file_bytes : undefined) ?? DEFAULT_MAX_FILE_BYTES;
    const reads = new Map<string, FileRead>();
    if (readable.length > 0) {
      const r = await ctx.upstream.readFiles(ctx.target.repo, head.value, readable, {
        maxBytes: maxBytes * readable.length,
      });
      if (!r.ok) return { kind: 'error', error: r.error };
      for (const f of r.value) reads.set(f.path, f);
    }
    for (const { path, want } of expected) {
      const f = reads.get(path);
      if (ctx.hidden.has(path) || f === undefined) return { kind: 'refused', message: stale(path, want) };
      if (!f.ok) {
        if (f.error.code === 'not_found') return { kind: 'refused', message: stale(path, want) };
        if (f.error.code === 'too_large')
          return {
            kind: 'refused',
            message: `"${path}" is too large to check expected_blob_sha against (over ${maxBytes} bytes); nothing was written.`,
          };
        return { kind: 'error', error: f.error };
      }
      if (serveOn(f, ctx).kind === 'missing') return { kind: 'refused', message: stale(path, want) };
      if (f.sha !== want) return { kind: 'refused', message: stale(path, want, f.sha) };
    }
  }
  return { kind: 'checked', head: head.value };
}
