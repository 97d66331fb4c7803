import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { opsTokenTooShort } from '../http/auth.js';
import { writeAtomic } from '../state/file/index.js';
import { CliError } from './client.js';
import { OPS_TOKEN_FILE } from './paths.js';

/** The ops token a server will use, and the write (if any) that makes it findable; nothing is written until `persist`. */
export interface OpsTokenPlan {
  readonly token: string;
  readonly source: string;
  /** Stores a generated token 0600 in the state dir; a no-op for a given or already stored one. */
  persist(): Promise<void>;
}

/** Refuses an ops token shorter than 128 bits (exit 2), naming where it came from and what to do. */
export function checkOpsTokenLength(token: string, from: 'given' | 'github' | 'stored', file?: string): void {
  const short = opsTokenTooShort(token);
  if (short === undefined) return;
  switch (from) {
    case 'given':
      throw new CliError(`The ops token (GIT_BLINDER_OPS_TOKEN or --ops-token-file) ${short}`, 2);
    case 'github':
      throw new CliError(
        `The ops token is the GitHub token here (no ops token was given), and it ${short}. Give an ops token of its own in GIT_BLINDER_OPS_TOKEN or --ops-token-file.`,
        2,
      );
    case 'stored':
      throw new CliError(
        `The ops token stored in ${file ?? 'the state dir'} ${short}. Delete the file to have a new one generated, or give one in GIT_BLINDER_OPS_TOKEN or --ops-token-file.`,
        2,
      );
    default: {
      const never: never = from;
      throw new Error(`unhandled ops token source ${String(never)}`);
    }
  }
}

/**
 * The server's ops token: explicit flag/env, else the GitHub token (the spec's V0 behaviour), else one generated at
 * first start and kept 0600 in the state dir so the CLI on the same machine finds it without being told. Planning
 * reads only: `serve` persists once its port is bound, so a start that fails writes nothing.
 * Any token shorter than 128 bits is refused (a generated one has 192).
 */
export async function planServeOpsToken(o: {
  opsToken?: string | undefined;
  githubToken?: string | undefined;
  stateDir: string;
}): Promise<OpsTokenPlan> {
  const none = async () => undefined;
  if (o.opsToken) {
    checkOpsTokenLength(o.opsToken, 'given');
    return { token: o.opsToken, source: 'GIT_BLINDER_OPS_TOKEN or --ops-token-file', persist: none };
  }
  if (o.githubToken) {
    checkOpsTokenLength(o.githubToken, 'github');
    return { token: o.githubToken, source: 'the GitHub token', persist: none };
  }
  const file = join(o.stateDir, OPS_TOKEN_FILE);
  const existing = await readStored(o.stateDir);
  if (existing) {
    checkOpsTokenLength(existing, 'stored', file);
    return { token: existing, source: file, persist: none };
  }
  const token = `gbo_${randomBytes(24).toString('base64url')}`;
  return { token, source: `${file} (generated)`, persist: () => writeAtomic(file, `${token}\n`, 0o600) };
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
