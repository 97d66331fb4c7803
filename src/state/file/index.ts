// The default adapter: one process, state in its state dir (perimeters, proposals) and in memory (counters). Needs no
// database.
import { randomBytes } from 'node:crypto';
import { giveWindow, takeWindow, type CountWindow, type ProposalBounds, type Result } from '../../core/index.js';
import type { Counters, InstanceInfo, QuotaSighting, SharedState } from '../types.js';
import { openStore } from './perimeters.js';
import { openFileProposalStore } from './proposals.js';
import { memoryWebSessions } from './web-sessions.js';

export { openStore } from './perimeters.js';
export { writeAtomic } from './atomic.js';
export { memoryWebSessions } from './web-sessions.js';

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

/**
 * Opens the file adapter in `stateDir` (in memory when undefined); `self` is this process as `status` lists it.
 * `loadKey` reads or creates a named key file of the state dir (the composition root passes the one key-file reader,
 * so cursor keys written before this adapter existed keep working); absent = a fresh key per name per process.
 */
export async function openFileState(
  stateDir: string | undefined,
  self: { id: string; version: string },
  loadKey?: (name: string) => Promise<Uint8Array>,
  /** The proposal store's bounds per perimeter; default `DEFAULT_PROPOSAL_BOUNDS` (the contract suite shrinks them). */
  proposalBounds?: ProposalBounds,
): Promise<Result<SharedState, 'corrupt_state'>> {
  const opened = await openStore(stateDir);
  if (!opened.ok) return opened;
  const proposals = await openFileProposalStore(stateDir, proposalBounds);
  if (!proposals.ok) return proposals;
  const startedAt = new Date().toISOString();
  let seen: QuotaSighting | undefined;
  const keys = new Map<string, Promise<Uint8Array>>();
  return {
    ok: true,
    value: {
      kind: 'file',
      perimeters: opened.value,
      proposals: proposals.value,
      counters: memoryCounters(),
      webSessions: memoryWebSessions(),
      instances: async (): Promise<readonly InstanceInfo[]> => [
        { id: self.id, version: self.version, startedAt, lastSeen: new Date().toISOString() },
      ],
      // The file is this process's own: there is nobody to fall silent.
      health: () => ({ kind: 'live' }),
      sharedKey: (name) => {
        let k = keys.get(name);
        if (!k) keys.set(name, (k = loadKey ? loadKey(name) : Promise.resolve(new Uint8Array(randomBytes(32)))));
        return k;
      },
      sawQuota: (q) => {
        seen = q;
      },
      quota: () => seen,
      close: async () => undefined,
    },
  };
}
