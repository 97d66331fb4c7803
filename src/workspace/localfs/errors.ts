// Failures become WsError values here, once. Messages are ours: git's stderr can name paths the caller never sent
// (the server's directories, other worktrees), so it only goes to the operator log.
import type { GitRun } from '../../gitcli/run.js';
import type { WsError, WsErrorCode } from '../types.js';

/** Operator log sink (level, message, structured fields). */
export type WsLog = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** A failed WsResult. */
export function wsFail(code: WsErrorCode, message: string): { ok: false; error: WsError } {
  return { ok: false, error: { code, message } };
}

/** A successful WsResult. */
export function wsOk<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** A failed WsResult, for early returns. */
export type WsFailed = { readonly ok: false; readonly error: WsError };

/** Translates a git run that should have worked into a WsError, logging the raw details for the operator. */
export function runFailure(run: GitRun, doing: string, log: WsLog): WsFailed {
  log('warn', `git failed while ${doing}`, {
    code: run.code,
    spawnError: run.spawnError,
    stderr: run.stderr.slice(0, 2000),
  });
  switch (run.spawnError ?? 'exit') {
    case 'missing':
      return wsFail('unavailable', 'git is not installed or not on PATH.');
    case 'too_large':
      return wsFail('too_large', `The answer to ${doing} is too large.`);
    case 'timeout':
      return wsFail('timeout', `git took too long while ${doing}.`);
    case 'other':
    case 'exit':
      return wsFail('unavailable', `git failed while ${doing}; try again later.`);
  }
}

/** The configuration could not be read, so it could not be neutralised: the command is not run. */
export function refused(doing: string): WsFailed {
  return wsFail('refused', `The repository's configuration could not be read; not ${doing}.`);
}
