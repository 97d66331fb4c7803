import { compileGlobs, type GlobSet, type PathTest } from './glob.js';
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

/**
 * A read predicate with faster forms of itself, each answering exactly what the predicate answers: `inDir(dir)` for
 * every path whose parent is `dir`, `normalized(path)` for a path `normalizePath` accepted. They ride on the predicate
 * function itself, not on the scope: a scope built by spreading another and replacing `canRead` (history's narrowed
 * scope does) has a new function without them, so a stale form can never judge for a predicate it was not made for.
 */
interface ReadForms {
  readonly inDir: (dir: string) => PathTest;
  readonly normalized: PathTest;
}
type ReadPredicate = PathTest & Partial<ReadForms>;

/** Attaches the faster forms to a read predicate (they must answer exactly what `canRead` answers). */
export function withReadForms(canRead: PathTest, forms: ReadForms): ReadPredicate {
  return Object.assign(canRead, forms);
}

/**
 * `scope.canRead` for the files directly inside `dir` (`parentOf(path) === dir`), settled once for the directory
 * when the predicate knows how (see `withReadForms`), else the predicate itself. Meant for listings, which judge many
 * files per directory.
 */
export function readerIn(scope: Pick<Scope, 'canRead'>, dir: string): PathTest {
  const canRead = scope.canRead as ReadPredicate;
  if (canRead.inDir !== undefined) return canRead.inDir(dir);
  return (path) => scope.canRead(path);
}

/** `scope.canRead(path)` for a path `normalizePath` accepted, without checking its shape again where it can. */
export function canReadNormalized(scope: Pick<Scope, 'canRead'>, path: string): boolean {
  const canRead = scope.canRead as ReadPredicate;
  return canRead.normalized !== undefined ? canRead.normalized(path) : scope.canRead(path);
}

/** The operator surface sees everything. */
export const UNRESTRICTED: Scope = { canRead: () => true, canList: () => true, canWrite: () => true };

/** Compiles a perimeter's independent read and write globs (compile once per perimeter version, not per call). */
export function scopeOf(perimeter: Pick<Perimeter, 'read' | 'write'>): Scope & { read: GlobSet; write: GlobSet } {
  const read = compileGlobs(perimeter.read);
  const write = compileGlobs(perimeter.write);
  const canRead = (p: string): boolean => p !== '' && read.matches(p);
  return {
    read,
    write,
    canRead: withReadForms(canRead, {
      // Below the root a path is never '', so the glob set's own per-directory test is the whole answer.
      inDir: (dir) => (dir === '' ? canRead : read.inDir(dir)),
      normalized: (p) => p !== '' && read.matchesNormalized(p),
    }),
    canList: (d) => read.couldContain(d),
    canWrite: (p) => p !== '' && write.matches(p),
  };
}
