import { posix } from 'node:path';
import type { UpstreamFor } from '../upstream/types.js';

/** One spelling per repository: a normalised absolute path, or `owner/name` in lower case (GitHub names ignore case). */
function canonical(repo: string): string {
  return repo.startsWith('/') ? posix.normalize(repo).replace(/(.)\/+$/, '$1') : repo.toLowerCase();
}

/**
 * The operator surface's upstream lookup: a repository opens only when the server was configured with it or the
 * operator registered a perimeter on it, so the ops token cannot be used to read any git directory on the disk.
 * A repository reached through another spelling (a symlink, a relative path) is refused rather than resolved.
 */
export function registeredOnly(upstreamFor: UpstreamFor, known: () => Iterable<string>): UpstreamFor {
  return (repo) => {
    const want = canonical(repo);
    for (const r of known()) if (canonical(r) === want) return upstreamFor(repo);
    return undefined;
  };
}
