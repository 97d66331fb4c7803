// The verifier: streams every retained segment then the active file, line by line with bounded memory, and stops at
// the first problem. It reports counters only, never event content.
import type { KeyObject } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkEntry } from './entry.js';
import { listSegments, readLines, type SegmentFile } from './files.js';
import { loadPublicKeys } from './keys.js';

/** Public keys by key id (SPKI PEM); `requireSigned` makes any unsigned entry a failure. */
export interface VerifyOptions {
  publicKeys?: Record<string, string>;
  requireSigned?: boolean;
}

/** Why a ledger failed; `usage` is the caller's mistake (a bad key), not the ledger's. */
export type VerifyProblemCode =
  | 'usage'
  | 'missing'
  | 'io'
  | 'malformed'
  | 'hash_mismatch'
  | 'sequence'
  | 'chain_broken'
  | 'rotation'
  | 'unknown_key'
  | 'bad_signature'
  | 'unsigned';

/** The first problem found, with the file (base name) and 1-based line when it concerns a line. */
export interface VerifyProblem {
  code: VerifyProblemCode;
  message: string;
  file?: string;
  line?: number;
}

/** Bounded counters. `signaturesChecked` is false when signed entries were seen but no public keys were given. */
export interface VerifyCounters {
  files: number;
  segments: number;
  entries: number;
  events: number;
  checkpoints: number;
  signed: number;
  unsigned: number;
  firstSeq?: number;
  lastSeq?: number;
  /** The last entry's hash: anchor it elsewhere to detect later truncation of the active file. */
  lastHash?: string;
  /** The oldest retained file starts with a checkpoint whose predecessor was pruned. */
  startsAfterPruning: boolean;
  signaturesChecked: boolean;
}

/** The verifier's outcome. */
export type VerifyReport =
  { ok: true; counters: VerifyCounters } | { ok: false; counters: VerifyCounters; problem: VerifyProblem };

class Stop extends Error {
  readonly problem: VerifyProblem;
  constructor(problem: VerifyProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

interface FileToCheck {
  name: string;
  segment: SegmentFile | undefined;
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** Verifies the ledger whose active file is `file` (segments are found beside it). Never throws for ledger content. */
export async function verifyLedger(file: string, o: VerifyOptions = {}): Promise<VerifyReport> {
  const counters: VerifyCounters = {
    files: 0,
    segments: 0,
    entries: 0,
    events: 0,
    checkpoints: 0,
    signed: 0,
    unsigned: 0,
    startsAfterPruning: false,
    signaturesChecked: true,
  };
  try {
    const keys = loadPublicKeys(o.publicKeys ?? {});
    if (!keys.ok) throw new Stop({ code: 'usage', message: keys.message });
    await new Checker(file, keys.value, o.requireSigned === true, counters).run();
    return { ok: true, counters };
  } catch (e) {
    if (e instanceof Stop) return { ok: false, counters, problem: e.problem };
    return { ok: false, counters, problem: { code: 'io', message: e instanceof Error ? e.message : String(e) } };
  }
}

class Checker {
  private readonly dir: string;
  private readonly base: string;
  private expectedSeq: number | undefined;
  private prevHash: string | undefined;
  private prevFile: { name: string; digest: string; lastSeq: number | undefined } | undefined;
  private lastCheckpoint: { retained: number; filesBefore: number } | undefined;

  private readonly keys: Map<string, KeyObject>;
  private readonly requireSigned: boolean;
  private readonly c: VerifyCounters;

  constructor(file: string, keys: Map<string, KeyObject>, requireSigned: boolean, c: VerifyCounters) {
    this.keys = keys;
    this.requireSigned = requireSigned;
    this.c = c;
    this.dir = dirname(file);
    this.base = basename(file);
  }

  async run(): Promise<void> {
    const files = await this.collect();
    for (const [index, f] of files.entries()) await this.checkFile(f, index);
    const cp = this.lastCheckpoint;
    if (cp !== undefined && cp.filesBefore < cp.retained) {
      throw new Stop({
        code: 'rotation',
        message: `the newest checkpoint says ${cp.retained} segments were retained, but only ${cp.filesBefore} precede it`,
      });
    }
  }

  private async collect(): Promise<FileToCheck[]> {
    let listing;
    try {
      listing = await listSegments(this.dir, this.base);
    } catch (e) {
      if (errno(e) === 'ENOENT') throw new Stop({ code: 'missing', message: 'the ledger directory does not exist' });
      throw e;
    }
    const odd = listing.odd[0];
    if (odd !== undefined) throw new Stop({ code: 'rotation', message: 'a segment name does not parse', file: odd });
    const { segments } = listing;
    for (let i = 1; i < segments.length; i++) {
      const [a, b] = [segments[i - 1], segments[i]] as [SegmentFile, SegmentFile];
      if (b.first !== a.last + 1) {
        throw new Stop({ code: 'rotation', message: `segments ${a.name} and ${b.name} do not follow each other` });
      }
    }
    const files: FileToCheck[] = segments.map((s) => ({ name: s.name, segment: s }));
    const activeExists = await stat(join(this.dir, this.base)).then(
      () => true,
      (e: unknown) => (errno(e) === 'ENOENT' ? false : Promise.reject(e)),
    );
    // A missing active file beside segments is the window between a rotation and the next append.
    if (activeExists) files.push({ name: this.base, segment: undefined });
    if (files.length === 0) throw new Stop({ code: 'missing', message: 'no ledger file found' });
    this.c.segments = segments.length;
    this.c.files = files.length;
    return files;
  }

  private async checkFile(f: FileToCheck, index: number): Promise<void> {
    let first: number | undefined;
    let last: number | undefined;
    const at = (line: number) => ({ file: f.name, line });
    for await (const ev of readLines(join(this.dir, f.name))) {
      switch (ev.kind) {
        case 'line': {
          const seq = this.checkLine(ev.text, ev.no, f.name, index);
          first ??= seq;
          last = seq;
          break;
        }
        case 'too_long':
          throw new Stop({ code: 'malformed', message: 'line longer than 256 KiB', ...at(ev.no) });
        case 'bad_utf8':
          throw new Stop({ code: 'malformed', message: 'line is not valid UTF-8', ...at(ev.no) });
        case 'torn':
          throw new Stop({ code: 'malformed', message: 'last line has no newline (torn write or cut)', ...at(ev.no) });
        case 'end':
          this.prevFile = { name: f.name, digest: ev.digest, lastSeq: last };
          break;
        default:
          ev satisfies never;
      }
    }
    if (f.segment !== undefined && (first !== f.segment.first || last !== f.segment.last)) {
      throw new Stop({ code: 'rotation', message: 'segment content does not match its name', file: f.name });
    }
  }

  /** Checks one line: form, hash, signature, position, chain. Returns its seq. */
  private checkLine(text: string, no: number, file: string, fileIndex: number): number {
    const stop = (code: VerifyProblemCode, message: string): Stop => new Stop({ code, message, file, line: no });
    const checked = checkEntry(text, this.keys, this.requireSigned);
    if (!checked.ok) throw stop(checked.code, checked.message);
    const rec = checked.rec;
    if (checked.signed) {
      this.c.signed += 1;
      if (!checked.sigChecked) this.c.signaturesChecked = false;
    } else {
      this.c.unsigned += 1;
    }

    if (no === 1 && fileIndex > 0) {
      const prev = this.prevFile;
      if (rec.kind !== 'checkpoint') throw stop('rotation', 'file does not start with a checkpoint');
      if (prev === undefined || rec.prev_segment !== prev.name) {
        throw stop('rotation', 'checkpoint does not name the preceding file');
      }
      if (rec.prev_digest !== prev.digest) throw stop('rotation', 'preceding file changed since its checkpoint');
      if (rec.prev_seq !== prev.lastSeq) throw stop('rotation', 'checkpoint does not match the preceding last entry');
    } else if (no === 1) {
      if (rec.kind === 'checkpoint') {
        // The oldest retained file: its predecessor was pruned, so the chain starts at this checkpoint.
        this.c.startsAfterPruning = true;
        this.expectedSeq = rec.seq;
        this.prevHash = rec.prev_hash;
        if (rec.prev_seq !== rec.seq - 1) throw stop('sequence', 'checkpoint does not follow its predecessor');
      } else {
        this.expectedSeq = 1;
        this.prevHash = 'genesis';
      }
    } else if (rec.kind === 'checkpoint') {
      throw stop('rotation', 'checkpoint inside a file');
    }
    if (rec.seq !== this.expectedSeq)
      throw stop('sequence', `expected seq ${this.expectedSeq ?? '?'}, found ${rec.seq}`);
    if (rec.prev_hash !== this.prevHash) throw stop('chain_broken', 'prev_hash does not match the previous entry');
    if (rec.kind === 'checkpoint') {
      this.c.checkpoints += 1;
      this.lastCheckpoint = { retained: rec.retained, filesBefore: fileIndex };
    } else {
      this.c.events += 1;
    }
    this.c.entries += 1;
    this.c.firstSeq ??= rec.seq;
    this.c.lastSeq = rec.seq;
    this.c.lastHash = rec.hash;
    this.expectedSeq = rec.seq + 1;
    this.prevHash = rec.hash;
    return rec.seq;
  }
}
