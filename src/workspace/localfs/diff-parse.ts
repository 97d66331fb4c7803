// Parsing `git diff-files`/`diff-index` with `-z --raw --numstat -p` (pure): raw records give modes, ids and status,
// numstat records the line counts, then the patches in numstat order. A path whose raw record has no patch is only
// stat-dirty (the index's stat data is stale, the content is unchanged) and is dropped, so a touched file never shows
// as modified. Text files that are only stat-dirty get no numstat record either, but binary ones do (`-\t-`: git does
// not compare their content for numstat), so each numstat record is paired with the next patch only when that patch's
// header names its path. Unmerged paths print a combined raw record (`::`) and no patch.
import type { DiffFile, DiffFileStatus, DiffListing } from '../types.js';

interface Raw {
  readonly status: DiffFileStatus;
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldOid: string;
  readonly newOid: string;
  readonly origPath: string | null;
  readonly path: string;
}

interface Numstat {
  readonly path: string;
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
}

function statusOf(letter: string): DiffFileStatus {
  switch (letter) {
    case 'A':
      return 'added';
    case 'M':
      return 'modified';
    case 'D':
      return 'deleted';
    case 'R':
      return 'renamed';
    case 'C':
      return 'copied';
    case 'T':
      return 'type_changed';
    case 'U':
      return 'unmerged';
    default:
      throw new Error(`unexpected diff status ${JSON.stringify(letter)}`);
  }
}

/** Reads NUL-terminated tokens from `buf` starting at `at`; undefined when the output ends before the NUL. */
function token(buf: Buffer, at: number): { text: string; next: number } | undefined {
  const nul = buf.indexOf(0, at);
  if (nul < 0) return undefined;
  return { text: buf.toString('utf8', at, nul), next: nul + 1 };
}

const PATCH_STARTS = [Buffer.from('diff --git '), Buffer.from('* Unmerged path ')];

function startsFile(buf: Buffer, at: number): boolean {
  return PATCH_STARTS.some((p) => buf.subarray(at, at + p.length).equals(p));
}

/**
 * Cuts the patch section into per-file pieces at each line starting a file: `diff --git ` or, for an unmerged path in
 * `diff-index`, `* Unmerged path `. Content lines of a patch always start with ' ', '+', '-', '@' or '\\', and header
 * lines with other words, so neither marker can appear inside a file's piece.
 */
function splitPatches(patch: Buffer): Buffer[] {
  if (patch.length === 0) return [];
  if (!startsFile(patch, 0)) throw new Error('patch section does not start with a file header');
  const out: Buffer[] = [];
  let start = 0;
  let at = 0;
  for (;;) {
    const nl = patch.indexOf(0x0a, at);
    if (nl < 0 || nl + 1 >= patch.length) {
      out.push(patch.subarray(start));
      return out;
    }
    at = nl + 1;
    if (startsFile(patch, at)) {
      out.push(patch.subarray(start, at));
      start = at;
    }
  }
}

/** Git's C-style quoting of a path in a patch header (core.quotePath=false: bytes from 0x80 up stay as they are). */
export function cQuote(path: string): string {
  const named: Record<number, string> = {
    7: 'a',
    8: 'b',
    9: 't',
    10: 'n',
    11: 'v',
    12: 'f',
    13: 'r',
    34: '"',
    92: '\\',
  };
  let out = '';
  let quoted = false;
  for (const ch of path) {
    const c = ch.codePointAt(0) as number;
    if (named[c] !== undefined) {
      out += `\\${named[c]}`;
      quoted = true;
    } else if (c < 0x20 || c === 0x7f) {
      out += `\\${c.toString(8).padStart(3, '0')}`;
      quoted = true;
    } else out += ch;
  }
  return quoted ? `"${out}"` : out;
}

/** The first line of the patch of `from` → `to`, as git prints it. */
function headerOf(from: string, to: string): Buffer {
  return Buffer.from(`diff --git ${cQuote(`a/${from}`)} ${cQuote(`b/${to}`)}\n`);
}

const UNMERGED_PREFIX = Buffer.from('* Unmerged path ');

/** Parses one diff's output. With `truncated`, incomplete records and the last (possibly cut) patch are dropped. */
export function parseDiff(buf: Buffer, truncated: boolean): DiffListing {
  const raws = new Map<string, Raw>();
  const unmerged: DiffFile[] = [];
  const stats: Numstat[] = [];
  let at = 0;
  let cut = false;
  // Raw records.
  while (at < buf.length && buf[at] === 0x3a /* ':' */) {
    const head = token(buf, at);
    const p1 = head && token(buf, head.next);
    if (!head || !p1) {
      cut = true;
      break;
    }
    const combined = head.text.startsWith('::');
    const parts = head.text.replace(/^:+/, '').split(' ');
    if (combined) {
      const n = (parts.length - 1) / 2;
      unmerged.push({
        path: p1.text,
        origPath: null,
        status: 'unmerged',
        oldMode: parts[0] ?? '',
        newMode: parts[n - 1] ?? '',
        oldOid: parts[n] ?? '',
        newOid: parts[2 * n - 1] ?? '',
        additions: 0,
        deletions: 0,
        binary: false,
        patch: new Uint8Array(0),
      });
      at = p1.next;
      continue;
    }
    const [oldMode = '', newMode = '', oldOid = '', newOid = '', st = ''] = parts;
    const status = statusOf(st.charAt(0));
    if (status === 'renamed' || status === 'copied') {
      const p2 = token(buf, p1.next);
      if (!p2) {
        cut = true;
        break;
      }
      raws.set(p2.text, { status, oldMode, newMode, oldOid, newOid, origPath: p1.text, path: p2.text });
      at = p2.next;
    } else {
      raws.set(p1.text, { status, oldMode, newMode, oldOid, newOid, origPath: null, path: p1.text });
      at = p1.next;
    }
  }
  // Numstat records, then the empty record before the patches.
  while (!cut && at < buf.length && buf[at] !== 0) {
    const rec = token(buf, at);
    if (!rec) {
      cut = true;
      break;
    }
    // Only the first two tabs separate fields: a path may hold tabs of its own.
    const t1 = rec.text.indexOf('\t');
    const t2 = rec.text.indexOf('\t', t1 + 1);
    if (t1 < 0 || t2 < 0) throw new Error('malformed numstat record');
    const a = rec.text.slice(0, t1);
    const d = rec.text.slice(t1 + 1, t2);
    const inline = rec.text.slice(t2 + 1);
    let path = inline;
    at = rec.next;
    if (inline === '') {
      // A rename: the source and destination follow as their own records.
      const src = token(buf, at);
      const dst = src && token(buf, src.next);
      if (!src || !dst) {
        cut = true;
        break;
      }
      path = dst.text;
      at = dst.next;
    }
    const binary = a === '-' && d === '-';
    stats.push({ path, additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary });
  }
  if (!cut && at < buf.length) at += 1;
  const patches = cut ? [] : splitPatches(buf.subarray(at));
  if (truncated && patches.length > 0) patches.pop();
  const files: DiffFile[] = [];
  let next = 0;
  for (const s of stats) {
    const raw = raws.get(s.path);
    if (!raw) throw new Error('numstat record without a raw record');
    const piece = patches[next];
    if (piece === undefined) {
      if (truncated || s.binary) continue;
      throw new Error('numstat record without a patch');
    }
    const mine =
      raw.status === 'unmerged'
        ? piece.subarray(0, UNMERGED_PREFIX.length).equals(UNMERGED_PREFIX)
        : piece
            .subarray(0, headerOf(raw.origPath ?? raw.path, raw.path).length)
            .equals(headerOf(raw.origPath ?? raw.path, raw.path));
    if (!mine) {
      // A binary file whose stat data is stale: numstat names it, the patch (which compares content) does not.
      if (s.binary) continue;
      throw new Error('a patch does not belong to the file its numstat record names');
    }
    next++;
    // An unmerged path has no patch, only git's one-line notice: reported with an empty patch, as diff-files does.
    const patch = raw.status === 'unmerged' ? new Uint8Array(0) : new Uint8Array(piece);
    files.push({ ...raw, additions: s.additions, deletions: s.deletions, binary: s.binary, patch });
  }
  if (next !== patches.length) throw new Error('diff printed patches no numstat record names');
  return { files: [...unmerged, ...files], truncated: truncated || cut, unread: [] };
}
