// Bench only, never part of the product: preloaded into `bin/git-blinder serve` by bench/idle-rss.ts as
// `node --expose-gc --import <this file> bin/git-blinder serve …`. On SIGUSR2 it runs full collections and writes the
// process's memory use after them to the file named by GB_BENCH_GC_OUT, so the bench can read a settled heap from
// outside the process.
/* global process, setImmediate */
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const out = process.env.GB_BENCH_GC_OUT;
let seq = 0;
if (out && typeof globalThis.gc === 'function') {
  const gc = globalThis.gc;
  process.on('SIGUSR2', () => {
    void (async () => {
      // Three rounds with a turn of the event loop between them: what the first frees can release more (finalizers).
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setImmediate(r));
      }
      seq += 1;
      // Per V8 space: what it holds committed (resident or not) and what is live in it.
      const spaces = Object.fromEntries(
        getHeapSpaceStatistics().map((x) => [x.space_name, { size: x.space_size, used: x.space_used_size }]),
      );
      writeFileSync(out, JSON.stringify({ seq, ...process.memoryUsage(), spaces }));
    })();
  });
}
