// Presence for one process: notes and leases in memory, on this process's clock. A restart forgets both (an agent's
// lease ends with the server it was taken on; SPEC says so).
import { randomBytes } from 'node:crypto';
import { ACTIVITY_KEEP_MS, ACTIVITY_MAX_PER_PERIMETER } from '../../core/index.js';
import type { ActivityEntry, Lease, PresenceStore } from '../presence.js';

/** A fresh lease id: random, so one says nothing about another. */
export const leaseId = (): string => `ls_${randomBytes(12).toString('hex')}`;

export function memoryPresence(now: () => number = Date.now): PresenceStore {
  const notes = new Map<string, ActivityEntry[]>(); // by repo, oldest first
  let leases: Lease[] = [];
  const live = (l: Lease): boolean => Date.parse(l.expiresAt) > now();
  // Notes older than the keep time go, and each perimeter keeps its newest `wrote` notes on a repository up to the
  // `keep` its latest note carried (its write budget; `seen` notes replace each other and are not counted).
  const prune = (list: ActivityEntry[]): ActivityEntry[] => {
    const cut = now() - ACTIVITY_KEEP_MS;
    const keepOf = new Map<string, number>();
    const per = new Map<string, number>();
    const kept: ActivityEntry[] = [];
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i];
      if (e === undefined || Date.parse(e.at) <= cut) continue;
      if (e.kind === 'wrote') {
        // The newest note of a perimeter (met first, walking back) carries its current budget.
        let keep = keepOf.get(e.perimeter);
        if (keep === undefined) keepOf.set(e.perimeter, (keep = e.keep ?? ACTIVITY_MAX_PER_PERIMETER));
        const n = per.get(e.perimeter) ?? 0;
        if (n >= keep) continue;
        per.set(e.perimeter, n + 1);
      }
      kept.push(e);
    }
    return kept.reverse();
  };
  return {
    async note(n) {
      let list = notes.get(n.repo) ?? [];
      if (n.kind === 'seen')
        list = list.filter(
          (e) => !(e.kind === 'seen' && e.perimeter === n.perimeter && e.agent === n.agent && e.branch === n.branch),
        );
      list.push({ ...n, paths: [...n.paths], at: new Date(now()).toISOString() });
      notes.set(n.repo, prune(list));
    },
    async recent(repo, branch, windowMs) {
      const cut = now() - windowMs;
      // A note's `keep` is its perimeter's budget (operator configuration): it stays in the store.
      return (notes.get(repo) ?? [])
        .filter((e) => e.branch === branch && Date.parse(e.at) > cut)
        .map(({ keep: _keep, ...e }) => e)
        .reverse();
    },
    async acquire(r) {
      leases = leases.filter(live);
      const held = leases.filter((l) => l.perimeter === r.perimeter && l.agent === r.agent).length;
      if (held >= r.maxPerAgent) return { kind: 'limit', held };
      const lease: Lease = {
        id: leaseId(),
        perimeter: r.perimeter,
        agent: r.agent,
        repo: r.repo,
        branch: r.branch,
        patterns: [...r.patterns],
        write: [...r.write],
        expiresAt: new Date(now() + r.ttlSeconds * 1000).toISOString(),
      };
      leases.push(lease);
      return { kind: 'acquired', lease };
    },
    async release(id, perimeter, agent) {
      const before = leases.length;
      leases = leases.filter((l) => !(l.id === id && l.perimeter === perimeter && l.agent === agent && live(l)));
      return leases.length < before;
    },
    async leases(repo, branch) {
      leases = leases.filter(live);
      return leases.filter((l) => l.repo === repo && l.branch === branch);
    },
    async drop(perimeter, agent) {
      leases = leases.filter((l) => !(l.perimeter === perimeter && (agent === undefined || l.agent === agent)));
    },
  };
}
