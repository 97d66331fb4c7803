// Which paths a git-format patch touches, read the way `git apply` reads its headers, so the policy can judge every
// one before the patch is applied. A superset on purpose: every name any header line mentions (both sides of a rename
// or copy, the `---`/`+++` names and the `diff --git` names). The adapter cross-checks the result against git's own
// count of file sections; a patch whose names this parser cannot read with certainty is refused, never guessed.
import { fail, ok, type Result } from './result.js';

/** The paths a patch touches, in order of first mention, and its number of file sections. */
export interface PatchPaths {
  readonly paths: readonly string[];
  readonly sections: number;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

const ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34 };

/** git's C-style unquoting of a `"..."` name (apply.c unquote_c_style); returns the name and the rest of the line. */
function unquote(s: string): { name: string; rest: string } | undefined {
  if (!s.startsWith('"')) return undefined;
  const bytes: number[] = [];
  for (let i = 1; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '"') return { name: fromUtf8.decode(new Uint8Array(bytes)), rest: s.slice(i + 1) };
    if (ch !== '\\') {
      bytes.push(...utf8.encode(ch));
      continue;
    }
    const next = s[++i];
    if (next === undefined) return undefined;
    if (next in ESCAPES) bytes.push(ESCAPES[next]!);
    else if (/[0-3]/.test(next) && /^[0-7]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i, i + 3), 8));
      i += 2;
    } else return undefined;
  }
  return undefined;
}

/** A whole-line name (`rename from x`, `--- a/x`): quoted or the rest of the line, git's way. */
function lineName(rest: string): string | undefined {
  if (rest.startsWith('"')) {
    const q = unquote(rest);
    return q && q.rest.trim() === '' ? q.name : undefined;
  }
  // git ends an unquoted `---`/`+++` name at a tab (a timestamp may follow); rename/copy names never contain one.
  const tab = rest.indexOf('\t');
  return tab >= 0 ? rest.slice(0, tab) : rest;
}

/** Strips the `a/` or `b/` prefix git writes (apply's default -p1); anything else is not a name git would use. */
function stripPrefix(name: string, prefix: 'a/' | 'b/'): string | undefined {
  return name.startsWith(prefix) && name.length > 2 ? name.slice(2) : undefined;
}

/** The names of a `diff --git` line when they can be read for certain: quoted, or the same unquoted name twice. */
function headerNames(rest: string): string[] | undefined {
  if (rest.startsWith('"')) {
    const first = unquote(rest);
    if (!first || !first.rest.startsWith(' ')) return undefined;
    const second = first.rest.slice(1);
    const b = second.startsWith('"') ? unquote(second) : { name: second, rest: '' };
    if (!b || b.rest !== '') return undefined;
    const x = stripPrefix(first.name, 'a/');
    const y = stripPrefix(b.name, 'b/');
    return x !== undefined && y !== undefined ? [x, y] : undefined;
  }
  const n = (rest.length - 5) / 2;
  if (Number.isInteger(n) && n > 0 && rest.startsWith('a/') && rest.slice(2, 2 + n) === rest.slice(5 + n) && rest.slice(2 + n, 5 + n) === ' b/') {
    return [rest.slice(2, 2 + n)];
  }
  if (rest.endsWith('"')) {
    const at = rest.lastIndexOf(' "');
    const b = at >= 0 ? unquote(rest.slice(at + 1)) : undefined;
    const x = stripPrefix(rest.slice(0, at), 'a/');
    const y = b ? stripPrefix(b.name, 'b/') : undefined;
    return x !== undefined && y !== undefined ? [x, y] : undefined;
  }
  // Two different unquoted names (a rename): git, too, takes the names from the rename lines that must follow.
  return [];
}

/** Every path a git-format patch touches. Refuses text outside `diff --git` sections that git could read as a patch. */
export function patchPaths(patch: string): Result<PatchPaths, 'unreadable_patch'> {
  const paths: string[] = [];
  const add = (p: string | undefined): boolean => {
    if (p === undefined || p === '') return false;
    if (!paths.includes(p)) paths.push(p);
    return true;
  };
  const bad = (why: string) => fail('unreadable_patch' as const, `The patch cannot be read safely: ${why}.`);
  let sections = 0;
  // Lines left in the current hunk on each side, from its `@@ -a,b +c,d @@` header, as git counts them.
  let oldLeft = 0;
  let newLeft = 0;
  let named = false;
  const lines = patch.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (oldLeft > 0 || newLeft > 0) {
      const c = line[0];
      if (c === ' ' || line === '') {
        oldLeft--;
        newLeft--;
      } else if (c === '-') oldLeft--;
      else if (c === '+') newLeft--;
      else if (c !== '\\') return bad('a hunk is shorter than its header says');
      if (oldLeft < 0 || newLeft < 0) return bad('a hunk is longer than its header says');
      continue;
    }
    if (line.startsWith('\\')) continue;
    if (line.startsWith('diff --git ')) {
      if (sections > 0 && !named) return bad('a file section names no file');
      sections++;
      const names = headerNames(line.slice('diff --git '.length));
      if (names === undefined) return bad('a diff header names its files ambiguously');
      named = names.length > 0;
      for (const n of names) add(n);
      continue;
    }
    if (sections === 0) {
      // Before the first section git skips text, but would still apply a traditional diff found there.
      if (line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('@@ ') || line.startsWith('Index: ')) return bad('only git-format patches are accepted');
      continue;
    }
    if (line.startsWith('@@ ')) {
      const h = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (!h) return bad('a hunk header is malformed');
      oldLeft = h[1] === undefined ? 1 : Number(h[1]);
      newLeft = h[2] === undefined ? 1 : Number(h[2]);
      continue;
    }
    const header = /^(rename from|rename to|copy from|copy to|rename old|rename new) (.*)$/.exec(line);
    if (header) {
      if (!add(lineName(header[2]!))) return bad('a rename or copy names no file');
      named = true;
      continue;
    }
    const side = /^(---|\+\+\+) (.*)$/.exec(line);
    if (side) {
      const name = lineName(side[2]!);
      if (name === '/dev/null') continue;
      const stripped = name === undefined ? undefined : stripPrefix(name, side[1] === '---' ? 'a/' : 'b/');
      if (!add(stripped)) return bad('a file name is not in a/ b/ form');
      named = true;
    }
  }
  if (sections === 0) return bad('it has no diff --git section');
  if (!named) return bad('a file section names no file');
  return ok({ paths, sections });
}
