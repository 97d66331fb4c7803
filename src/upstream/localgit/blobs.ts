// File reads through the repository's object reader: entries found by walking tree objects (mode tells symlinks
// apart), sizes from `info`, contents only for blobs under the cap. No process per call.
import type { FileRead } from '../types.js';
import { ok, type Failed } from './errors.js';
import type { Repo } from './repo.js';
import { entryType, rootTree, type RawEntry } from './tree.js';
import { isTreePath } from './paths.js';

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
  // A reader that cannot answer throws ObjectReaderError; the adapter boundary (index.ts) translates it.
  return ok(await readThroughReader(repo, commit, paths, maxFileBytes));
}

async function readThroughReader(
  repo: Repo,
  commit: string,
  paths: readonly string[],
  maxFileBytes: number,
): Promise<FileRead[]> {
  const root = await rootTree(repo, commit);
  if (!root) throw new Error('a resolved commit has no tree');
  // A path git would resolve outside the tree simply does not exist here; entries are found by exact bytes.
  const wanted = [...new Set(paths.filter((p) => p !== '' && isTreePath(p)))];
  const entries = new Map<string, RawEntry>();
  await Promise.all(
    wanted.map(async (p) => {
      const e = await repo.trees.lookup(root, p.split('/'));
      if (e) entries.set(p, { mode: e.mode, path: p, type: entryType(e.mode), sha: e.sha });
    }),
  );
  const readable = (e: RawEntry | undefined): e is RawEntry => !!e && (e.type === 'file' || e.type === 'symlink');
  const ids = [
    ...new Set(
      wanted
        .map((p) => entries.get(p))
        .filter(readable)
        .map((e) => e.sha),
    ),
  ];
  // Sizes come from `info` first: a blob above the cap is refused without its bytes ever being read.
  const read = await repo.reader.contents(ids, maxFileBytes);
  const contents = new Map<string, Buffer>();
  const sizes = new Map<string, number>();
  ids.forEach((id, k) => {
    const r = read[k]!;
    if (r.kind === 'object') contents.set(id, r.bytes);
    else if (r.kind === 'too_large') sizes.set(id, r.size);
  });
  return paths.map((path): FileRead => {
    const e = entries.get(path);
    if (!readable(e)) return { path, ok: false, error: { code: 'not_found', message: `File not found: ${path}` } };
    if (sizes.has(e.sha)) {
      return {
        path,
        ok: false,
        error: { code: 'too_large', message: `File is larger than ${maxFileBytes} bytes: ${path}` },
      };
    }
    const bytes = contents.get(e.sha);
    if (!bytes) throw new Error('a blob listed in its tree is missing from the object database');
    // Bytes as stored: decoding is the core's (serveRead), the same for every upstream.
    return e.type === 'symlink'
      ? { path, ok: true, sha: e.sha, size: bytes.length, bytes, symlink: true }
      : { path, ok: true, sha: e.sha, size: bytes.length, bytes };
  });
}
