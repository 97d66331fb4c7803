import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Writes a file so that a crash leaves either the old or the new content: temp file, fsync, rename, fsync dir. */
export async function writeAtomic(file: string, content: string, mode = 0o600): Promise<void> {
  const dir = join(file, '..');
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fh = await open(tmp, 'w', mode);
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
