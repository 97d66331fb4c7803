// Reading files through the tree and blob APIs rather than contents: blobs are content-addressed (cached once for
// every ref that shares them), serve files up to 100 MB without the contents API's 1 MB cut-off, and return a
// symlink's own target text where the contents API would dereference it.
import type { FileRead, ReadOptions } from '../types.js';
import { charged, cleanPath, immutable, mapLimit, type Ctx, type RepoRef } from './context.js';
import { translate, UpstreamFailure } from './errors.js';
import { resolveCommit } from './refs.js';
import { lookupPath, treeOfCommit } from './tree.js';

const READ_CONCURRENCY = 6;
const SNIFF_BYTES = 8000;

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

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text unless a NUL shows up in the first 8000 bytes or the bytes are not valid UTF-8 (git's heuristic, stricter). */
export function decodeContent(bytes: Buffer): { encoding: 'utf-8' | 'base64'; content: string } {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return { encoding: 'base64', content: bytes.toString('base64') };
  try {
    return { encoding: 'utf-8', content: utf8.decode(bytes) };
  } catch {
    return { encoding: 'base64', content: bytes.toString('base64') };
  }
}

/**
 * Reads `paths` at `ref`: one result per path, in order. Directories, submodules and missing paths read alike.
 * A blob over `maxBytes` is refused from the size the tree lists, before a byte of it is downloaded.
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
  return mapLimit(paths, READ_CONCURRENCY, async (path): Promise<FileRead> => {
    const missing: FileRead = { path, ok: false, error: { code: 'not_found', message: `No such file: ${path}` } };
    const p = cleanPath(path);
    if (!p) return missing;
    const entry = await lookupPath(ctx, r, commit.tree, p);
    if (!entry || entry.type !== 'blob') return missing;
    if (options.maxBytes !== undefined && typeof entry.size === 'number' && entry.size > options.maxBytes) {
      return { path, ok: false, size: entry.size, error: { code: 'too_large', message: `${path} is ${entry.size} bytes, over the ${options.maxBytes}-byte read cap` } };
    }
    let bytes: Buffer;
    try {
      bytes = await fetchBlob(ctx, r, entry.sha);
    } catch (err) {
      const error = translate(err, redact);
      // Per-path answers only for what is about this path; anything else (rate limit, outage) fails the call.
      if (error.code === 'too_large') return { path, ok: false, error: { ...error, message: `${path} is too large to read through the GitHub API` } };
      if (error.code === 'not_found') return missing;
      throw err instanceof UpstreamFailure ? err : new UpstreamFailure(error);
    }
    if (entry.mode === '120000') {
      return { path, ok: true, sha: entry.sha, size: bytes.length, encoding: 'utf-8', content: bytes.toString('utf8'), symlink: true };
    }
    return { path, ok: true, sha: entry.sha, size: bytes.length, ...decodeContent(bytes) };
  });
}
