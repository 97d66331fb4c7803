// Gitlinks recorded in HEAD and the commit checked out in each. The submodule directory is reached without following
// a symlink (a link there could lead anywhere), and its HEAD is read with GIT_DIR pinned to its own `.git`.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SubmoduleInfo, WsResult } from '../types.js';
import { runGit } from '../../gitcli/run.js';
import { runFailure, wsOk } from './errors.js';
import { baseCall, wtGit, type WtContext } from './git.js';

/** Parses `ls-tree -r -z` output, keeping gitlinks only. */
export function parseGitlinks(out: Buffer): { path: string; recorded: string }[] {
  const links: { path: string; recorded: string }[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid = ''] = rec.slice(0, tab).split(' ');
    if (mode === '160000' && type === 'commit') links.push({ path: rec.slice(tab + 1), recorded: oid });
  }
  return links;
}

/** True when every segment of `path` below `root` is a real directory (no symlink on the way). */
async function realDirectory(root: string, path: string): Promise<boolean> {
  const segs = path.split('/');
  for (let i = 1; i <= segs.length; i++) {
    const st = await lstat(join(root, ...segs.slice(0, i))).catch(() => null);
    if (!st || !st.isDirectory()) return false;
  }
  return true;
}

async function checkedOut(ctx: WtContext, path: string): Promise<string | null> {
  if (!(await realDirectory(ctx.root, path))) return null;
  const dir = join(ctx.root, path);
  const dotGit = await lstat(join(dir, '.git')).catch(() => null);
  if (!dotGit || dotGit.isSymbolicLink()) return null;
  const r = await runGit(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { ...baseCall(ctx), cwd: dir, gitDir: join(dir, '.git'), env: {} });
  if (r.code !== 0) return null;
  return r.stdout.toString('utf8').trim() || null;
}

/** Every gitlink of HEAD with its recorded and checked-out commits (an unborn HEAD has none). */
export async function readSubmodules(ctx: WtContext): Promise<WsResult<readonly SubmoduleInfo[]>> {
  const head = await wtGit(ctx, ['rev-parse', '-q', '--verify', 'HEAD^{tree}'], 'reading HEAD');
  if (!head.ok) return head;
  if (head.run.code !== 0) return wsOk([]);
  const tree = await wtGit(ctx, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD'], 'listing submodules');
  if (!tree.ok) return tree;
  if (tree.run.code !== 0) return runFailure(tree.run, 'listing submodules', ctx.log);
  const out: SubmoduleInfo[] = [];
  for (const link of parseGitlinks(tree.run.stdout)) out.push({ ...link, checkedOut: await checkedOut(ctx, link.path) });
  return wsOk(out);
}
