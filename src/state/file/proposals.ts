// The file adapter of the proposal store: all proposals in memory, written through to `proposals.json` in the state
// dir on every change (temp file, fsync, rename, fsync dir) before the change is acknowledged.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/v4';
import { fail, ok, Proposal, type Result } from '../../core/index.js';
import type { ProposalStore } from '../proposals.js';
import { readStateFile, writeAtomic } from './atomic.js';

const STATE_FILE = 'proposals.json';
const StateFile = z.strictObject({ version: z.literal(1), proposals: z.array(Proposal) });

/** Newest first, ties by id so the order never depends on insertion. */
const newestFirst = (a: Proposal, b: Proposal) => (a.created_at === b.created_at ? a.id.localeCompare(b.id) : a.created_at < b.created_at ? 1 : -1);

/**
 * Opens the store in `stateDir` (created 0700), or in memory when undefined. A file that does not parse is an error,
 * never an empty start: forgetting a pending or applying proposal would lose a decision or hide a half-done write.
 */
export async function openFileProposalStore(stateDir: string | undefined): Promise<Result<ProposalStore, 'corrupt_state'>> {
  const all = new Map<string, Proposal>();
  const file = stateDir === undefined ? undefined : join(stateDir, STATE_FILE);
  if (stateDir !== undefined && file !== undefined) {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const read = await readStateFile(file, StateFile, 'Proposal file');
    if (!read.ok) return read;
    for (const p of read.value?.proposals ?? []) all.set(p.id, p);
  }

  let queue: Promise<unknown> = Promise.resolve();
  /** Serialized read-modify-write on a copy; memory changes only once the copy is on disk. */
  const change = <T>(mutate: (next: Map<string, Proposal>) => { write: boolean; value: T }): Promise<T> => {
    const run = queue.then(async () => {
      const next = new Map(all);
      const { write, value } = mutate(next);
      if (!write) return value;
      if (file !== undefined) await writeAtomic(file, JSON.stringify({ version: 1, proposals: [...next.values()] }, null, 2) + '\n');
      all.clear();
      for (const [k, v] of next) all.set(k, v);
      return value;
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const byKey = (map: Map<string, Proposal>, perimeter: string, kind: string, key: string) =>
    [...map.values()].find((p) => p.perimeter === perimeter && p.change.kind === kind && p.idempotency_key === key);

  return ok({
    list: async (filter = {}) =>
      [...all.values()]
        .filter((p) => (filter.perimeter === undefined || p.perimeter === filter.perimeter) && (filter.status === undefined || p.status === filter.status))
        .sort(newestFirst),
    get: async (id) => all.get(id),
    findByKey: async (perimeter, kind, key) => byKey(all, perimeter, kind, key),
    insert: (p) =>
      change<{ created: boolean; proposal: Proposal }>((next) => {
        const prior = p.idempotency_key === undefined ? undefined : byKey(next, p.perimeter, p.change.kind, p.idempotency_key);
        if (prior !== undefined) return { write: false, value: { created: false, proposal: prior } };
        if (next.has(p.id)) throw new Error(`proposal id collision: ${p.id}`);
        next.set(p.id, p);
        return { write: true, value: { created: true, proposal: p } };
      }),
    transition: (id, from, mutate) =>
      change<Result<Proposal, 'not_found' | 'conflict'>>((next) => {
        const current = next.get(id);
        if (current === undefined) return { write: false, value: fail('not_found', `No proposal "${id}".`) };
        if (!from.includes(current.status)) return { write: false, value: fail('conflict', `Proposal "${id}" is ${current.status}.`) };
        const moved = Proposal.parse(mutate(current));
        next.set(id, moved);
        return { write: true, value: ok(moved) };
      }),
  });
}

