// Reading files through the tree and blob APIs rather than contents: blobs are content-addressed (cached once for
// every ref that shares them), serve files up to 100 MB without the contents API's 1 MB cut-off, and return a
// symlink's own target text where the contents API would dereference it.
import type { FileRead, ReadOptions } from '../types.js';
import { charged, cleanPath, immutable, mapLimit, type Ctx, type RepoRef } from './context.js';
import { translate, UpstreamFailure } from './errors.js';
import { resolveCommit } from './refs.js';
import { lookupPath, treeOfCommit } from './tree.js';

const READ_CONCURRENCY = 6;

/** `GET git/blobs/{sha}` decoded to bytes, cached by SHA. */
export function fetchBlob(ctx: Ctx, r: RepoRef, sha: string): Promise<Buffer> {
  return immutable(
    ctx,
    `blob:${r.key}:${sha}`,
    async () => {
      const res = await ctx.octokit.rest.git.getBlob({ ...charged(ctx), owner: r.owner, repo: r.repo, file_sha: sha });
      const { content, encoding } = res.data;
      return encoding === 'base64' ? Buffer.from(content.replace(/\s+/g, ''), 'base64') : Buffer.from(content, 'utf8');
    },
    (b) => b.length + 64,
  );
}

/**
 * Reads `paths` at `ref`: one result per path, in order. Directories, submodules and missing paths read alike.
 * With `maxBytes`, sizes come from the trees first and nothing over the cap is downloaded: a blob bigger than the cap
 * is refused, and once the blobs taken (in request order) fill it, a later blob that no longer fits is refused too
 * (`too_large` with its `size`, which is at most the cap: the caller tells the two apart by that).
 */
export async function readFiles(
  ctx: Ctx,
  r: RepoRef,
  ref: string,
  paths: readonly string[],
  redact: (s: string) => string,
  options: ReadOptions = {},
): Promise<FileRead[]> {
  const commit = { tree: await treeOfCommit(ctx, r, await resolveCommit(ctx, r, ref)) };
  const entries = await mapLimit(paths, READ_CONCURRENCY, async (path) => {
    const p = cleanPath(path);
    const entry = p ? await lookupPath(ctx, r, commit.tree, p) : undefined;
    return entry && entry.type === 'blob' ? entry : undefined;
  });
  const max = options.maxBytes;
  let taken = 0;
  const refused = entries.map((entry, i): FileRead | undefined => {
    if (max === undefined || !entry || typeof entry.size !== 'number') return undefined;
    const path = paths[i] ?? '';
    if (entry.size > max)
      return {
        path,
        ok: false,
        size: entry.size,
        error: { code: 'too_large', message: `${path} is ${entry.size} bytes, over the ${max}-byte read cap` },
      };
    if (taken + entry.size > max)
      return {
        path,
        ok: false,
        size: entry.size,
        error: { code: 'too_large', message: `${path} does not fit in what is left of the ${max}-byte read cap` },
      };
    taken += entry.size;
    return undefined;
  });
  return mapLimit(paths, READ_CONCURRENCY, async (path, i): Promise<FileRead> => {
    const missing: FileRead = { path, ok: false, error: { code: 'not_found', message: `No such file: ${path}` } };
    const entry = entries[i];
    if (!entry) return missing;
    const refusal = refused[i];
    if (refusal) return refusal;
    let bytes: Buffer;
    try {
      bytes = await fetchBlob(ctx, r, entry.sha);
    } catch (err) {
      const error = translate(err, redact);
      // Per-path answers only for what is about this path; anything else (rate limit, outage) fails the call.
      if (error.code === 'too_large')
        return { path, ok: false, error: { ...error, message: `${path} is too large to read through the GitHub API` } };
      if (error.code === 'not_found') return missing;
      throw err instanceof UpstreamFailure ? err : new UpstreamFailure(error);
    }
    // Bytes as stored: decoding is the core's (serveRead), the same for every upstream.
    if (entry.mode === '120000') return { path, ok: true, sha: entry.sha, size: bytes.length, bytes, symlink: true };
    return { path, ok: true, sha: entry.sha, size: bytes.length, bytes };
  });
}
