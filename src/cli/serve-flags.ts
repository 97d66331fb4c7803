import { InvalidArgumentError } from 'commander';
import { isLevel, type Level } from './log.js';

// Parsers for `serve` flags and their environment variables. Commander runs them on argv and on env values alike,
// before the action, so a bad value is reported (naming the flag, and the variable when it came from one) and the
// process exits 2 before anything is written. The message is what follows commander's "option '--x' … is invalid."

/** A whole number in [min, max]; `what` says what the range means. */
export const intIn = (name: string, min: number, max: number, what = `a whole number from ${min} to ${max}`) => (v: string) => {
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
  if (/[\s\x00-\x1f\x7f]/.test(v)) throw new InvalidArgumentError(`${name} contains whitespace or control characters (a pasted newline?).`);
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
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError(`${name} must be an http or https URL.`);
  return v;
};

/** A non-empty value (paths, host names, globs). */
export const nonEmpty = (name: string) => (v: string) => {
  if (v.trim() === '') throw new InvalidArgumentError(`${name} is empty.`);
  return v;
};

/** A repeatable non-empty value. */
export const collectNonEmpty = (name: string) => (v: string, prev: string[] = []) => [...prev, nonEmpty(name)(v)];

/** The shared store: a postgres:// URL. Its value is never echoed (it may carry a password). */
export const storeUrl = (v: string): string => {
  let u: URL | undefined;
  try {
    u = new URL(v);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') || u.hostname === '') {
    throw new InvalidArgumentError('--store (GIT_BLINDER_STORE) must be a postgres://user:password@host:port/database URL.');
  }
  return v;
};
