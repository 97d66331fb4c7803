// HEAD, its upstream, and the operation in progress. The operation is read from marker files in this working tree's
// own git dir (a linked worktree has its own), as git's own prompt script does; no process is started for it.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { HeadInfo, Operation, UpstreamCounts, WsResult } from '../types.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { wtGit, type WtContext } from './git.js';

/** Branch, commit and upstream of HEAD (three small reads, in parallel). */
export async function readHead(ctx: WtContext): Promise<WsResult<HeadInfo>> {
  const [sym, commit, up] = await Promise.all([
    wtGit(ctx, ['symbolic-ref', '-q', 'HEAD'], 'reading HEAD'),
    wtGit(ctx, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], 'reading HEAD'),
    wtGit(ctx, ['rev-parse', '-q', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'], 'reading the upstream'),
  ]);
  if (!sym.ok) return sym;
  if (!commit.ok) return commit;
  if (!up.ok) return up;
  if (sym.run.code !== 0 && sym.run.code !== 1) return runFailure(sym.run, 'reading HEAD', ctx.log);
  const ref = sym.run.code === 0 ? sym.run.stdout.toString('utf8').trim() : '';
  const branch = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
  const sha = commit.run.code === 0 ? commit.run.stdout.toString('utf8').trim() : null;
  const upstream = up.run.code === 0 ? up.run.stdout.toString('utf8').trim() || null : null;
  return wsOk({ branch, commit: sha, upstream });
}

/** Ahead/behind of HEAD vs its upstream over commits touching `prefixes`: one rev-list. */
export async function readUpstreamCounts(
  ctx: WtContext,
  prefixes: readonly string[],
): Promise<WsResult<UpstreamCounts>> {
  if (prefixes.some((p) => p.includes('\0') || p.startsWith('/')))
    return wsFail('invalid', 'Prefixes are repository paths.');
  if (prefixes.length === 0) {
    const r = await wtGit(ctx, ['rev-list', '--count', '--max-count=0', 'HEAD...@{upstream}'], 'reading the upstream');
    if (!r.ok) return r;
    return wsOk(r.run.code === 0 ? { kind: 'counted', ahead: 0, behind: 0 } : { kind: 'none' });
  }
  const spec = prefixes.includes('') ? [] : prefixes;
  const r = await wtGit(
    ctx,
    ['rev-list', '--left-right', '--count', 'HEAD...@{upstream}', '--', ...spec],
    'counting commits against the upstream',
  );
  if (!r.ok) return r;
  // 128: no upstream configured, it does not resolve, or HEAD is unborn.
  if (r.run.code === 128) return wsOk({ kind: 'none' });
  if (r.run.code !== 0) return runFailure(r.run, 'counting commits against the upstream', ctx.log);
  const [ahead = '', behind = ''] = r.run.stdout.toString('utf8').trim().split('\t');
  if (!/^\d+$/.test(ahead) || !/^\d+$/.test(behind)) throw new Error('rev-list --count printed something else');
  return wsOk({ kind: 'counted', ahead: Number(ahead), behind: Number(behind) });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The operation in progress, by the marker files git leaves in the working tree's git dir. */
export async function readOperation(ctx: WtContext): Promise<WsResult<Operation>> {
  const at = (f: string): Promise<boolean> => exists(join(ctx.gitDir, f));
  // Rebase first: a conflicted rebase step also leaves a CHERRY_PICK_HEAD or MERGE_HEAD behind. `git am` shares
  // rebase-apply; it is reported as a rebase (the union has no `am`, and both continue the same way).
  if ((await at('rebase-merge')) || (await at('rebase-apply'))) return wsOk('rebase');
  if (await at('MERGE_HEAD')) return wsOk('merge');
  if (await at('CHERRY_PICK_HEAD')) return wsOk('cherry_pick');
  if (await at('REVERT_HEAD')) return wsOk('revert');
  if (await at('BISECT_LOG')) return wsOk('bisect');
  return wsOk('none');
}
