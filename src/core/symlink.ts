/**
 * When a committed symlink may be served. Its target text is content, and it names a path: served only when that
 * path, resolved inside the repository, is one the perimeter may read. Otherwise the link reads as missing, so its
 * text can never name a hidden file, a privacy zone or a place outside the repository.
 */
import { normalizePath, parentOf } from './path.js';
import type { Scope } from './scope.js';

/**
 * Resolves a link's target text against the link's directory, as the filesystem would inside a checkout:
 * `.` and empty segments dropped, `..` climbs. Undefined when the target is absolute, climbs above the repository
 * root, names the root itself, or resolves to something the path rules reject (control characters, backslashes).
 */
export function resolveLinkTarget(linkPath: string, target: string): string | undefined {
  if (target === '' || target.startsWith('/')) return undefined;
  const parts = parentOf(linkPath) === '' ? [] : parentOf(linkPath).split('/');
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
      continue;
    }
    parts.push(seg);
  }
  if (parts.length === 0) return undefined;
  const checked = normalizePath(parts.join('/'));
  return checked.ok ? checked.value : undefined;
}

/** True when the link at `linkPath` with this target text may be shown: both the link and its target are readable. */
export function linkServable(linkPath: string, target: string, scope: Scope): boolean {
  if (!scope.canRead(linkPath)) return false;
  const resolved = resolveLinkTarget(linkPath, target);
  return resolved !== undefined && scope.canRead(resolved);
}
