// A small seeded PRNG for the twin check's contents and call arguments. fast-check draws the plan's shape (and owns
// the seed); everything derived from a plan is drawn from this, so a (seed, run) pair replays byte for byte.

/** A deterministic random source (mulberry32). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('Rng.pick: empty list');
    return xs[this.int(0, xs.length - 1)] as T;
  }

  /** A random subset, in the list's order. */
  some<T>(xs: readonly T[], p = 0.5): T[] {
    return xs.filter(() => this.chance(p));
  }

  /** A child source, so adding draws in one place does not shift another's. */
  fork(salt: number): Rng {
    return new Rng((Math.imul(this.int(0, 0x7fffffff), 2654435761) ^ salt) >>> 0);
  }
}
