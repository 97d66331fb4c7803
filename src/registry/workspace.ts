// What the workspace tools share: opening the bound branch's working tree, translating the port's errors once, and
// turning the port's raw records into the core's input shapes (the core cannot import the port).
import * as z from 'zod/v4';
import { historyPrefixes, type RawDiffFile, type RawStatusEntry, type StatusLetter } from '../core/index.js';
import type { FileRead, UpResult, UpstreamError } from '../upstream/types.js';
import type { ChangeCode, DiffFile, StatusEntry, WorkTree, WsError, WsResult } from '../workspace/types.js';
import type { ToolContext } from './tool.js';

/** A working-tree failure as the MCP layer's error union: translated here, once, for every workspace tool. */
export function wsError(e: WsError): UpstreamError {
  switch (e.code) {
    case 'not_found':
    case 'invalid':
    case 'too_large':
    case 'conflict':
    case 'unavailable':
      return { code: e.code, message: e.message };
    case 'timeout':
      return { code: 'unavailable', message: `git took too long: ${e.message}` };
    case 'refused':
      return { code: 'unavailable', message: `the repository's configuration could not be made safe: ${e.message}` };
    default: {
      const never: never = e.code;
      throw new Error(`unknown workspace error ${String(never)}`);
    }
  }
}

/** A port result as an upstream result. */
export function up<T>(r: WsResult<T>): UpResult<T> {
  return r.ok ? { ok: true, value: r.value } : { ok: false, error: wsError(r.error) };
}

const NOT_CHECKED_OUT: UpstreamError = {
  code: 'not_found',
  message: 'the branch is not checked out in a working tree',
};

/** The working tree of the call's target (the bound branch for agents); not found when there is none. */
export async function openTree(ctx: ToolContext): Promise<UpResult<WorkTree>> {
  if (!ctx.workspace) return { ok: false, error: NOT_CHECKED_OUT };
  const r = await ctx.workspace.open(ctx.target.repo, ctx.target.ref);
  if (!r.ok) return { ok: false, error: wsError(r.error) };
  return r.value ? { ok: true, value: r.value } : { ok: false, error: NOT_CHECKED_OUT };
}

/** Runs `f` on the target's working tree. */
export async function onTree<T>(ctx: ToolContext, f: (t: WorkTree) => Promise<UpResult<T>>): Promise<UpResult<T>> {
  const t = await openTree(ctx);
  return t.ok ? f(t.value) : t;
}

/**
 * Literal prefixes git may be restricted to for an agent (read-glob prefixes; [''] on the operator surface). Output is
 * filtered again by the scope: this only saves work, it never decides what is shown.
 */
export function gitPrefixes(ctx: ToolContext): readonly string[] {
  if (ctx.binding.surface !== 'agent') return [''];
  return historyPrefixes(ctx.binding.readGlobs).prefixes;
}

/**
 * What an agent's listing asks the working tree for: only records of readable paths, dropped by the adapter as git
 * prints them, so hidden records never reach a cap, a window or a parser (SPEC §3.4). The operator reads everything.
 */
export function readableOnly(ctx: ToolContext): { read?: (path: string) => boolean } {
  return ctx.binding.surface === 'agent' ? { read: (p: string) => ctx.scope.canRead(p) } : {};
}

const letter = (c: ChangeCode): StatusLetter => c;

/** A porcelain-v2 entry in the core's shape; ignored entries are not status an agent is shown. */
export function rawStatus(e: StatusEntry): RawStatusEntry | undefined {
  switch (e.kind) {
    case 'ordinary':
      return {
        kind: 'ordinary',
        path: e.path,
        index: letter(e.staged),
        worktree: letter(e.unstaged),
        ...(e.links ? { links: { ...e.links } } : {}),
      };
    case 'renamed':
      return { kind: 'renamed', path: e.path, from: e.origPath, index: letter(e.staged), worktree: letter(e.unstaged) };
    case 'unmerged': {
      const [x, y] = [e.xy.charAt(0), e.xy.charAt(1)];
      const ok = (c: string): c is StatusLetter => ['.', 'M', 'T', 'A', 'D', 'R', 'C', 'U'].includes(c);
      return ok(x) && ok(y) ? { kind: 'unmerged', path: e.path, index: x, worktree: y } : undefined;
    }
    case 'untracked':
      return { kind: 'untracked', path: e.path, ...(e.links ? { links: { ...e.links } } : {}) };
    case 'ignored':
      return undefined;
    default: {
      const never: never = e;
      throw new Error(`unknown status entry ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The hunks of one file's patch: everything from the first `@@` line. Header lines (`diff --git`, `index`, mode and
 * similarity lines) are dropped: they carry blob ids and the other side's path. Undefined for a binary or non-UTF-8
 * patch, or one with no hunks.
 */
export function hunksOf(patch: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(patch);
  } catch {
    return undefined;
  }
  const at = text.startsWith('@@') ? 0 : text.indexOf('\n@@');
  if (at < 0) return undefined;
  const hunks = text.slice(at === 0 ? 0 : at + 1);
  return hunks.endsWith('\n') ? hunks.slice(0, -1) : hunks;
}

/** A port diff record in the core's shape (no object ids: the working-tree side's would be a hash of hidden bytes). */
export function rawDiff(f: DiffFile): RawDiffFile {
  const patch = f.binary ? undefined : hunksOf(f.patch);
  return {
    path: f.path,
    ...(f.origPath !== null ? { previous_path: f.origPath } : {}),
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    binary: f.binary,
    old_mode: f.oldMode,
    new_mode: f.newMode,
    ...(patch !== undefined ? { patch } : {}),
  };
}

/** The not-found answer every workspace tool gives when the working tree (or the thing asked about) is not there. */
export const notCheckedOut = (tool: string): string =>
  `Not found: ${tool} has nothing to show: the bound branch has no working tree here. Ask the operator to run \`git-blinder worktree add\`.`;

/** Annotations of every workspace tool: read-only, idempotent, closed world. */
export const readOnly = (title: string) =>
  ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }) as const;

/** Operator-surface target of a workspace tool: the repository and the branch whose working tree is read. */
export const WsBranch = z
  .string()
  .min(1)
  .max(255)
  .refine((b) => !b.startsWith('-'), 'A branch never starts with "-".')
  .describe('Branch whose working tree to read (it must be checked out).');

/** The operator surface's extra arguments on every workspace tool: which repository, and which checked-out branch. */
export const wsRootFields = { repo: z.string().min(1).max(4096), ref: WsBranch };

/** git's blob id (SHA-1 repositories) of bytes read from disk, so a working-tree read names its content as git would. */
async function blobId(bytes: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`blob ${bytes.length}\0`);
  const all = new Uint8Array(header.length + bytes.length);
  all.set(header);
  all.set(bytes, header.length);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-1', all));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const missingRead = (path: string): FileRead => ({
  path,
  ok: false,
  error: { code: 'not_found', message: 'no such file' },
});

/**
 * Reads files from the working tree as the upstream's `readFiles` would answer them, so get_file's filter serves
 * both alike. A symlink is judged where it resolves (inside the tree, hop by hop, by the adapter): a target the
 * scope cannot read, one outside the tree, dangling or looping, reads as a missing file.
 */
export async function worktreeReads(
  ctx: ToolContext,
  paths: readonly string[],
  maxBytes: number,
): Promise<UpResult<readonly FileRead[]>> {
  return onTree(ctx, async (t) => {
    const out: FileRead[] = [];
    for (const path of paths) {
      const r = await t.readFile(path, maxBytes);
      if (!r.ok) {
        if (r.error.code === 'not_found') out.push(missingRead(path));
        else return { ok: false, error: wsError(r.error) };
        continue;
      }
      const v = r.value;
      switch (v.kind) {
        case 'file':
          out.push(
            ctx.scope.canRead(v.resolvedPath)
              ? { path, ok: true, sha: await blobId(v.bytes), size: v.size, bytes: v.bytes }
              : missingRead(path),
          );
          break;
        case 'too_large':
          out.push(
            ctx.scope.canRead(v.resolvedPath)
              ? { path, ok: false, error: { code: 'too_large', message: 'too large' }, size: v.size }
              : missingRead(path),
          );
          break;
        case 'unresolvable':
        case 'directory':
        case 'missing':
          out.push(missingRead(path));
          break;
        default: {
          const never: never = v;
          throw new Error(`unknown working-tree read ${JSON.stringify(never)}`);
        }
      }
    }
    return { ok: true, value: out };
  });
}

/** The `source` argument of get_file and get_files. */
export const Source = z
  .enum(['head', 'worktree'])
  .optional()
  .describe('"worktree": the file on disk where the branch is checked out. Default "head".');

/** Bytes one working-tree read takes at most where no answer cap applies (the operator surface). */
export const WORKTREE_READ_BYTES = 64 * 1024 * 1024;
