// File reads: one `ls-tree` for the entries (mode tells symlinks apart), one `cat-file --batch` for the contents.
import type { FileRead } from '../types.js';
import { gitFailure, ok, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import type { Repo } from './repo.js';
import { parseLsTree, type RawEntry } from './tree.js';
import { isTreePath } from './paths.js';

const SNIFF_BYTES = 8000;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Text as utf-8 when it has no NUL in the first 8000 bytes and decodes strictly; base64 otherwise. */
export function encodeContent(bytes: Buffer): { encoding: 'utf-8' | 'base64'; content: string } {
  if (!bytes.subarray(0, SNIFF_BYTES).includes(0)) {
    try {
      return { encoding: 'utf-8', content: utf8.decode(bytes) };
    } catch {
      // invalid UTF-8: fall through to base64
    }
  }
  return { encoding: 'base64', content: bytes.toString('base64') };
}

/** Parses `git cat-file --batch` output for the given ids, in order. */
export function parseBatch(out: Buffer, ids: readonly string[]): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  let pos = 0;
  for (const id of ids) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) throw new Error('git cat-file --batch output ended early');
    const [sha, type, size] = out.subarray(pos, nl).toString('utf8').split(' ');
    if (sha !== id) throw new Error('git cat-file --batch answered out of order');
    if (type === 'missing' || size === undefined) {
      pos = nl + 1;
      continue;
    }
    const n = Number(size);
    found.set(id, out.subarray(nl + 1, nl + 1 + n));
    pos = nl + 1 + n + 1;
  }
  return found;
}

/** Reads `paths` at `commit`, one result per path in order. */
export async function readBlobs(
  repo: Repo,
  commit: string,
  paths: readonly string[],
  maxFileBytes: number,
): Promise<{ ok: true; value: FileRead[] } | Failed> {
  // A path git would resolve outside the tree (or reject as a pathspec) simply does not exist here.
  const wanted = paths.filter((p) => p !== '' && isTreePath(p));
  const entries = new Map<string, RawEntry>();
  if (wanted.length > 0) {
    // Non-recursive ls-tree with literal pathspecs lists exactly the named entries (descending as needed).
    const run = await runGit(['ls-tree', '-l', '-z', '--full-tree', commit, '--', ...new Set(wanted)], repo.call);
    if (run.code !== 0) return gitFailure(run, 'reading files', repo.log);
    for (const e of parseLsTree(run.stdout)) entries.set(e.path, e);
  }
  const readable = (e: RawEntry | undefined): e is RawEntry => !!e && (e.type === 'file' || e.type === 'symlink');
  const ids = [
    ...new Set(
      paths
        .map((p) => entries.get(p))
        .filter(readable)
        .filter((e) => (e.size ?? 0) <= maxFileBytes)
        .map((e) => e.sha),
    ),
  ];
  let contents = new Map<string, Buffer>();
  if (ids.length > 0) {
    const run = await runGit(['cat-file', '--batch'], { ...repo.call, input: ids.map((id) => `${id}\n`).join('') });
    if (run.code !== 0) return gitFailure(run, 'reading files', repo.log);
    contents = parseBatch(run.stdout, ids);
  }
  return ok(
    paths.map((path): FileRead => {
      const e = entries.get(path);
      if (!readable(e)) return { path, ok: false, error: { code: 'not_found', message: `File not found: ${path}` } };
      if ((e.size ?? 0) > maxFileBytes) {
        return { path, ok: false, error: { code: 'too_large', message: `File is larger than ${maxFileBytes} bytes: ${path}` } };
      }
      const bytes = contents.get(e.sha);
      if (!bytes) throw new Error('a blob listed by ls-tree is missing from the object database');
      const body = encodeContent(bytes);
      return e.type === 'symlink'
        ? { path, ok: true, sha: e.sha, size: bytes.length, ...body, symlink: true }
        : { path, ok: true, sha: e.sha, size: bytes.length, ...body };
    }),
  );
}

