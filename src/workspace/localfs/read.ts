// Reading a file from disk the way a checkout would resolve it, but only inside the working tree: each segment is
// lstat'ed, a symlink is replaced by its target resolved inside the tree (hop by hop, at most 40 hops), and the final
// file is opened with O_NOFOLLOW. A `.git` segment reads as missing: the repository's own files are not content.
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveLinkTarget } from '../../core/symlink.js';
import type { WorktreeRead, WsResult } from '../types.js';
import { wsFail, wsOk } from './errors.js';

const MAX_HOPS = 40;

/** A repository path we would hand to the filesystem: relative, no empty, `.` or `..` segment, no NUL. */
export function isRepoPath(path: string): boolean {
  return path !== '' && !path.includes('\0') && path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

function isGitSegment(seg: string): boolean {
  return seg.toLowerCase() === '.git';
}

async function lstatOrNull(abs: string): Promise<Stats | null> {
  try {
    return await lstat(abs);
  } catch {
    return null;
  }
}

/** Where `path` leads inside `root`: a file, a directory, or why it leads nowhere we may read. */
export async function resolveInTree(
  root: string,
  path: string,
): Promise<
  | { kind: 'file' | 'directory'; resolved: string }
  | { kind: 'missing' }
  | { kind: 'unresolvable'; reason: 'outside' | 'dangling' | 'loop' }
> {
  let pending = path.split('/');
  let done: string[] = [];
  let viaLink = false;
  let hops = 0;
  const nowhere = (): { kind: 'missing' } | { kind: 'unresolvable'; reason: 'dangling' } =>
    viaLink ? { kind: 'unresolvable', reason: 'dangling' } : { kind: 'missing' };
  while (pending.length > 0) {
    const seg = pending[0] as string;
    pending = pending.slice(1);
    const here = [...done, seg];
    if (isGitSegment(seg)) return viaLink ? { kind: 'unresolvable', reason: 'outside' } : { kind: 'missing' };
    const st = await lstatOrNull(join(root, ...here));
    if (!st) return nowhere();
    if (st.isSymbolicLink()) {
      if (++hops > MAX_HOPS) return { kind: 'unresolvable', reason: 'loop' };
      const target = await readlink(join(root, ...here)).catch(() => null);
      const next = target === null ? undefined : resolveLinkTarget(here.join('/'), target);
      if (next === undefined) return { kind: 'unresolvable', reason: 'outside' };
      viaLink = true;
      pending = [...next.split('/'), ...pending];
      done = [];
      continue;
    }
    if (st.isDirectory()) {
      done = here;
      continue;
    }
    if (st.isFile() && pending.length === 0) return { kind: 'file', resolved: here.join('/') };
    // A file in the middle of a path, a FIFO, a socket or a device: nothing to read there.
    return nowhere();
  }
  return done.length === 0 ? { kind: 'missing' } : { kind: 'directory', resolved: done.join('/') };
}

/** Reads `path` from the working tree at `root`, refusing content above `maxBytes` by its size. */
export async function readWorktreeFile(root: string, path: string, maxBytes: number): Promise<WsResult<WorktreeRead>> {
  if (!isRepoPath(path)) return wsFail('invalid', 'Paths are relative to the repository root, without "." or "..".');
  const where = await resolveInTree(root, path);
  switch (where.kind) {
    case 'missing':
      return wsOk({ kind: 'missing', path });
    case 'unresolvable':
      return wsOk({ kind: 'unresolvable', path, reason: where.reason });
    case 'directory':
      return wsOk({ kind: 'directory', path, resolvedPath: where.resolved });
    case 'file':
      break;
  }
  let fh;
  try {
    // O_NOFOLLOW: a file swapped for a link after the walk is refused, not followed; O_NONBLOCK: a FIFO never hangs us.
    fh = await open(join(root, where.resolved), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return wsOk({ kind: 'missing', path });
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return wsOk({ kind: 'missing', path });
    if (st.size > maxBytes) return wsOk({ kind: 'too_large', path, resolvedPath: where.resolved, size: st.size });
    // Read at most one byte past the cap: a file that grew since fstat is refused rather than served in part.
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let got = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
      if (got === buf.length) break;
    }
    if (got > maxBytes) return wsOk({ kind: 'too_large', path, resolvedPath: where.resolved, size: got });
    const bytes = new Uint8Array(buf.subarray(0, got));
    return wsOk({
      kind: 'file',
      path,
      resolvedPath: where.resolved,
      size: got,
      bytes,
      executable: (st.mode & 0o100) !== 0,
    });
  } finally {
    await fh.close();
  }
}
