// The three sides of one conflicted index entry: stages from `ls-files -u` (reads the index, never writes it), their
// bytes from the object store with `cat-file blob` (no filters: content exactly as stored), each capped.
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

async function readStage(ctx: WtContext, stage: Stage | undefined, maxBytes: number): Promise<WsResult<ConflictStage>> {
  if (!stage) return wsOk({ present: false });
  if (!isFullOid(stage.oid)) throw new Error('ls-files printed a malformed object id');
  // A gitlink stage names a commit of another repository: nothing to read here.
  if (stage.mode === '160000') return wsOk({ present: true, oid: stage.oid, mode: stage.mode, size: 0, bytes: new Uint8Array(0), truncated: false });
  const size = await runGit(['cat-file', '-s', stage.oid], baseCall(ctx));
  if (size.code !== 0) return runFailure(size, 'reading a conflict stage', ctx.log);
  const total = Number(size.stdout.toString('utf8').trim());
  const body = await runGit(['cat-file', 'blob', stage.oid], baseCall(ctx, { maxBytes }));
  const truncated = body.spawnError === 'too_large';
  if (body.code !== 0 && !truncated) return runFailure(body, 'reading a conflict stage', ctx.log);
  return wsOk({ present: true, oid: stage.oid, mode: stage.mode, size: total, bytes: new Uint8Array(body.stdout), truncated });
}

/** Base, ours, theirs and the working-tree file of a conflicted `path`; not_found when it is not conflicted. */
export async function readConflictSides(ctx: WtContext, path: string, maxBytes: number): Promise<WsResult<ConflictSides>> {
  if (!isRepoPath(path)) return wsFail('invalid', 'Paths are relative to the repository root, without "." or "..".');
  const ls = await wtGit(ctx, ['ls-files', '-u', '-z', '--', path], 'listing conflict stages');
  if (!ls.ok) return ls;
  if (ls.run.code !== 0) return runFailure(ls.run, 'listing conflict stages', ctx.log);
  const stages = parseUnmerged(ls.run.stdout, path);
  if (stages.size === 0) return wsFail('not_found', 'That path has no conflict.');
  const [base, ours, theirs, worktree] = await Promise.all([
    readStage(ctx, stages.get(1), maxBytes),
    readStage(ctx, stages.get(2), maxBytes),
    readStage(ctx, stages.get(3), maxBytes),
    readWorktreeFile(ctx.root, path, maxBytes),
  ]);
  if (!base.ok) return base;
  if (!ours.ok) return ours;
  if (!theirs.ok) return theirs;
  if (!worktree.ok) return worktree;
  return wsOk({ path, base: base.value, ours: ours.value, theirs: theirs.value, worktree: worktree.value });
}
