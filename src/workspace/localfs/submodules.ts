// Gitlinks recorded in HEAD and the commit checked out in each. The submodule directory is reached without following
// a symlink (a link there could lead anywhere), and its HEAD is read with GIT_DIR pinned to its own `.git`.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SubmoduleInfo, WsResult } from '../types.js';
import { runGit } from '../../gitcli/run.js';
import { wsFail, wsOk } from './errors.js';
import { baseCall, wtGit, type WtContext } from './git.js';
import { gitTokens, utf8Path } from './tokens.js';

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
  const r = await runGit(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], {
    ...baseCall(ctx),
    cwd: dir,
    gitDir: join(dir, '.git'),
    env: {},
  });
  if (r.code !== 0) return null;
  return r.stdout.toString('utf8').trim() || null;
}

/**
 * Every gitlink of HEAD (that `read` accepts, when given) with its recorded and checked-out commits (an unborn HEAD
 * has none). The tree listing is streamed and only gitlinks are kept: the other entries, hidden ones included, never
 * reach an output cap.
 */
export async function readSubmodules(
  ctx: WtContext,
  read?: (path: string) => boolean,
): Promise<WsResult<readonly SubmoduleInfo[]>> {
  const head = await wtGit(ctx, ['rev-parse', '-q', '--verify', 'HEAD^{tree}'], 'reading HEAD');
  if (!head.ok) return head;
  if (head.run.code !== 0) return wsOk([]);
  const links: { path: string; recorded: string }[] = [];
  const doing = 'listing submodules';
  const tree = await gitTokens(ctx, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD'], doing, (tok) => {
    if (!tok.subarray(0, 7).equals(GITLINK)) return true;
    const [link] = parseGitlinks(Buffer.concat([tok, Buffer.from([0])]));
    const tab = tok.indexOf(0x09);
    if (link && utf8Path(tok.subarray(tab + 1)) !== undefined && (read === undefined || read(link.path)))
      links.push(link);
    return true;
  });
  if (!tree.ok) return tree;
  if (tree.value.kind === 'exit' && tree.value.code !== 0)
    return wsFail('unavailable', `git failed while ${doing}; try again later.`);
  const out: SubmoduleInfo[] = [];
  for (const link of links) out.push({ ...link, checkedOut: await checkedOut(ctx, link.path) });
  return wsOk(out);
}

const GITLINK = Buffer.from('160000 ');
