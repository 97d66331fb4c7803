// Which path strings may reach git as a path inside a tree. The core validates paths far more strictly before
// they get here; this guard only keeps git from resolving one against the working directory or outside the tree.

/** True when `path` is '' or a relative path with no empty, '.' or '..' segment (newlines and unicode allowed). */
export function isTreePath(path: string): boolean {
  if (path === '') return true;
  if (path.includes('\0')) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}
