// The name a ledger carries in the store's copy (issue 21): created once beside the ledger and kept across restarts,
// since a restart continues the same chain. (The heartbeat's instance id changes with every process; this does not.)
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** Reads `<dir>/instance` or creates it as `<hostname>-<8 hex>`; concurrent creators end up with the same name. */
export async function loadOrCreateInstanceId(dir: string, fileName = 'instance'): Promise<string> {
  const path = join(dir, fileName);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The host name is for the operator reading a merged query; the random tail keeps two ledgers of one host apart.
  const host =
    hostname()
      .replace(/[^A-Za-z0-9.-]/g, '-')
      .slice(0, 64) || 'host';
  try {
    await writeFile(path, `${host}-${randomBytes(4).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (let attempt = 0; ; attempt++) {
    const id = (await readFile(path, 'utf8')).trim();
    if (NAME.test(id)) return id;
    // An empty file is another creator caught mid-write; anything else is damage, refused rather than guessed.
    if (id !== '' || attempt >= 5)
      throw new Error(`audit: ${path} does not hold a ledger name ([A-Za-z0-9._-], at most 128)`);
    await sleep(20);
  }
}
