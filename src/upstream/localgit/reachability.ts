// Whether one commit is reachable from another. Commit ids name their parents, so for a pair of ids the answer never
// changes — as long as git walks the plain commit graph: a shallow file cuts parents off and a grafts file rewrites
// them (replace refs are off for every git we run), and either can come and go. Answers are kept per repository
// only while neither file exists; walks that already went from a head (a history page) answer for the commits they
// listed, so the usual `list_commits` then `get_commit` needs no `merge-base` process.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { runGit, type GitRun } from '../../gitcli/run.js';
import { createLru } from './lru.js';
import type { Repo } from './repo.js';

/** Reachability answers by (commit, head) for one repository, bounded, oldest use dropped first. */
export interface ReachCache {
  /** True when git walks the plain graph now (no `shallow`, no `info/grafts`): only then are answers kept or used. */
  plain(): boolean;
  /** The kept answer for "is `ancestor` reachable from `head`", if any. */
  get(ancestor: string, head: string): boolean | undefined;
  /** Keeps an answer git gave while the graph was plain (checked again here). */
  set(ancestor: string, head: string, value: boolean): void;
  /** Keeps "reachable" for every id a walk from `head` reached (checked again here). */
  reached(head: string, ids: Iterable<string>): void;
}

/** Default bound on kept answers per repository (a key is two ids: ~200 bytes with the map's own cost, ~1 MB). */
const MAX_ANSWERS = 4_096;

/** Creates the cache of the repository whose common git dir is `commonDir` (where shallow and grafts live). */
export function createReachCache(commonDir: string, max = MAX_ANSWERS): ReachCache {
  const kept = createLru<boolean>(max);
  const altered = [join(commonDir, 'shallow'), join(commonDir, 'info', 'grafts')];
  const plain = (): boolean => {
    try {
      return altered.every((p) => statSync(p, { throwIfNoEntry: false }) === undefined);
    } catch {
      return false;
    }
  };
  return {
    plain,
    get: (ancestor, head) => kept.get(`${ancestor} ${head}`),
    set(ancestor, head, value) {
      if (plain()) kept.set(`${ancestor} ${head}`, value);
    },
    reached(head, ids) {
      if (!plain()) return;
      for (const id of ids) if (id !== head) kept.set(`${id} ${head}`, true);
    },
  };
}

/**
 * Whether `ancestor` is reachable from `head` (both full ids of existing commits): from the cache, or by
 * `merge-base --is-ancestor`; the run itself when git answered neither yes nor no (the caller says what that means).
 */
export async function reaches(
  repo: Repo,
  ancestor: string,
  head: string,
): Promise<{ ok: true; value: boolean } | { ok: false; run: GitRun }> {
  if (ancestor === head) return { ok: true, value: true };
  const plain = repo.reach.plain();
  const kept = plain ? repo.reach.get(ancestor, head) : undefined;
  if (kept !== undefined) return { ok: true, value: kept };
  const run = await runGit(['merge-base', '--is-ancestor', ancestor, head], repo.call);
  if (run.code !== 0 && run.code !== 1) return { ok: false, run };
  // Kept only when the graph was plain before git walked and still is after.
  if (plain) repo.reach.set(ancestor, head, run.code === 0);
  return { ok: true, value: run.code === 0 };
}
