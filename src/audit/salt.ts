// The per-ledger salt behind hashed paths: 32 random bytes in a 0600 file of the state directory, created once.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const SALT_BYTES = 32;

/** Reads `<dir>/<fileName>` or creates it with fresh random bytes; concurrent creators end up with the same salt. */
export async function loadOrCreateSalt(dir: string, fileName = 'audit.salt'): Promise<Buffer> {
  const path = join(dir, fileName);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, randomBytes(SALT_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (let attempt = 0; ; attempt++) {
    const salt = await readFile(path);
    if (salt.length === SALT_BYTES) return salt;
    // A short file is another creator caught mid-write (wait) or a damaged salt (refuse rather than hash weakly).
    if (attempt >= 5) throw new Error(`audit: salt file ${path} is not ${SALT_BYTES} bytes`);
    await sleep(20);
  }
}
