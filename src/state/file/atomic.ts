import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type * as z from 'zod/v4';
import { describeIssues, fail, ok, type Result } from '../../core/index.js';

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

/**
 * Reads a JSON state file into `schema`: undefined when it does not exist yet, a message naming the file when it does
 * not parse. Never an empty start on a bad file: forgetting what it held would drop an operator's decisions.
 */
export async function readStateFile<T>(
  file: string,
  schema: z.ZodType<T>,
  label: string,
): Promise<Result<T | undefined, 'corrupt_state'>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail(
      'corrupt_state',
      `${label} ${file} is not valid JSON. Restore it from a backup or move it away to start empty.`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return fail(
      'corrupt_state',
      `${label} ${file} is invalid (${describeIssues(parsed.error)}). Restore it or move it away to start empty.`,
    );
  return ok(parsed.data);
}

/** Deletes files (absent ones are fine) and makes the deletions durable: one fsync of each directory involved. */
export async function removeDurably(files: readonly string[]): Promise<void> {
  for (const f of files) await rm(f, { force: true });
  for (const dir of new Set(files.map((f) => join(f, '..')))) {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  }
}
