// Text search at a commit with `git grep`, streamed: records are parsed as they arrive, matches outside the given
// files are dropped before they are counted or kept, and the process is killed at the match limit or the time bound.
import { streamGit } from '../../gitcli/stream.js';
import type { GrepMatch, GrepRequest, GrepResult, UpResult } from '../types.js';
import { fail, gitFailure, ok } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import type { Repo } from './repo.js';

/** Bytes of a matching line kept on each side of the match (the tool cuts further). */
const WINDOW_BYTES = 1024;
/** git's own threads; two keep one search from taking every core of a small machine. */
const THREADS = 2;
const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** UTF-16 code units a byte contributes when decoded (leaders of 4-byte sequences make a surrogate pair). */
const units = (b: number): number => ((b & 0xc0) === 0x80 ? 0 : b >= 0xf0 ? 2 : 1);

const decoder = new TextDecoder('utf-8');

/** Incremental parser of `git grep --null -n --column` output: `name\0line\0column\0text\n`. */
class RecordParser {
  private field = 0;
  private head: number[] = [];
  private name = '';
  private line = 0;
  private colByte = 0;
  private offset = 0;
  private colUnits = 0;
  private startUnits = 0;
  private kept: number[] = [];

  private readonly prefix: string;
  private readonly emit: (m: GrepMatch) => boolean;

  constructor(prefix: string, emit: (m: GrepMatch) => boolean) {
    this.prefix = prefix;
    this.emit = emit;
  }

  /** Feeds a chunk; false once `emit` asked to stop. */
  feed(chunk: Buffer): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (this.field < 3) {
        if (b === 0) this.endField();
        else this.head.push(b);
        continue;
      }
      if (b === 0x0a) {
        if (!this.endRecord()) return false;
        continue;
      }
      const o = this.offset++;
      const start = Math.max(0, this.colByte - 1 - WINDOW_BYTES);
      if (o < this.colByte - 1) this.colUnits += units(b);
      if (o < start || (this.kept.length === 0 && (b & 0xc0) === 0x80)) this.startUnits += units(b);
      else if (o < this.colByte - 1 + WINDOW_BYTES) this.kept.push(b);
    }
    return true;
  }

  private endField(): void {
    const text = Buffer.from(this.head).toString('utf8');
    this.head = [];
    if (this.field === 0) this.name = text.startsWith(this.prefix) ? text.slice(this.prefix.length) : text;
    else if (this.field === 1) this.line = Number(text);
    else this.colByte = Number(text);
    this.field++;
  }

  private endRecord(): boolean {
    let text = decoder.decode(Uint8Array.from(this.kept));
    if (this.offset > this.colByte - 1 + WINDOW_BYTES) text = text.replace(/\uFFFD$/, '');
    const m: GrepMatch = { path: this.name, line: this.line, column: this.colUnits + 1, text, textColumn: this.startUnits + 1 };
    this.field = 0;
    this.offset = 0;
    this.colUnits = 0;
    this.startUnits = 0;
    this.kept = [];
    return this.emit(m);
  }
}

/** `git grep` over `request.files` at `commit`; matches come back in `files` order. */
export async function grep(repo: Repo, commit: string, request: GrepRequest): Promise<UpResult<GrepResult>> {
  if (!FULL_SHA.test(commit)) return fail('not_found', 'No such commit.');
  const order = new Map(request.files.map((f, i) => [f.path, i]));
  const matches: GrepMatch[] = [];
  if (order.size === 0 || request.maxMatches <= 0) return ok({ matches, end: 'complete' });
  const parser = new RecordParser(`${commit}:`, (m) => {
    if (!order.has(m.path)) return true;
    matches.push(m);
    return matches.length < request.maxMatches;
  });
  const under = request.under.includes('') ? [] : [...new Set(request.under)];
  const args = [
    'grep',
    '--null',
    '-n',
    '--column',
    '-I',
    '--no-color',
    `--threads=${THREADS}`,
    `--max-count=${request.maxMatches}`,
    request.mode === 'literal' ? '-F' : '-P',
    ...(request.caseSensitive ? [] : ['-i']),
    '-e',
    request.pattern,
    commit,
    '--',
    ...under,
  ];
  const end = await streamGit(args, { ...repo.call, timeoutMs: request.timeoutMs, onData: (c) => parser.feed(c) });
  const sorted = () => [...matches].sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0) || a.line - b.line);
  switch (end.kind) {
    case 'stopped':
      return ok({ matches: sorted(), end: 'limit' });
    case 'timeout':
      return ok({ matches: sorted(), end: 'timeout' });
    case 'spawn_error':
      return fail('unavailable', end.missing ? 'git is not installed or not on PATH.' : 'git failed while searching; try again later.');
    case 'exit':
      if (end.code === 0 || end.code === 1) return ok({ matches: sorted(), end: 'complete' });
      // PCRE gives up on patterns that backtrack too much: the same answer as running out of time.
      if (/pcre2?_match|match limit|backtrack|recursion limit|JIT stack/i.test(end.stderr)) return ok({ matches: sorted(), end: 'timeout' });
      repo.log('warn', 'git grep failed', { code: end.code, stderr: end.stderr.slice(0, 2000) });
      if (/pcre2?_compile|pattern|regex/i.test(end.stderr)) return fail('invalid', 'The regular expression is not supported by this upstream.');
      return fail('unavailable', 'git failed while searching; try again later.');
    default: {
      const never: never = end;
      throw new Error(`unknown stream end ${JSON.stringify(never)}`);
    }
  }
}

/** `merge-base --is-ancestor`: true when `ancestor` is `head` or behind it; unknown commits are simply false. */
export async function isAncestor(repo: Repo, ancestor: string, head: string): Promise<UpResult<boolean>> {
  if (!FULL_SHA.test(ancestor) || !FULL_SHA.test(head)) return ok(false);
  if (ancestor === head) return ok(true);
  const run = await runGit(['merge-base', '--is-ancestor', ancestor, head], repo.call);
  if (run.code === 0 || run.code === 1) return ok(run.code === 0);
  // 128: one of the commits is gone (history rewritten and pruned): not an ancestor.
  if (run.code === 128) return ok(false);
  return gitFailure(run, 'comparing commits', repo.log);
}
