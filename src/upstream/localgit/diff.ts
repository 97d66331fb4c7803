// Per-file changes between two commits: status and rename pairing from --raw, counts from --numstat (both -z),
// and the unified patch split per file, all from one answer of the repository's long-lived `diff-tree --stdin`.
import type { CommitFile, FileStatus } from '../../core/model.js';
import { fail, ok, type Failed } from './errors.js';
import { EMPTY_TREE } from '../../gitcli/diff-reader.js';
import type { Repo } from './repo.js';

/** Patches longer than this are omitted for that file (GitHub omits large patches too). */
export const MAX_PATCH_BYTES = 64 * 1024;

const DIFF_OPTS = ['-r', '-M', '--no-ext-diff', '--no-textconv', '--no-color', '--src-prefix=a/', '--dst-prefix=b/'];

/** The output options of the repository's diff reader: records (-z) first, then one NUL, then the patch text. */
export const DIFF_READER_ARGS: readonly string[] = ['-z', '--raw', '--numstat', '-p', ...DIFF_OPTS];

/** Largest diff answer held in memory; a bigger one is `too_large`. */
export const MAX_DIFF_BYTES = 256 * 1024 * 1024;

function status(letter: string): FileStatus {
  switch (letter[0] ?? '') {
    case 'A':
      return 'added';
    case 'D':
      return 'removed';
    case 'R':
      return 'renamed';
    case 'C':
      return 'copied';
    case 'M':
      return 'modified';
    default:
      return 'changed'; // T (type change), U, X
  }
}

interface Counted {
  path: string;
  status: FileStatus;
  previous_path?: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

/** Parses `--raw --numstat -z`: all raw records first, then the numstat records in the same order. */
export function parseRawNumstat(out: string): Counted[] {
  const t = out.split('\0');
  const files: Counted[] = [];
  let i = 0;
  while (i < t.length && t[i]?.startsWith(':')) {
    const st = t[i]!.split(' ')[4] ?? '';
    const renamed = st[0] === 'R' || st[0] === 'C';
    const a = t[i + 1] ?? '';
    const b = renamed ? (t[i + 2] ?? '') : a;
    const base = { path: b, status: status(st), additions: 0, deletions: 0, binary: false };
    files.push(renamed ? { ...base, previous_path: a } : base);
    i += renamed ? 3 : 2;
  }
  for (const f of files) {
    const rec = t[i] ?? '';
    const [add, del, name] = rec.split('\t');
    // A rename's numstat record has an empty name, then the two paths as separate fields.
    i += name === '' ? 3 : 1;
    f.binary = add === '-';
    f.additions = f.binary ? 0 : Number(add);
    f.deletions = f.binary ? 0 : Number(del);
  }
  return files;
}

/** Splits a text diff into per-file patches (hunks only, as GitHub shows them); headers are one line each. */
export function splitPatches(text: string): string[] {
  const parts = text.split(/^diff --git /m).slice(1);
  return parts.map((p) => {
    const at = p.search(/^@@ /m);
    return at < 0 ? '' : p.slice(at).replace(/\n$/, '');
  });
}

/** Splits the diff reader's answer: NUL-terminated raw and numstat records, an empty record, then the patch. */
export function splitDiffAnswer(out: Buffer): { records: string; patch: string } {
  // File names cannot contain NUL and are never empty, so the first "\0\0" is the separator.
  const sep = out.indexOf('\0\0');
  if (sep < 0) return { records: out.toString('utf8'), patch: '' };
  return { records: out.toString('utf8', 0, sep + 1), patch: out.toString('utf8', sep + 2) };
}

/** Files changed from `from` (a commit, or null for the empty tree) to `to`. */
export async function diffFiles(
  repo: Repo,
  from: string | null,
  to: string,
): Promise<{ ok: true; value: CommitFile[] } | Failed> {
  const infos = await repo.reader.info([...(from === null ? [] : [`${from}^{tree}`]), `${to}^{tree}`]);
  const ids = infos.map((i) => {
    if (!i.found) throw new Error('a resolved commit has no tree');
    return i.sha;
  });
  const [fromTree, toTree] = from === null ? [EMPTY_TREE, ids[0]!] : [ids[0]!, ids[1]!];
  const answer = await repo.diffs.diff(fromTree, toTree);
  if (answer.kind === 'too_large') return fail('too_large', 'The answer to diffing a commit is too large.');
  const { records, patch } = splitDiffAnswer(answer.out);
  const files = parseRawNumstat(records);
  const patches = splitPatches(patch);
  // A type change (file <-> symlink) is one raw record but two patch sections (a deletion and a creation): it takes
  // both and shows neither. Counting it so keeps every other file's patch, whatever type changes (hidden ones too)
  // the commit holds; only an answer that still does not align loses its patches.
  const typeChanges = files.filter((f) => f.status === 'changed').length;
  const aligned = patches.length === files.length + typeChanges;
  if (!aligned) repo.log('debug', 'patch sections do not align with files; patches omitted', { files: files.length });
  let section = 0;
  const sectionOf = (f: Counted): string => {
    const at = section;
    section += f.status === 'changed' ? 2 : 1;
    return f.status === 'changed' ? '' : (patches[at] ?? '');
  };
  return ok(
    files.map((f): CommitFile => {
      const p = aligned ? sectionOf(f) : '';
      const base: CommitFile = {
        path: f.path,
        status: f.status,
        ...(f.previous_path !== undefined ? { previous_path: f.previous_path } : {}),
        additions: f.additions,
        deletions: f.deletions,
      };
      return !f.binary && p !== '' && Buffer.byteLength(p) <= MAX_PATCH_BYTES ? { ...base, patch: p } : base;
    }),
  );
}
