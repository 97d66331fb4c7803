// Which paths a git-format patch touches, read the way `git apply` reads its headers, so the policy can judge every
// one before the patch is applied. A superset on purpose: every name any header line mentions (both sides of a rename
// or copy, the `---`/`+++` names and the `diff --git` names). The adapter cross-checks the result against git's own
// count of file sections; a patch whose names this parser cannot read with certainty is refused, never guessed.
// The same walk also yields each section's lines classified by their position in the hunk (the `@@` counts, as git
// counts them), which is what the approval page shows: shown = judged = applied, one parse for all three.
import { fail, ok, type Result } from './result.js';

/** The paths a patch touches, in order of first mention, and its number of file sections. */
export interface PatchPaths {
  readonly paths: readonly string[];
  readonly sections: number;
  /** One record per `diff --git` section, in order: what the approval page draws. */
  readonly files: readonly PatchSection[];
}

/** One line of a section: a header line, a hunk header, or a hunk line placed by git's counts (never by its prefix). */
export interface PatchLine {
  readonly kind: 'meta' | 'hunk' | 'add' | 'del' | 'same' | 'note';
  /** The line without its one-character hunk prefix (header lines whole). */
  readonly text: string;
}

/** One file section of a patch, named the way git names it (`---`/`+++`, rename/copy lines). */
export interface PatchSection {
  /** The name before the change (absent for a new file). */
  readonly from?: string;
  /** The name after the change (absent for a deletion). */
  readonly to?: string;
  readonly change: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied';
  readonly added: number;
  readonly removed: number;
  /** True when the section carries a binary patch (its content is not text lines). */
  readonly binary: boolean;
  /** The mode lines (`new file mode 120000`, `old mode …`) as written. */
  readonly modes: readonly string[];
  readonly lines: readonly PatchLine[];
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
  if (
    Number.isInteger(n) &&
    n > 0 &&
    rest.startsWith('a/') &&
    rest.slice(2, 2 + n) === rest.slice(5 + n) &&
    rest.slice(2 + n, 5 + n) === ' b/'
  ) {
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

interface Open {
  gitNames: string[];
  gitRest: string;
  declared: { from?: string; to?: string; kind?: 'renamed' | 'copied' };
  sides: { old?: string; new?: string; oldNull: boolean; newNull: boolean };
  created: boolean;
  deleted: boolean;
  binary: boolean;
  modes: string[];
  lines: PatchLine[];
}

const opened = (gitNames: string[], gitRest: string): Open => ({
  gitNames,
  gitRest,
  declared: {},
  sides: { oldNull: false, newNull: false },
  created: false,
  deleted: false,
  binary: false,
  modes: [],
  lines: [],
});

/**
 * Closes a section: every name its `---`/`+++` and rename/copy lines give must be a name its `diff --git` line gives
 * (git takes the names from the former, so a header that says one file and edits another is refused, never shown).
 */
function closeSection(o: Open): PatchSection | string {
  const sideNames = [o.sides.old, o.sides.new].filter((n): n is string => n !== undefined);
  const declaredNames = [o.declared.from, o.declared.to].filter((n): n is string => n !== undefined);
  if (o.gitNames.length > 0) {
    if ([...sideNames, ...declaredNames].some((n) => !o.gitNames.includes(n)))
      return 'its ---/+++ or rename names differ from its diff --git names';
  } else {
    // Two different unquoted names: only a declared rename or copy says which; its names must spell the header exactly.
    if (o.declared.from === undefined || o.declared.to === undefined) return 'a file section names no file';
    if (o.gitRest !== `a/${o.declared.from} b/${o.declared.to}`)
      return 'its rename names differ from its diff --git names';
    if (sideNames.some((n) => !declaredNames.includes(n))) return 'its ---/+++ names differ from its rename names';
  }
  if (o.declared.kind === undefined && o.gitNames.length === 2 && o.gitNames[0] !== o.gitNames[1])
    return 'its diff --git line names two files without a rename or copy';
  if (
    o.sides.old !== undefined &&
    o.sides.new !== undefined &&
    o.sides.old !== o.sides.new &&
    o.declared.kind === undefined
  ) {
    return 'its --- and +++ names differ without a rename or copy';
  }
  const name = o.gitNames[0];
  const from = o.declared.from ?? o.sides.old ?? name;
  const to = o.declared.to ?? o.sides.new ?? o.gitNames[1] ?? name;
  const added = o.lines.filter((l) => l.kind === 'add').length;
  const removed = o.lines.filter((l) => l.kind === 'del').length;
  const base = { added, removed, binary: o.binary, modes: o.modes, lines: o.lines };
  if (o.created || o.sides.oldNull)
    return to === undefined ? 'a new file is not named' : { to, change: 'added', ...base };
  if (o.deleted || o.sides.newNull)
    return from === undefined ? 'a deleted file is not named' : { from, change: 'deleted', ...base };
  if (from === undefined || to === undefined) return 'a file section names no file';
  return { from, to, change: o.declared.kind ?? 'modified', ...base };
}

/** Every path a git-format patch touches. Refuses text outside `diff --git` sections that git could read as a patch. */
export function patchPaths(patch: string): Result<PatchPaths, 'unreadable_patch'> {
  const paths: string[] = [];
  const files: PatchSection[] = [];
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
  let cur: Open | undefined;
  const close = (): string | undefined => {
    if (cur === undefined) return undefined;
    const s = closeSection(cur);
    if (typeof s === 'string') return s;
    files.push(s);
    return undefined;
  };
  // A patch ending in a newline has no last line after it (git reads lines, not separators).
  const lines = (patch.endsWith('\n') ? patch.slice(0, -1) : patch).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (oldLeft > 0 || newLeft > 0) {
      const c = line[0];
      if (c === ' ' || line === '') {
        oldLeft--;
        newLeft--;
        cur?.lines.push({ kind: 'same', text: line.slice(1) });
      } else if (c === '-') {
        oldLeft--;
        cur?.lines.push({ kind: 'del', text: line.slice(1) });
      } else if (c === '+') {
        newLeft--;
        cur?.lines.push({ kind: 'add', text: line.slice(1) });
      } else if (c === '\\') cur?.lines.push({ kind: 'note', text: line });
      else return bad('a hunk is shorter than its header says');
      if (oldLeft < 0 || newLeft < 0) return bad('a hunk is longer than its header says');
      continue;
    }
    if (line.startsWith('\\')) {
      cur?.lines.push({ kind: 'note', text: line });
      continue;
    }
    if (line.startsWith('diff --git ')) {
      const why = close();
      if (why !== undefined) return bad(why);
      sections++;
      const rest = line.slice('diff --git '.length);
      const names = headerNames(rest);
      if (names === undefined) return bad('a diff header names its files ambiguously');
      for (const n of names) add(n);
      cur = opened(names, rest);
      continue;
    }
    if (cur === undefined) {
      // Before the first section git skips text, but would still apply a traditional diff found there.
      if (line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('@@ ') || line.startsWith('Index: '))
        return bad('only git-format patches are accepted');
      continue;
    }
    if (line.startsWith('@@ ')) {
      const h = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (!h) return bad('a hunk header is malformed');
      oldLeft = h[1] === undefined ? 1 : Number(h[1]);
      newLeft = h[2] === undefined ? 1 : Number(h[2]);
      cur.lines.push({ kind: 'hunk', text: line });
      continue;
    }
    cur.lines.push({ kind: 'meta', text: line });
    const header = /^(rename from|rename to|copy from|copy to|rename old|rename new) (.*)$/.exec(line);
    if (header) {
      const name = lineName(header[2]!);
      if (name === undefined || !add(name)) return bad('a rename or copy names no file');
      const verb = header[1]!;
      cur.declared.kind = verb.startsWith('copy') ? 'copied' : 'renamed';
      if (verb.endsWith('from') || verb.endsWith('old')) cur.declared.from = name;
      else cur.declared.to = name;
      continue;
    }
    if (/^new file mode /.test(line)) cur.created = true;
    if (/^deleted file mode /.test(line)) cur.deleted = true;
    if (/^(new file|deleted file|old|new) mode /.test(line)) cur.modes.push(line);
    if (line === 'GIT binary patch' || /^Binary files .* differ$/.test(line)) cur.binary = true;
    const side = /^(---|\+\+\+) (.*)$/.exec(line);
    if (side) {
      const name = lineName(side[2]!);
      const old = side[1] === '---';
      if (name === '/dev/null') {
        if (old) cur.sides.oldNull = true;
        else cur.sides.newNull = true;
        continue;
      }
      const stripped = name === undefined ? undefined : stripPrefix(name, old ? 'a/' : 'b/');
      if (stripped === undefined || !add(stripped)) return bad('a file name is not in a/ b/ form');
      if (old) cur.sides.old = stripped;
      else cur.sides.new = stripped;
    }
  }
  if (oldLeft > 0 || newLeft > 0) return bad('a hunk is shorter than its header says');
  if (sections === 0) return bad('it has no diff --git section');
  const why = close();
  if (why !== undefined) return bad(why);
  return ok({ paths, sections, files });
}
