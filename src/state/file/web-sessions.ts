// Web sessions of one process, in memory: the file adapter serves one instance, and a restart signs browsers out.
import type { WebSessionLimits, WebSessionStore } from '../types.js';

/** The sessions of this process; the clock is passed in so expiry is testable without waiting. */
export function memoryWebSessions(now: () => number = Date.now): WebSessionStore {
  const byHash = new Map<string, { created: number; lastSeen: number }>();
  const expired = (s: { created: number; lastSeen: number }, l: WebSessionLimits, t: number) =>
    t - s.lastSeen > l.idleMs || t - s.created > l.maxAgeMs;
  const sweep = (l: WebSessionLimits) => {
    const t = now();
    for (const [h, s] of byHash) if (expired(s, l, t)) byHash.delete(h);
  };
  return {
    async create(idHash, l) {
      sweep(l);
      while (byHash.size >= l.max) {
        const oldest = [...byHash].sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
        if (!oldest) break;
        byHash.delete(oldest[0]);
      }
      const t = now();
      byHash.set(idHash, { created: t, lastSeen: t });
    },
    async touch(idHash, l) {
      const s = byHash.get(idHash);
      if (!s) return false;
      const t = now();
      if (expired(s, l, t)) {
        byHash.delete(idHash);
        return false;
      }
      s.lastSeen = t;
      return true;
    },
    async destroy(idHash) {
      byHash.delete(idHash);
    },
    async count(l) {
      sweep(l);
      return byHash.size;
    },
  };
}
