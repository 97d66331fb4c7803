// A map bounded by its number of entries, the least recently used dropped first: for facts kept by immutable ids
// (a commit's tree, a reachability answer), which can be dropped at any time and asked again.

export interface Lru<V> {
  /** The kept value (now the most recently used), or undefined. */
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

/** Creates a map holding at most `max` entries. */
export function createLru<V>(max: number): Lru<V> {
  const kept = new Map<string, V>();
  return {
    get(key) {
      const hit = kept.get(key);
      if (hit !== undefined) {
        kept.delete(key);
        kept.set(key, hit);
      }
      return hit;
    },
    set(key, value) {
      kept.delete(key);
      kept.set(key, value);
      if (kept.size > max) kept.delete(kept.keys().next().value!);
    },
  };
}
