// The built CLI as a child process (bin/git-blinder → dist/), for regression tests about what an operator sees:
// the acceptance suite's process helpers plus a byte-for-byte snapshot of a state dir.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export {
  BIN,
  childEnv,
  runCli,
  startServer,
  type CliResult,
  type ServerProcess,
} from '../../features/support/processes.js';

/** Every file under `dir` with a hash of its bytes; `undefined` when `dir` does not exist. */
export async function snapshot(dir: string): Promise<Record<string, string> | undefined> {
  const out: Record<string, string> = {};
  const walk = async (d: string, rel: string): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[`${r}/`] = 'dir';
        await walk(join(d, e.name), r);
      } else
        out[r] = createHash('sha256')
          .update(await readFile(join(d, e.name)))
          .digest('hex');
    }
    return true;
  };
  return (await walk(dir, '')) ? out : undefined;
}

/** Resolves once `read()` contains `text` (a child's output arrives in chunks), or fails after `ms`. */
export async function waitForText(read: () => string, text: string, ms = 10_000): Promise<string> {
  const end = Date.now() + ms;
  while (!read().includes(text)) {
    if (Date.now() > end) throw new Error(`"${text}" did not appear within ${ms} ms in:\n${read()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return read();
}
