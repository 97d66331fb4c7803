// Gumi's integrity check with git's own baseline: every file whose working-tree state differs from HEAD. Candidates
// come from plumbing (`diff-index` against HEAD, which lists stat-dirty files too, and `ls-files --others`); each is
// then lstat'ed and hashed here as git would hash it without filters (`blob <size>\0<bytes>`), so a touched file with
// unchanged content drops out and no link is ever followed to hash its target.
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { EMPTY_TREE } from '../../gitcli/diff-reader.js';
import type { IntegrityChange, IntegrityEntry, IntegrityListing, WsResult } from '../types.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { wtGit, type WtContext } from './git.js';
import { gitTokens, utf8Path } from './tokens.js';

const NO_MODE = '000000';

interface HeadSide {
  readonly mode: string;
  readonly oid: string;
}

/** Parses `diff-index -z --raw --no-renames` into path → HEAD side (null when the path is not in HEAD). */
export function parseRawHeadSides(out: Buffer): Map<string, HeadSide | null> {
  const tokens = out.toString('utf8').split('\0');
  // What follows the last NUL is '' or a record cut by the output cap; a header without its path is skipped below.
  tokens.pop();
  const sides = new Map<string, HeadSide | null>();
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    const [srcMode = '', , srcOid = ''] = (tokens[i] as string).slice(1).split(' ');
    sides.set(tokens[i + 1] as string, srcMode === NO_MODE ? null : { mode: srcMode, oid: srcOid });
  }
  return sides;
}

/** The disk side of a path: mode and blob id, or null when nothing is there (or a parent is not a real directory). */
async function diskSide(root: string, path: string, algo: 'sha1' | 'sha256'): Promise<HeadSide | null> {
  const segs = path.split('/');
  for (let i = 1; i < segs.length; i++) {
    const parent = await lstat(join(root, ...segs.slice(0, i))).catch(() => null);
    if (!parent || !parent.isDirectory()) return null;
  }
  const abs = join(root, path);
  const st: Stats | null = await lstat(abs).catch(() => null);
  if (!st) return null;
  if (st.isSymbolicLink()) {
    const target = Buffer.from(await readlink(abs, { encoding: 'buffer' }));
    return { mode: '120000', oid: blobId(algo, [target], target.length) };
  }
  if (!st.isFile()) return null;
  let size = 0;
  const h = createHash(algo);
  h.update(`blob ${st.size}\0`);
  try {
    // O_NOFOLLOW: a file swapped for a link since the lstat is refused, not followed.
    const fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      for await (const c of fh.createReadStream({ autoClose: false })) {
        const b = c as Buffer;
        size += b.length;
        h.update(b);
      }
    } finally {
      await fh.close();
    }
  } catch {
    size = -1;
  }
  // The file changed size while it was read (or vanished): its content is not stable enough to vouch for, so it is
  // reported as not there rather than with a hash of half a write.
  if (size !== st.size) return null;
  return { mode: (st.mode & 0o100) !== 0 ? '100755' : '100644', oid: h.digest('hex') };
}

function blobId(algo: 'sha1' | 'sha256', parts: Buffer[], size: number): string {
  const h = createHash(algo);
  h.update(`blob ${size}\0`);
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** How HEAD's side and the disk's side differ, or null when they do not. */
export function classify(head: HeadSide | null, disk: HeadSide | null): IntegrityChange | null {
  if (!head && !disk) return null;
  if (!head) return 'added';
  if (!disk) return 'deleted';
  const headLink = head.mode === '120000';
  const diskLink = disk.mode === '120000';
  if (headLink !== diskLink) return 'type_changed';
  if (head.oid !== disk.oid) return headLink ? 'symlink_retargeted' : 'modified';
  if (head.mode !== disk.mode) return 'mode_changed';
  return null;
}

/**
 * Candidates streamed, keeping only paths `read` accepts (valid UTF-8): hidden records are never hashed and never count
 * toward the cap, which is on the bytes of kept paths.
 */
async function cutCandidates(
  ctx: WtContext,
  left: string,
  read: (path: string) => boolean,
): Promise<WsResult<{ candidates: Map<string, HeadSide | null>; truncated: boolean }>> {
  const candidates = new Map<string, HeadSide | null>();
  let bytes = 0;
  let truncated = false;
  const keep = (path: Buffer, side: HeadSide | null): boolean => {
    const p = utf8Path(path);
    if (p === undefined || !read(p) || candidates.has(p)) return true;
    bytes += path.length + 1;
    if (bytes > ctx.maxBytes) {
      truncated = true;
      return false;
    }
    candidates.set(p, side);
    return true;
  };
  let head: HeadSide | null | undefined;
  const diff = await gitTokens(
    ctx,
    ['diff-index', '-z', '--raw', '--no-renames', '--ignore-submodules=all', left, '--'],
    'checking the working tree',
    (tok) => {
      if (head === undefined) {
        const [srcMode = '', , srcOid = ''] = tok.toString('latin1', 1).split(' ');
        head = srcMode === NO_MODE ? null : { mode: srcMode, oid: srcOid };
        return true;
      }
      const side = head;
      head = undefined;
      return keep(tok, side);
    },
  );
  if (!diff.ok) return diff;
  if (diff.value.kind === 'exit' && diff.value.code !== 0)
    return wsFail('unavailable', 'git failed while checking the working tree; try again later.');
  if (!truncated) {
    const others = await gitTokens(
      ctx,
      ['ls-files', '-z', '--others', '--exclude-standard'],
      'listing untracked files',
      (tok) => keep(tok, null),
    );
    if (!others.ok) return others;
    if (others.value.kind === 'exit' && others.value.code !== 0)
      return wsFail('unavailable', 'git failed while listing untracked files; try again later.');
  }
  return wsOk({ candidates, truncated });
}

/** Files whose working-tree content differs from HEAD (untracked, not ignored, files count as added). */
export async function readIntegrity(
  ctx: WtContext,
  read?: (path: string) => boolean,
): Promise<WsResult<IntegrityListing>> {
  const fmt = await wtGit(ctx, ['rev-parse', '--show-object-format'], 'reading the object format');
  if (!fmt.ok) return fmt;
  const algo = fmt.run.stdout.toString('utf8').trim() === 'sha256' ? 'sha256' : 'sha1';
  const head = await wtGit(ctx, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], 'reading HEAD');
  if (!head.ok) return head;
  const left = head.run.code === 0 ? head.run.stdout.toString('utf8').trim() : EMPTY_TREE;
  if (read) {
    const cut = await cutCandidates(ctx, left, read);
    if (!cut.ok) return cut;
    return wsOk({ entries: await differing(ctx, cut.value.candidates, algo), truncated: cut.value.truncated });
  }
  const [diff, others] = await Promise.all([
    wtGit(
      ctx,
      ['diff-index', '-z', '--raw', '--no-renames', '--ignore-submodules=all', left, '--'],
      'checking the working tree',
      { partial: true },
    ),
    wtGit(ctx, ['ls-files', '-z', '--others', '--exclude-standard'], 'listing untracked files', { partial: true }),
  ]);
  if (!diff.ok) return diff;
  if (!others.ok) return others;
  const truncated = diff.run.spawnError === 'too_large' || others.run.spawnError === 'too_large';
  if (diff.run.code !== 0 && diff.run.spawnError !== 'too_large')
    return runFailure(diff.run, 'checking the working tree', ctx.log);
  if (others.run.code !== 0 && others.run.spawnError !== 'too_large')
    return runFailure(others.run, 'listing untracked files', ctx.log);
  const candidates = parseRawHeadSides(diff.run.stdout);
  const untracked = others.run.stdout.toString('utf8').split('\0');
  untracked.pop();
  for (const p of untracked) if (!candidates.has(p)) candidates.set(p, null);
  return wsOk({ entries: await differing(ctx, candidates, algo), truncated });
}

/** The candidates whose disk side differs from HEAD's, hashed here, sorted by path. */
async function differing(
  ctx: WtContext,
  candidates: ReadonlyMap<string, HeadSide | null>,
  algo: 'sha1' | 'sha256',
): Promise<IntegrityEntry[]> {
  const entries: IntegrityEntry[] = [];
  for (const [path, headSide] of [...candidates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Gitlinks are submodule_status's business.
    if (headSide?.mode === '160000') continue;
    const disk = await diskSide(ctx.root, path, algo);
    const change = classify(headSide, disk);
    if (change === null) continue;
    entries.push({
      path,
      change,
      headOid: headSide?.oid ?? null,
      headMode: headSide?.mode ?? null,
      worktreeOid: disk?.oid ?? null,
      worktreeMode: disk?.mode ?? null,
    });
  }
  return entries;
}
