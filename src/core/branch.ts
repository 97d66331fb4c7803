import { fail, ok, type Result } from './result.js';

/**
 * Validates a branch name with git's check-ref-format rules (the subset that matters for a name we put in a URL
 * and in `refs/heads/`). Rejecting early keeps odd names out of URLs, logs and git argv.
 */
export function validateBranchName(name: unknown): Result<string, 'invalid_branch'> {
  if (typeof name !== 'string' || name === '')
    return fail('invalid_branch', 'A branch name must be a non-empty string.');
  const bad =
    name.length > 255 ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.') ||
    name.endsWith('.lock') ||
    name === '@' ||
    name.includes('..') ||
    name.includes('//') ||
    name.includes('@{') ||
    name.includes('/.') ||
    name.startsWith('.') ||
    name.split('/').some((s) => s.endsWith('.lock')) ||
    [...name].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f) ||
    /[~^:?*[\\]/.test(name);
  return bad ? fail('invalid_branch', `"${name}" is not a valid branch name.`) : ok(name);
}
