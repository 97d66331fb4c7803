// Answers of immutable ids, computed once per perimeter cut and reused (issue 24). A read of a commit, a tree or a
// history page at a given commit id is the same answer every time for the same binding and arguments, so repeating
// it spends no git round trip past resolving the branch head, no filter and no rendering.
//
// The key is the binding object itself (through a per-object number) plus the commit id and the arguments. A binding
// is compiled once per store revision (http/bindings.ts), so any change to any perimeter makes new binding objects
// and every answer cut for the old ones unreachable: an answer can never be served to a perimeter it was not cut for,
// nor after its perimeter was narrowed. (A cache keyed without the cut is how github-mcp-server served one user's
// access to another, CVE-2026-48529.)
import type { Binding } from '../core/index.js';
import type { CallOutcome } from './outcome.js';

/** What is kept: an allowed answer, or the tool's own not-found (both fixed for a commit id). */
export type CachedOutcome = Extract<CallOutcome, { kind: 'allow' } | { kind: 'missing' }>;

/** Default budget: answers are kept until their estimated size passes this many bytes (oldest dropped first). */
export const DEFAULT_ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

/** Largest single answer kept: a huge answer would push out many small ones for a rare repeat. */
const MAX_ENTRY_FRACTION = 8;

/** Rough bytes an outcome holds in memory: its text and its value (JSON of about the same size), UTF-16. */
const sizeOf = (o: CachedOutcome): number =>
  o.kind === 'allow' ? 4 * o.text.length + 256 : 2 * o.message.length + 128;

/** A bounded least-recently-used cache of answers, keyed by binding object, tool, repository, commit and arguments. */
export class AnswerCache {
  private readonly entries = new Map<string, { outcome: CachedOutcome; size: number }>();
  private readonly ids = new WeakMap<Binding, number>();
  private nextId = 1;
  private bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes = DEFAULT_ANSWER_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** The key of one call; `commit` is a full commit id, `args` the validated arguments. */
  key(binding: Binding, tool: string, repo: string, commit: string, args: unknown): string {
    let id = this.ids.get(binding);
    if (id === undefined) this.ids.set(binding, (id = this.nextId++));
    return `${id}\u0000${tool}\u0000${repo}\u0000${commit}\u0000${JSON.stringify(args)}`;
  }

  get(key: string): CachedOutcome | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    // Most recently used last: eviction takes from the front.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.outcome;
  }

  set(key: string, outcome: CachedOutcome): void {
    const size = sizeOf(outcome) + 2 * key.length;
    if (size > this.maxBytes / MAX_ENTRY_FRACTION) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { outcome, size });
    this.bytes += size;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.size;
    }
  }

  /** Entries and estimated bytes held (status and tests). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
