// The default adapter: one process, state in its state dir (perimeters) and in memory (counters). Needs no database.
import { giveWindow, takeWindow, type CountWindow, type Result } from '../../core/index.js';
import type { Counters, InstanceInfo, QuotaSighting, SharedState } from '../types.js';
import { openStore } from './perimeters.js';
import { openFileProposalStore } from './proposals.js';

export { openStore } from './perimeters.js';
export { writeAtomic } from './atomic.js';

/** In-memory fixed windows: the counters of a single process. */
export function memoryCounters(now: () => number = Date.now): Counters {
  const windows = new Map<string, CountWindow>();
  return {
    take: async (key, limit, windowMs) => {
      const { next, waitSeconds } = takeWindow(windows.get(key), now(), limit, windowMs);
      windows.set(key, next);
      return waitSeconds;
    },
    give: async (key) => {
      const w = giveWindow(windows.get(key));
      if (w) windows.set(key, w);
    },
  };
}

/** Opens the file adapter in `stateDir` (in memory when undefined); `self` is this process as `status` lists it. */
export async function openFileState(
  stateDir: string | undefined,
  self: { id: string; version: string },
): Promise<Result<SharedState, 'corrupt_state'>> {
  const opened = await openStore(stateDir);
  if (!opened.ok) return opened;
  const proposals = await openFileProposalStore(stateDir);
  if (!proposals.ok) return proposals;
  const startedAt = new Date().toISOString();
  let seen: QuotaSighting | undefined;
  return {
    ok: true,
    value: {
      kind: 'file',
      perimeters: opened.value,
      proposals: proposals.value,
      counters: memoryCounters(),
      instances: async (): Promise<readonly InstanceInfo[]> => [{ id: self.id, version: self.version, startedAt, lastSeen: new Date().toISOString() }],
      // The file is this process's own: there is nobody to fall silent.
      health: () => ({ kind: 'live' }),
      sawQuota: (q) => {
        seen = q;
      },
      quota: () => seen,
      close: async () => undefined,
    },
  };
}
