// A least-recently-used map with a byte budget, for immutable GitHub objects (trees, blobs and commits by SHA)
// and for the last ETag'd answer of mutable GETs. Sizes are estimates supplied by the caller.

/** LRU cache bounded by an approximate byte budget; entries larger than a quarter of the budget are not kept. */
export class ByteLru {
  private readonly entries = new Map<string, { value: unknown; bytes: number }>();
  private used = 0;

  private readonly budget: number;
  private readonly onHit: () => void;

  constructor(budget: number, onHit: () => void = () => undefined) {
    this.budget = budget;
    this.onHit = onHit;
  }

  /** The cached value (refreshing its recency), or undefined. Counts a hit. */
  get<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    this.onHit();
    return e.value as T;
  }

  /** Like `get` but without counting a hit: for conditional-request bookkeeping. */
  peek<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value as T;
  }

  /** Stores a value; evicts the least recently used entries until the budget holds. */
  set(key: string, value: unknown, bytes: number): void {
    const size = Math.max(1, Math.ceil(bytes));
    this.delete(key);
    if (size > this.budget / 4) return;
    this.entries.set(key, { value, bytes: size });
    this.used += size;
    for (const [k, e] of this.entries) {
      if (this.used <= this.budget) break;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.used -= e.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  /** Bytes currently held (estimate). */
  get bytes(): number {
    return this.used;
  }
}

/** Rough in-memory size of a JSON-like value, for cache accounting: strings count two bytes a character. */
export function approxBytes(value: unknown): number {
  if (value === null || value === undefined) return 8;
  if (typeof value === 'string') return 40 + value.length * 2;
  if (typeof value === 'number' || typeof value === 'boolean') return 8;
  if (Buffer.isBuffer(value)) return 64 + value.length;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + approxBytes(v), 32);
  if (typeof value === 'object') {
    let n = 48;
    for (const [k, v] of Object.entries(value)) n += 16 + k.length * 2 + approxBytes(v);
    return n;
  }
  return 16;
}
