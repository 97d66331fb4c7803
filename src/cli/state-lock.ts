import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, ok, type Result } from '../core/index.js';

/**
 * Exclusive use of a state dir by one server process. The file store is single-writer: two servers on one dir
 * would overwrite each other's perimeters. The scale-out work replaces the file store with a shared one; it then
 * provides its own `StateLock` (or a no-op one), so nothing above this interface knows it is a pid file.
 */
export interface StateLock {
  /** Gives the dir up; idempotent. */
  release(): Promise<void>;
}

export type LockRefusal = 'in_use';

export const LOCK_FILE = 'serve.pid';
const RECOVERY_FILE = 'serve.pid.recover';

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holder(file: string): Promise<number | undefined> {
  try {
    const n = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Creates `file` holding our pid, failing with EEXIST if it is there (`wx`: create-exclusive, atomic on local fs). */
async function create(file: string): Promise<boolean> {
  try {
    const fh = await open(file, 'wx', 0o600);
    try {
      await fh.writeFile(`${process.pid}\n`);
    } finally {
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/**
 * Takes the state dir's pid-file lock. A lock whose pid is dead (a crash, a kill -9) is recovered; the recovery itself
 * is guarded by a second create-exclusive file, so two servers recovering at once cannot both delete and both win.
 * A pid file that is empty or unreadable counts as held: it may be a server between `open` and `write`.
 */
export async function acquireStateLock(dir: string): Promise<Result<StateLock, LockRefusal>> {
  const file = join(dir, LOCK_FILE);
  const recovery = join(dir, RECOVERY_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await create(file)) {
      let released = false;
      return ok({
        release: async () => {
          if (released) return;
          released = true;
          // Only remove the file while it is still ours.
          if ((await holder(file)) === process.pid) await rm(file, { force: true });
        },
      });
    }
    const pid = await holder(file);
    if (pid === undefined || pid === process.pid || alive(pid)) {
      return fail(
        'in_use',
        `State dir ${dir} is in use by process ${pid ?? '(unknown: the lock file is empty)'}. Stop it, or give this server its own --state-dir. (Lock: ${file})`,
      );
    }
    if (!(await create(recovery))) {
      // Someone else is recovering, or crashed while doing so: drop a dead recoverer's file, then try again.
      const r = await holder(recovery);
      if (r !== undefined && !alive(r)) await rm(recovery, { force: true });
      await new Promise((res) => setTimeout(res, 50));
      continue;
    }
    try {
      // Re-read under the recovery file: the stale holder may have been replaced by a live server meanwhile.
      if ((await holder(file)) === pid) await rm(file, { force: true });
    } finally {
      await rm(recovery, { force: true });
    }
  }
  const pid = await holder(file);
  return fail(
    'in_use',
    `State dir ${dir} is in use by process ${pid ?? '(unknown)'}. Stop it, or give this server its own --state-dir. (Lock: ${file})`,
  );
}
