import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomic } from '../registry/store.js';
import { OPS_TOKEN_FILE } from './paths.js';

/**
 * The server's ops token: explicit flag/env, else the GitHub token (the spec's V0 behaviour), else one generated at
 * first start and kept 0600 in the state dir so the CLI on the same machine finds it without being told.
 */
export async function resolveServeOpsToken(o: { opsToken?: string | undefined; githubToken?: string | undefined; stateDir: string }): Promise<{ token: string; source: string }> {
  if (o.opsToken) return { token: o.opsToken, source: 'flag or GIT_BLINDER_OPS_TOKEN' };
  if (o.githubToken) return { token: o.githubToken, source: 'the GitHub token' };
  const file = join(o.stateDir, OPS_TOKEN_FILE);
  const existing = await readStored(o.stateDir);
  if (existing) return { token: existing, source: file };
  const token = `gbo_${randomBytes(24).toString('base64url')}`;
  await writeAtomic(file, `${token}\n`, 0o600);
  return { token, source: `${file} (generated)` };
}

/** The token stored in the state dir, if any. */
export async function readStored(stateDir: string): Promise<string | undefined> {
  try {
    const t = (await readFile(join(stateDir, OPS_TOKEN_FILE), 'utf8')).trim();
    return t === '' ? undefined : t;
  } catch {
    return undefined;
  }
}
