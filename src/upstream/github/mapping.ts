// GitHub REST JSON → the model's commit shapes. Tolerant of the nullable fields the spec allows.
import type { CommitFile, CommitSummary, FileStatus, Person } from '../../core/model.js';

interface GhPerson {
  readonly name?: string | undefined;
  readonly email?: string | undefined;
  readonly date?: string | undefined;
}

/** The slice of a REST `commit` object (list commits, get commit, compare) we read. */
export interface GhCommit {
  readonly sha: string;
  readonly commit: { readonly message: string; readonly author: GhPerson | null; readonly committer: GhPerson | null };
  readonly parents: readonly { readonly sha: string }[];
}

/** The slice of a REST `diff-entry` we read. */
export interface GhFile {
  readonly filename: string;
  readonly status: string;
  readonly additions: number;
  readonly deletions: number;
  readonly patch?: string | undefined;
  readonly previous_filename?: string | undefined;
}

function person(p: GhPerson | null): Person {
  return { name: p?.name ?? '', email: p?.email ?? '', date: p?.date ?? '' };
}

/** A commit without files (`files` stays undefined: it would cost a request per commit). */
export function toSummary(c: GhCommit): CommitSummary {
  return {
    sha: c.sha,
    message: c.commit.message,
    author: person(c.commit.author),
    committer: person(c.commit.committer),
    parents: c.parents.map((p) => p.sha),
  };
}

const STATUSES: readonly FileStatus[] = ['added', 'modified', 'removed', 'renamed', 'copied', 'changed', 'unchanged'];

/** A diff entry; `previous_filename` of a rename or copy becomes `previous_path`. */
export function toFile(f: GhFile): CommitFile {
  const status = (STATUSES as readonly string[]).includes(f.status) ? (f.status as FileStatus) : 'modified';
  return {
    path: f.filename,
    status,
    ...((status === 'renamed' || status === 'copied') && f.previous_filename
      ? { previous_path: f.previous_filename }
      : {}),
    additions: f.additions,
    deletions: f.deletions,
    ...(typeof f.patch === 'string' ? { patch: f.patch } : {}),
  };
}
