// The first pass of a cut diff: `--raw --numstat -z` without patches, read token by token as raw bytes. It says which
// paths changed (a stat-dirty text file gets no numstat record, so it is left out, as the patch pass leaves it out)
// and how git paired them, so the caller can split readable paths from the rest before any patch is read.
import type { DiffFileStatus } from '../types.js';

/** One changed path (or pair) of the first pass; paths are raw bytes. */
export interface NameRecord {
  readonly status: DiffFileStatus;
  readonly path: Buffer;
  /** Source of a rename or copy. */
  readonly from: Buffer | null;
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldOid: string;
  readonly newOid: string;
  /** False for a file only stat-dirty (no numstat record): nothing changed in it. */
  changed: boolean;
}

const LETTERS: Record<string, DiffFileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
  U: 'unmerged',
};
const NUMSTAT = /^(\d+|-)\t(\d+|-)\t/;

/** Key of a raw path in maps (latin1 keeps every byte distinct). */
export const keyOf = (b: Buffer): string => b.toString('latin1');

/** A push parser for one first-pass listing: feed it every token, then read `records`. */
export class NameListing {
  readonly records: NameRecord[] = [];
  private readonly byPath = new Map<string, NameRecord>();
  /** Path tokens still expected by the current record: raw header waiting for 1 or 2 paths, numstat waiting for 2. */
  private want:
    | { kind: 'raw'; head: string; combined: boolean; paths: Buffer[]; need: number }
    | { kind: 'numstat'; paths: Buffer[] }
    | undefined;

  /** Takes one NUL-terminated token. */
  push(tok: Buffer): void {
    const w = this.want;
    if (w?.kind === 'raw') {
      w.paths.push(Buffer.from(tok));
      if (w.paths.length === w.need) this.finishRaw(w.head, w.combined, w.paths);
      return;
    }
    if (w?.kind === 'numstat') {
      w.paths.push(Buffer.from(tok));
      if (w.paths.length === 2) this.mark(w.paths[1] as Buffer);
      return;
    }
    if (tok[0] === 0x3a /* ':' */) {
      const head = tok.toString('latin1');
      const combined = head.startsWith('::');
      const letter = combined ? 'U' : (head.split(' ')[4] ?? '').charAt(0);
      this.want = { kind: 'raw', head, combined, paths: [], need: letter === 'R' || letter === 'C' ? 2 : 1 };
      return;
    }
    const text = tok.subarray(0, Math.min(tok.length, 64)).toString('latin1');
    const m = NUMSTAT.exec(text);
    if (!m) throw new Error('unexpected record in a diff listing');
    const inline = tok.subarray(m[0].length);
    if (inline.length === 0) this.want = { kind: 'numstat', paths: [] };
    else this.mark(inline);
  }

  private finishRaw(head: string, combined: boolean, paths: Buffer[]): void {
    this.want = undefined;
    const parts = head.replace(/^:+/, '').split(' ');
    const [oldMode = '', newMode = '', oldOid = '', newOid = '', st = ''] = combined
      ? [parts[0], parts[0], '', '', 'U']
      : parts;
    const status = LETTERS[st.charAt(0)];
    if (status === undefined) throw new Error('unexpected status in a diff listing');
    const [first, second] = paths as [Buffer, Buffer | undefined];
    const rec: NameRecord = {
      status,
      path: second ?? first,
      from: second ? first : null,
      oldMode,
      newMode,
      oldOid,
      newOid,
      changed: status === 'unmerged',
    };
    this.records.push(rec);
    this.byPath.set(keyOf(rec.path), rec);
  }

  private mark(path: Buffer): void {
    this.want = undefined;
    const rec = this.byPath.get(keyOf(path));
    if (rec) rec.changed = true;
  }
}
