/**
 * The data shapes every upstream produces and every filter consumes. Paths are full repository-relative paths.
 * They live in core so that filters stay pure and both upstreams speak the same language.
 */

/** git object kinds as an agent sees them: a submodule is a `commit` entry, a symlink is a `symlink` blob. */
export type EntryType = 'file' | 'dir' | 'symlink' | 'submodule';

export interface TreeEntry {
  readonly path: string;
  readonly type: EntryType;
  /** git object id (blob, tree or submodule commit). */
  readonly sha: string;
  /** Blob size in bytes; absent for directories and submodules. */
  readonly size?: number;
}

export interface Person {
  readonly name: string;
  readonly email: string;
  /** ISO 8601. */
  readonly date: string;
}

/** The part of a commit that needs no diff. */
export interface CommitHeader {
  readonly sha: string;
  readonly message: string;
  readonly author: Person;
  readonly committer: Person;
  readonly parents: readonly string[];
}

export interface CommitSummary extends CommitHeader {
  /**
   * Every path the commit touches against its first parent, without rename pairing, when the upstream gets them for
   * free (local git). Absent when they would cost a request per commit (GitHub).
   */
  readonly files?: readonly string[];
}

export type FileStatus = 'added' | 'modified' | 'removed' | 'renamed' | 'copied' | 'changed' | 'unchanged';

export interface CommitFile {
  readonly path: string;
  readonly status: FileStatus;
  /** Source path of a rename or copy. */
  readonly previous_path?: string;
  readonly additions: number;
  readonly deletions: number;
  /** Unified diff of this file; absent for binary files or when too large. */
  readonly patch?: string;
}

export interface CommitDetail extends CommitHeader {
  readonly files: readonly CommitFile[];
}

export interface CommitStats {
  readonly additions: number;
  readonly deletions: number;
  readonly total: number;
}
