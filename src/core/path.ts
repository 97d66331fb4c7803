import { fail, ok, type Result } from './result.js';

/** Longest repository-relative path we accept, in UTF-16 units (git's own PATH_MAX-ish bound). */
export const MAX_PATH_LENGTH = 4096;
/** Longest single segment, as on common filesystems. */
export const MAX_SEGMENT_LENGTH = 255;

// C0/C1 controls and Unicode "format" characters (zero-width, bidi overrides): invisible in a UI, so spoofable.
// Lone surrogates (Cs) too: UTF-8 encoding turns them into U+FFFD, so git would get a path the policy never judged.
// U+2028/U+2029 (Zl, Zp) are line breaks like "\n": they would split a log line.
const FORBIDDEN_CHARS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
// A percent-escape that would decode to a separator, a dot or NUL: a second decoding must never change meaning.
const ENCODED_SEPARATOR = /%(2f|5c|2e|00)/i;

/**
 * Validates a repository-relative path. Rejects instead of repairing, so the path that passes is byte-for-byte
 * the path the agent sent: nothing downstream can disagree with the policy about what was asked.
 * The repository root is the empty string.
 */
export function normalizePath(input: unknown): Result<string, 'invalid_path'> {
  const problem = pathProblem(input);
  return problem === undefined ? ok(input as string) : fail('invalid_path', problem);
}

/**
 * What `normalizePath` refuses `input` for, or undefined when it accepts it (then the path is `input` itself, a
 * string). For hot callers that only need the verdict: nothing is allocated for an accepted path.
 */
export function pathProblem(input: unknown): string | undefined {
  if (typeof input !== 'string') return 'A path must be a string.';
  if (input === '') return undefined;
  // Every policy decision starts here: the common plain-ASCII path is accepted in one scan; anything else (and every
  // refusal, so its message stays the one below) takes the full checks.
  if (isPlainAcceptedPath(input)) return undefined;
  if (input.length > MAX_PATH_LENGTH) return `Path is longer than ${MAX_PATH_LENGTH} characters.`;
  if (FORBIDDEN_CHARS.test(input)) return 'Path contains control or invisible characters.';
  if (input.includes('\\')) return 'Use "/" as the path separator, not "\\".';
  if (input.startsWith('/')) return 'Paths are relative to the repository root: remove the leading "/".';
  if (/^[A-Za-z]:/.test(input)) return 'Paths are relative to the repository root: remove the drive letter.';
  if (ENCODED_SEPARATOR.test(input)) return 'Path contains a percent-encoded separator or dot; send it decoded.';
  if (input.endsWith('/')) return 'Remove the trailing "/" from the path.';
  for (const segment of input.split('/')) {
    if (segment === '') return 'Path contains an empty segment ("//").';
    if (segment === '.' || segment === '..') return 'Path segments "." and ".." are not allowed.';
    if (segment.length > MAX_SEGMENT_LENGTH) return `A path segment is longer than ${MAX_SEGMENT_LENGTH} characters.`;
  }
  return undefined;
}

/**
 * A sufficient condition for `normalizePath` to accept: printable ASCII without `\\` or `%` (so no control, format,
 * separator-like or percent-encoded character), no leading or trailing `/`, no drive letter, and every segment
 * non-empty, not `.` or `..`, and within the length limits.
 */
function isPlainAcceptedPath(input: string): boolean {
  const n = input.length;
  if (n > MAX_PATH_LENGTH) return false;
  if (n >= 2 && input.charCodeAt(1) === 0x3a) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? input.charCodeAt(i) : 0x2f;
    if (c !== 0x2f) {
      if (c < 0x20 || c > 0x7e || c === 0x5c || c === 0x25) return false;
      continue;
    }
    const len = i - start;
    if (len === 0 || len > MAX_SEGMENT_LENGTH) return false;
    if (len <= 2 && input.charCodeAt(start) === 0x2e && (len === 1 || input.charCodeAt(start + 1) === 0x2e))
      return false;
    start = i + 1;
  }
  return true;
}

/** True when `path` is `dir` itself or lies below it (segment-wise: `infra2` is not below `infra`). */
export function isWithin(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** The parent directory of a repository path ('' for a top-level entry). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}
