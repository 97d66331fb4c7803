// Failures become UpstreamError values here, once. Messages are written by us: git's stderr can name paths the
// caller never sent (other repositories, the server's own directories), so it only goes to the operator log.
import type { UpResult, UpstreamError, UpstreamErrorCode } from '../types.js';
import type { GitRun } from '../../gitcli/run.js';
import type { ObjectReaderError } from '../../gitcli/object-reader.js';

/** Operator log sink (level, message, structured fields). */
export type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** A failed UpResult. */
export function fail(code: UpstreamErrorCode, message: string): { ok: false; error: UpstreamError } {
  return { ok: false, error: { code, message } };
}

/** A successful UpResult. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** Translates a git run that should have worked into `unavailable`/`too_large`, logging the raw details. */
export function gitFailure(run: GitRun, doing: string, log: Log): { ok: false; error: UpstreamError } {
  log('warn', `git failed while ${doing}`, {
    code: run.code,
    spawnError: run.spawnError,
    stderr: run.stderr.slice(0, 2000),
  });
  if (run.spawnError === 'missing') return fail('unavailable', 'git is not installed or not on PATH.');
  if (run.spawnError === 'too_large') return fail('too_large', `The answer to ${doing} is too large.`);
  return fail('unavailable', `git failed while ${doing}; try again later.`);
}

/** Translates an object reader that could not answer (git missing, died twice, ended) into `unavailable`. */
export function readerFailure(err: ObjectReaderError, doing: string, log: Log): { ok: false; error: UpstreamError } {
  log('warn', `git object reader failed while ${doing}`, { reason: err.reason, message: err.message });
  if (err.reason === 'missing') return fail('unavailable', 'git is not installed or not on PATH.');
  return fail('unavailable', `git failed while ${doing}; try again later.`);
}

/** Narrows an UpResult to its failure for early returns. */
export type Failed = Extract<UpResult<never>, { ok: false }>;
