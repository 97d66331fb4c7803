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

/** Default budget: answers are kept until their estimated size passes this many bytes, shared out by perimeter. */
export const DEFAULT_ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

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
 * The least quota of a perimeter: a 3,000-entry recursive listing (about 1 MB as estimated) still fits, so a server
 * with many perimeters keeps each one's large answers, at up to this much memory per configured perimeter.
 */
export const MIN_QUOTA_BYTES = 2 * 1024 * 1024;

/** The shelf of the operator's surface (its keys lead with `null`, see key()). */
const ROOT_SHELF = 'null';

/**
 * A bounded cache of answers, keyed by binding object, tool, repository, commit and arguments, with one
 * least-recently-used shelf per perimeter. Each shelf has a fixed quota: the budget divided by the configured
 * perimeters (and one shelf for the operator's surface), never less than MIN_QUOTA_BYTES. A perimeter storing an answer evicts only its own oldest
 * answers, and nothing another perimeter does changes its quota, so whether its repeat is served from the cache is a
 * function of its own reads and of the operator's configuration only. (A share that shrank as other perimeters
 * started caching let one perimeter count, by timing its repeats, the bytes another one cached: the sizes of files it
 * may not read.)
 */
export class AnswerCache {
  private readonly shelves = new Map<string, Shelf>();
  private readonly ids = new WeakMap<Binding, number>();
  private nextId = 1;
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly perimeters: () => Iterable<string>;
  private readonly minQuota: number;

  /**
   * `perimeters`: the ids of the configured perimeters, asked when an answer is stored (the operator's, not an
   * agent's); `minQuota`: the least quota of one perimeter (tests lower it to overflow a small budget).
   */
  constructor(perimeters: () => Iterable<string>, maxBytes = DEFAULT_ANSWER_CACHE_BYTES, minQuota = MIN_QUOTA_BYTES) {
    this.perimeters = perimeters;
    this.maxBytes = maxBytes;
    this.minQuota = minQuota;
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
    const configured = new Set<string>();
    for (const id of this.perimeters()) configured.add(JSON.stringify(id));
    const quota = Math.max(this.minQuota, this.maxBytes / (configured.size + 1));
    const name = shelfOf(key);
    // Shelves of perimeters that were removed hold answers no binding can reach any more: dropped whole (an
    // operator's change, not an agent's).
    for (const [other, sh] of this.shelves)
      if (other !== ROOT_SHELF && other !== name && !configured.has(other)) {
        this.bytes -= sh.bytes;
        this.shelves.delete(other);
      }
    const size = sizeOf(outcome) + 2 * key.length;
    // An answer larger than the perimeter's whole quota is not kept (it would push out every other of its answers).
    if (size > quota) return;
    let shelf = this.shelves.get(name);
    if (shelf === undefined) this.shelves.set(name, (shelf = { entries: new Map(), bytes: 0 }));
    const old = shelf.entries.get(key);
    if (old) this.drop(shelf, key, old);
    // Only this perimeter's own oldest answers make room (also after its quota shrank when perimeters were added).
    while (shelf.bytes + size > quota) {
      const oldest = shelf.entries.entries().next();
      if (oldest.done === true) break;
      this.drop(shelf, oldest.value[0], oldest.value[1]);
    }
    shelf.entries.set(key, { outcome, size });
    shelf.bytes += size;
    this.bytes += size;
  }

  private drop(shelf: Shelf, key: string, e: Held): void {
    shelf.entries.delete(key);
    shelf.bytes -= e.size;
    this.bytes -= e.size;
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
