// A per-client replacement for plugin-throttling's module-global "write" Bottleneck group: serialises writes and
// spaces them `minTimeMs` apart (GitHub asks for ≥ 1 s between mutating requests). Being per client, tests can
// set the spacing to 0 and parallel clients do not queue behind one another.

/** The slice of Bottleneck.Group that plugin-throttling calls: `group.key(id).schedule(jobOptions, fn)`. */
export interface WriteGroup {
  key(id?: string): { schedule<T>(options: unknown, fn: () => Promise<T>): Promise<T> };
}

/** A write group that runs one job at a time, starting each at least `minTimeMs` after the previous one started. */
export function writeSpacing(minTimeMs: number): WriteGroup {
  let tail: Promise<unknown> = Promise.resolve();
  let lastStart = 0;
  const limiter = {
    schedule<T>(_options: unknown, fn: () => Promise<T>): Promise<T> {
      const run = tail.then(async () => {
        const wait = lastStart + minTimeMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        lastStart = Date.now();
        return fn();
      });
      tail = run.catch(() => undefined);
      return run;
    },
  };
  return { key: () => limiter };
}
