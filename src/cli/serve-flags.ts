import { InvalidArgumentError } from 'commander';
import { isLevel, type Level } from './log.js';

// Parsers for `serve` flags and their environment variables. Commander runs them on argv and on env values alike,
// before the action, so a bad value is reported (naming the flag, and the variable when it came from one) and the
// process exits 2 before anything is written. The message is what follows commander's "option '--x' … is invalid."

/** A whole number in [min, max]; `what` says what the range means. */
export const intIn =
  (name: string, min: number, max: number, what = `a whole number from ${min} to ${max}`) =>
  (v: string) => {
    const n = /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be ${what}.`);
    return n;
  };

/** TCP port; 0 asks the system for a free one. */
export const port = intIn('--port', 0, 65535, 'a whole number from 0 to 65535 (0: any free port)');

/** One of the log levels. */
export const logLevel = (v: string): Level => {
  if (!isLevel(v)) throw new InvalidArgumentError('--log-level must be debug, info, warn or error.');
  return v;
};

/** A secret sent in a header: non-empty, no whitespace or control characters (they would break or split the header). */
export const secret = (name: string) => (v: string) => {
  if (v === '') throw new InvalidArgumentError(`${name} is empty; unset it or give a value.`);
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(v))
    throw new InvalidArgumentError(`${name} contains whitespace or control characters (a pasted newline?).`);
  return v;
};

/** An absolute http(s) URL. */
export const httpUrl = (name: string) => (v: string) => {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new InvalidArgumentError(`${name} must be an absolute URL such as https://github.example.com/api/v3.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new InvalidArgumentError(`${name} must be an http or https URL.`);
  // Credentials in a URL would sit in the process list (and fetch refuses them anyway): the token has its own channels.
  if (u.username !== '' || u.password !== '')
    throw new InvalidArgumentError(
      `${name} must not carry a user name or password; the token goes in GITHUB_TOKEN or --token-file.`,
    );
  return v;
};

/** A non-empty value (paths, host names, globs). */
export const nonEmpty = (name: string) => (v: string) => {
  if (v.trim() === '') throw new InvalidArgumentError(`${name} is empty.`);
  return v;
};

/** A repeatable non-empty value. */
export const collectNonEmpty =
  (name: string) =>
  (v: string, prev: string[] = []) => [...prev, nonEmpty(name)(v)];

/** The shared store: a postgres:// URL (from the environment or a file, where it may carry a password). Its value is never echoed. */
export const storeUrl =
  (name: string) =>
  (v: string): string => {
    const u = parseUrl(v);
    if (!u || (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') || u.hostname === '') {
      throw new InvalidArgumentError(`${name} must be a postgres://user:password@host:port/database URL.`);
    }
    return v;
  };

/** `--store` on the command line: the same URL, refused when it carries a password (argv is world-readable). */
export const storeFlag = (v: string): string => {
  storeUrl('--store')(v);
  const u = parseUrl(v);
  if (u && (u.password !== '' || u.searchParams.has('password'))) {
    throw new InvalidArgumentError(
      '--store carries a password, which would sit in the process list (ps, /proc/<pid>/cmdline), readable by every local user. ' +
        'Set GIT_BLINDER_STORE instead, or put the URL in a file only you can read and pass --store-file <file> (chmod 600 <file>); ' +
        'a --store URL without a password (with PGPASSWORD or ~/.pgpass) stays allowed.',
    );
  }
  return v;
};

/** A flag whose value would be a secret: always refused, with the message saying where the secret goes instead. */
export const refusedOnCommandLine = (message: string) => (): never => {
  throw new InvalidArgumentError(message);
};

function parseUrl(v: string): URL | undefined {
  try {
    return new URL(v);
  } catch {
    return undefined;
  }
}
