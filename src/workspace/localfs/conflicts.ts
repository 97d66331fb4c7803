// The three sides of one conflicted index entry: stages from `ls-files -u` (reads the index, never writes it), their
// bytes from the object store with `cat-file blob` (no filters: content exactly as stored), each capped, and for each
// whether this path held that blob in the commit the stage stands for (git may have paired it from another path).
import type { ConflictSides, ConflictStage, WsResult } from '../types.js';
import { runGit } from '../../gitcli/run.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { baseCall, isFullOid, wtGit, type WtContext } from './git.js';
import { isRepoPath, readWorktreeFile } from './read.js';

interface Stage {
  readonly mode: string;
  readonly oid: string;
}

/** Parses `ls-files -u -z` for exactly `path` (the pathspec also matches below a directory of that name). */
export function parseUnmerged(out: Buffer, path: string): Map<number, Stage> {
  const stages = new Map<number, Stage>();
  for (const rec of out.toString('utf8').split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab < 0 || rec.slice(tab + 1) !== path) continue;
    const [mode = '', oid = '', stage = ''] = rec.slice(0, tab).split(' ');
    stages.set(Number(stage), { mode, oid });
  }
  return stages;
}

async function readStage(
  ctx: WtContext,
  stage: Stage | undefined,
  vouched: ReadonlySet<string>,
  maxBytes: number,
): Promise<WsResult<ConflictStage>> {
  if (!stage) return wsOk({ present: false });
  if (!isFullOid(stage.oid)) throw new Error('ls-files printed a malformed object id');
  const atPath = vouched.has(stage.oid);
  // A gitlink stage names a commit of another repository: nothing to read here.
  if (stage.mode === '160000')
    return wsOk({
      present: true,
      oid: stage.oid,
      mode: stage.mode,
      size: 0,
      bytes: new Uint8Array(0),
      truncated: false,
      atPath,
    });
  const size = await runGit(['cat-file', '-s', stage.oid], baseCall(ctx));
  if (size.code !== 0) return runFailure(size, 'reading a conflict stage', ctx.log);
  const total = Number(size.stdout.toString('utf8').trim());
  const body = await runGit(['cat-file', 'blob', stage.oid], baseCall(ctx, { maxBytes }));
  const truncated = body.spawnError === 'too_large';
  if (body.code !== 0 && !truncated) return runFailure(body, 'reading a conflict stage', ctx.log);
  return wsOk({
    present: true,
    oid: stage.oid,
    mode: stage.mode,
    size: total,
    bytes: new Uint8Array(body.stdout),
    truncated,
    atPath,
  });
}

/** The commits an operation in progress takes "theirs" (and, with their parents, the base) from. */
const OTHER_HEADS = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD'] as const;

/** Object ids `path` has in each of these revisions (`<rev>:<path>`, one `cat-file --batch-check`); missing ones left out. */
async function idsAt(ctx: WtContext, revs: readonly string[], path: string): Promise<WsResult<Set<string>>> {
  const r = await wtGit(ctx, ['cat-file', '--batch-check=%(objectname)'], 'checking where conflict stages come from', {
    input: revs.map((rev) => `${rev}:${path}\n`).join(''),
  });
  if (!r.ok) return r;
  if (r.run.code !== 0) return runFailure(r.run, 'checking where conflict stages come from', ctx.log);
  return wsOk(new Set(r.run.stdout.toString('utf8').split('\n').filter(isFullOid)));
}

/**
 * Which blobs each stage may be vouched for by: the blob `path` itself holds in the commits that stage stands for.
 * A stage git took from another path (a rename paired with it) is in none of them.
 */
async function vouchers(
  ctx: WtContext,
  path: string,
): Promise<WsResult<{ ours: Set<string>; theirs: Set<string>; base: Set<string> }>> {
  const heads = OTHER_HEADS.flatMap((h) => [h, `${h}^`]);
  const bases = await wtGit(ctx, ['merge-base', '--all', 'HEAD', 'MERGE_HEAD'], 'finding the merge base');
  if (!bases.ok) return bases;
  // Exit 1 (no base) or 128 (no merge in progress): no base commit then.
  const baseRevs = bases.run.code === 0 ? bases.run.stdout.toString('utf8').split('\n').filter(isFullOid) : [];
  const [ours, theirs, base] = [
    await idsAt(ctx, ['HEAD'], path),
    await idsAt(ctx, heads, path),
    await idsAt(ctx, [...heads, ...baseRevs], path),
  ];
  if (!ours.ok) return ours;
  if (!theirs.ok) return theirs;
  if (!base.ok) return base;
  return wsOk({ ours: ours.value, theirs: theirs.value, base: base.value });
}

/** Base, ours, theirs and the working-tree file of a conflicted `path`; not_found when it is not conflicted. */
export async function readConflictSides(
  ctx: WtContext,
  path: string,
  maxBytes: number,
): Promise<WsResult<ConflictSides>> {
  if (!isRepoPath(path)) return wsFail('invalid', 'Paths are relative to the repository root, without "." or "..".');
  const ls = await wtGit(ctx, ['ls-files', '-u', '-z', '--', path], 'listing conflict stages');
  if (!ls.ok) return ls;
  if (ls.run.code !== 0) return runFailure(ls.run, 'listing conflict stages', ctx.log);
  const stages = parseUnmerged(ls.run.stdout, path);
  if (stages.size === 0) return wsFail('not_found', 'That path has no conflict.');
  const v = await vouchers(ctx, path);
  if (!v.ok) return v;
  const [base, ours, theirs, worktree] = await Promise.all([
    readStage(ctx, stages.get(1), v.value.base, maxBytes),
    readStage(ctx, stages.get(2), v.value.ours, maxBytes),
    readStage(ctx, stages.get(3), v.value.theirs, maxBytes),
    readWorktreeFile(ctx.root, path, maxBytes),
  ]);
  if (!base.ok) return base;
  if (!ours.ok) return ours;
  if (!theirs.ok) return theirs;
  if (!worktree.ok) return worktree;
  return wsOk({ path, base: base.value, ours: ours.value, theirs: theirs.value, worktree: worktree.value });
}
