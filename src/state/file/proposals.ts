// The file adapter of the proposal store: one file per proposal, `proposals/<id>.json` in the state dir, written
// (temp file, fsync, rename, fsync dir) before the change is acknowledged. One file per record, and one write queue
// per perimeter, so a change costs one record's write whatever other perimeters stored (issue 19: a single
// `proposals.json` rewritten on every change let one perimeter's create-and-cancel loop slow every other one). All
// records stay in memory for reads; the store's bounds (`admitProposal`) keep each perimeter's share finite.
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/v4';
import {
  admitProposal,
  DEFAULT_PROPOSAL_BOUNDS,
  fail,
  ok,
  Proposal,
  sizeOf,
  type ProposalBounds,
  type Result,
  type StoredSize,
} from '../../core/index.js';
import type { InsertOutcome, ProposalStore } from '../proposals.js';
import { readStateFile, removeDurably, writeAtomic } from './atomic.js';

const DIR = 'proposals';
/** The single file of earlier versions: split into one file per proposal at the first start, then removed. */
const LEGACY_FILE = 'proposals.json';
const LegacyFile = z.strictObject({ version: z.literal(1), proposals: z.array(Proposal) });

/** Newest first, ties by id so the order never depends on insertion. */
const newestFirst = (a: Proposal, b: Proposal) =>
  a.created_at === b.created_at ? a.id.localeCompare(b.id) : a.created_at < b.created_at ? 1 : -1;

/**
 * Opens the store in `stateDir` (created 0700), or in memory when undefined. A file that does not parse is an error,
 * never an empty start: forgetting a pending or applying proposal would lose a decision or hide a half-done write.
 */
export async function openFileProposalStore(
  stateDir: string | undefined,
  bounds: ProposalBounds = DEFAULT_PROPOSAL_BOUNDS,
): Promise<Result<ProposalStore, 'corrupt_state'>> {
  const all = new Map<string, Proposal>();
  const sizes = new Map<string, StoredSize>();
  const byPerimeter = new Map<string, Set<string>>();
  const remember = (p: Proposal): void => {
    all.set(p.id, p);
    sizes.set(p.id, sizeOf(p));
    let ids = byPerimeter.get(p.perimeter);
    if (ids === undefined) byPerimeter.set(p.perimeter, (ids = new Set()));
    ids.add(p.id);
  };
  const forget = (id: string): void => {
    const p = all.get(id);
    if (p === undefined) return;
    all.delete(id);
    sizes.delete(id);
    byPerimeter.get(p.perimeter)?.delete(id);
  };

  const dir = stateDir === undefined ? undefined : join(stateDir, DIR);
  const fileOf = (id: string): string | undefined => (dir === undefined ? undefined : join(dir, `${id}.json`));
  if (stateDir !== undefined && dir !== undefined) {
    const loaded = await load(stateDir, dir);
    if (!loaded.ok) return loaded;
    for (const p of loaded.value) remember(p);
  }

  const queues = new Map<string, Promise<unknown>>();
  /** Runs `fn` after every earlier change of the same perimeter (other perimeters do not wait). */
  const serial = <T>(perimeter: string, fn: () => Promise<T>): Promise<T> => {
    const run = (queues.get(perimeter) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    queues.set(perimeter, tail);
    void tail.then(() => {
      if (queues.get(perimeter) === tail) queues.delete(perimeter);
    });
    return run;
  };
  const mine = (perimeter: string): Proposal[] =>
    [...(byPerimeter.get(perimeter) ?? [])].map((id) => all.get(id)).filter((p): p is Proposal => p !== undefined);
  const byKey = (perimeter: string, kind: string, key: string) =>
    mine(perimeter).find((p) => p.change.kind === kind && p.idempotency_key === key);
  // The folder is made at the first write, not at open: a start that fails before it serves (a port in use) leaves a
  // fresh state dir uncreated.
  let made = false;
  const store = async (p: Proposal): Promise<void> => {
    const file = fileOf(p.id);
    if (file === undefined || dir === undefined || stateDir === undefined) return;
    if (!made) {
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      made = true;
    }
    await writeAtomic(file, JSON.stringify(p, null, 2) + '\n');
  };

  return ok({
    list: async (filter = {}) =>
      (filter.perimeter === undefined ? [...all.values()] : mine(filter.perimeter))
        .filter(
          (p) =>
            (filter.status === undefined || p.status === filter.status) &&
            (filter.repo === undefined || p.repo === filter.repo) &&
            (filter.branch === undefined || p.branch === filter.branch),
        )
        .sort(newestFirst),
    get: async (id) => all.get(id),
    // One process per state dir (its lock): whatever is approved or applying at start was left by a previous one.
    orphans: async () =>
      [...all.values()]
        .filter((p) => p.status === 'approved' || p.status === 'applying')
        .sort((a, b) => newestFirst(b, a)),
    findByKey: async (perimeter, kind, key) => byKey(perimeter, kind, key),
    insert: (p) =>
      serial(p.perimeter, async (): Promise<InsertOutcome> => {
        const prior =
          p.idempotency_key === undefined ? undefined : byKey(p.perimeter, p.change.kind, p.idempotency_key);
        if (prior !== undefined) return { kind: 'existing', proposal: prior };
        if (all.has(p.id)) throw new Error(`proposal id collision: ${p.id}`);
        const stored = Proposal.parse(p);
        const stock = [...(byPerimeter.get(p.perimeter) ?? [])]
          .map((id) => sizes.get(id))
          .filter((s): s is StoredSize => s !== undefined);
        const admission = admitProposal(stock, sizeOf(stored), bounds);
        if (admission.kind === 'refuse') return { kind: 'refused', message: admission.message };
        // The new record first: once it is on disk the agent may be told; a crash before the deletions leaves the
        // perimeter a few records over its bound until its next insert.
        await store(stored);
        const gone = admission.evict.map(fileOf).filter((f): f is string => f !== undefined);
        if (gone.length > 0) await removeDurably(gone);
        for (const id of admission.evict) forget(id);
        remember(stored);
        return { kind: 'created', proposal: stored };
      }),
    transition: (id, from, mutate) => {
      const perimeter = all.get(id)?.perimeter;
      if (perimeter === undefined) return Promise.resolve(fail('not_found' as const, `No proposal "${id}".`));
      return serial(perimeter, async (): Promise<Result<Proposal, 'not_found' | 'conflict'>> => {
        // Read again inside the queue: an insert may have evicted it, or another transition moved it, meanwhile.
        const current = all.get(id);
        if (current === undefined) return fail('not_found', `No proposal "${id}".`);
        if (!from.includes(current.status)) return fail('conflict', `Proposal "${id}" is ${current.status}.`);
        const moved = Proposal.parse(mutate(current));
        if (moved.id !== id || moved.perimeter !== current.perimeter)
          throw new Error(`a transition may not change a proposal's id or perimeter (${id})`);
        await store(moved);
        remember(moved);
        return ok(moved);
      });
    },
  });
}

/**
 * Reads every record of `dir`, after splitting a legacy `proposals.json` into it (idempotent: a crash mid-way redoes
 * it from the legacy file, which is removed last). Temp files a crash left behind are removed.
 */
async function load(stateDir: string, dir: string): Promise<Result<Proposal[], 'corrupt_state'>> {
  const legacyFile = join(stateDir, LEGACY_FILE);
  const legacy = await readStateFile(legacyFile, LegacyFile, 'Proposal file');
  if (!legacy.ok) return legacy;
  if (legacy.value !== undefined) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (const p of legacy.value.proposals)
      await writeAtomic(join(dir, `${p.id}.json`), JSON.stringify(p, null, 2) + '\n');
    await removeDurably([legacyFile]);
  }
  const out: Proposal[] = [];
  const stale: string[] = [];
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  for (const name of names.sort()) {
    const file = join(dir, name);
    if (name.endsWith('.tmp')) {
      stale.push(file);
      continue;
    }
    if (!name.endsWith('.json')) continue;
    const read = await readStateFile(file, Proposal, 'Proposal file');
    if (!read.ok) return read;
    if (read.value === undefined) continue;
    if (`${read.value.id}.json` !== name)
      return fail(
        'corrupt_state',
        `Proposal file ${file} holds proposal ${read.value.id}. Restore it or move it away.`,
      );
    out.push(read.value);
  }
  if (stale.length > 0) await removeDurably(stale);
  return ok(out);
}
