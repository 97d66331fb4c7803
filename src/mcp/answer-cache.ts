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

interface Held {
  outcome: CachedOutcome;
  size: number;
}

/** One perimeter's answers, least recently used first, and their bytes. */
interface Shelf {
  readonly entries: Map<string, Held>;
  bytes: number;
}

/**
 * A bounded cache of answers, keyed by binding object, tool, repository, commit and arguments, with one
 * least-recently-used shelf per perimeter inside one budget. While the budget has room nothing is evicted; once it is
 * full, the perimeter storing an answer gives up its own oldest answers if it holds more than an equal share (the
 * budget divided among the perimeters holding answers), and otherwise the perimeter furthest over its share does. So
 * a perimeter within its share never loses an answer to another's flood of distinct reads, and whether its repeat is
 * served from the cache depends only on its own reads. (What one above its share can notice is that other perimeters
 * hold answers at all: never which, nor what.)
 */
export class AnswerCache {
  private readonly shelves = new Map<string, Shelf>();
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
    // The perimeter leads (as JSON, which never holds a NUL; the root surface shelves apart) so get/set find its shelf;
    // the binding's number still decides identity.
    const shelf = binding.surface === 'agent' ? binding.perimeterId : null;
    return `${JSON.stringify(shelf)}\u0000${id}\u0000${tool}\u0000${repo}\u0000${commit}\u0000${JSON.stringify(args)}`;
  }

  get(key: string): CachedOutcome | undefined {
    const shelf = this.shelves.get(shelfOf(key));
    const e = shelf?.entries.get(key);
    if (shelf === undefined || e === undefined) return undefined;
    // Most recently used last: eviction takes from the front.
    shelf.entries.delete(key);
    shelf.entries.set(key, e);
    return e.outcome;
  }

  set(key: string, outcome: CachedOutcome): void {
    const size = sizeOf(outcome) + 2 * key.length;
    if (size > this.maxBytes / MAX_ENTRY_FRACTION) return;
    const name = shelfOf(key);
    let shelf = this.shelves.get(name);
    if (shelf === undefined) this.shelves.set(name, (shelf = { entries: new Map(), bytes: 0 }));
    const old = shelf.entries.get(key);
    if (old) {
      shelf.bytes -= old.size;
      this.bytes -= old.size;
      shelf.entries.delete(key);
    }
    shelf.entries.set(key, { outcome, size });
    shelf.bytes += size;
    this.bytes += size;
    while (this.bytes > this.maxBytes) {
      const victim = this.victim(shelf);
      const oldest = victim.entries.entries().next();
      if (oldest.done === true) break;
      const [k, e] = oldest.value;
      victim.entries.delete(k);
      victim.bytes -= e.size;
      this.bytes -= e.size;
      // An empty shelf holds no share: the others' shares grow at once.
      if (victim.entries.size === 0) this.shelves.delete(shelfOf(k));
    }
  }

  /** Who gives up an answer: the storing perimeter when over its share, else the perimeter furthest over it. */
  private victim(storing: Shelf): Shelf {
    const share = this.maxBytes / this.shelves.size;
    if (storing.bytes > share) return storing;
    let most = storing;
    for (const sh of this.shelves.values()) if (sh.bytes > most.bytes) most = sh;
    return most;
  }

  /** Entries and estimated bytes held (status and tests), in all or for one perimeter. */
  stats(perimeterId?: string): { entries: number; bytes: number } {
    if (perimeterId !== undefined) {
      const sh = this.shelves.get(JSON.stringify(perimeterId));
      return { entries: sh?.entries.size ?? 0, bytes: sh?.bytes ?? 0 };
    }
    let entries = 0;
    for (const sh of this.shelves.values()) entries += sh.entries.size;
    return { entries, bytes: this.bytes };
  }
}

/** The perimeter part of a key (see key()). */
const shelfOf = (key: string): string => key.slice(0, Math.max(0, key.indexOf('\u0000')));
