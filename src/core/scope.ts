import { compileGlobs, type GlobSet } from './glob.js';
import type { Perimeter } from './perimeter.js';

/** What one surface may see and change, as predicates over normalized repository paths. */
export interface Scope {
  /** A file at `path` may be read. */
  canRead(path: string): boolean;
  /** The directory at `dir` may be listed because it could hold a readable file (the listing is filtered after). */
  canList(dir: string): boolean;
  /** A file at `path` may be created, changed or deleted. */
  canWrite(path: string): boolean;
}

/** The operator surface sees everything. */
export const UNRESTRICTED: Scope = { canRead: () => true, canList: () => true, canWrite: () => true };

/** Compiles a perimeter's independent read and write globs (compile once per perimeter version, not per call). */
export function scopeOf(perimeter: Pick<Perimeter, 'read' | 'write'>): Scope & { read: GlobSet; write: GlobSet } {
  const read = compileGlobs(perimeter.read);
  const write = compileGlobs(perimeter.write);
  return {
    read,
    write,
    canRead: (p) => p !== '' && read.matches(p),
    canList: (d) => read.couldContain(d),
    canWrite: (p) => p !== '' && write.matches(p),
  };
}
