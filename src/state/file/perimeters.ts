// The file adapter's perimeter store: one JSON file in the state dir, written atomically, for one process.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/v4';
import { fail, ok, Perimeter, type Result } from '../../core/index.js';
import type { PerimeterStore } from '../types.js';
import { readStateFile, writeAtomic } from './atomic.js';

const STATE_FILE = 'perimeters.json';

const StateFile = z.strictObject({ version: z.literal(1), perimeters: z.array(Perimeter) });

/**
 * Opens the store in `stateDir` (created 0700 if missing), or in memory when `stateDir` is undefined.
 * A state file that does not parse is an error, never an empty start: silently forgetting perimeters
 * would widen or drop an operator's decisions.
 */
export async function openStore(stateDir: string | undefined): Promise<Result<PerimeterStore, 'corrupt_state'>> {
  const perimeters = new Map<string, Perimeter>();
  const file = stateDir === undefined ? undefined : join(stateDir, STATE_FILE);
  if (stateDir !== undefined && file !== undefined) {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const read = await readStateFile(file, StateFile, 'State file');
    if (!read.ok) return read;
    for (const p of read.value?.perimeters ?? []) perimeters.set(p.id, p);
  }

  let rev = 0;
  let queue: Promise<unknown> = Promise.resolve();
  /**
   * Applies a change to a copy, persists the copy, and only then makes it current: a failed write leaves memory
   * and disk as they were. Changes are serialized so two cannot interleave their snapshots.
   */
  const change = <T, C extends string>(
    mutate: (next: Map<string, Perimeter>) => Result<T, C>,
  ): Promise<Result<T, C>> => {
    const run = queue.then(async () => {
      const next = new Map(perimeters);
      const result = mutate(next);
      if (!result.ok) return result;
      if (file !== undefined) {
        const snapshot = { version: 1, perimeters: [...next.values()] };
        await writeAtomic(file, JSON.stringify(snapshot, null, 2) + '\n');
      }
      perimeters.clear();
      for (const [k, v] of next) perimeters.set(k, v);
      rev += 1;
      return result;
    });
    queue = run.catch(() => undefined);
    return run;
  };

  return ok({
    file,
    list: () => [...perimeters.values()].sort((a, b) => a.id.localeCompare(b.id)),
    get: (id) => perimeters.get(id),
    revision: () => rev,
    put: async (p) => {
      await change((next) => ok(void next.set(p.id, p)));
    },
    delete: async (id) => {
      const out = await change((next) => (next.delete(id) ? ok(true) : fail('absent', '')));
      return out.ok;
    },
    modify: change,
  });
}
