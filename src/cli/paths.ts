import { homedir } from 'node:os';
import { join } from 'node:path';

/** The state dir: flag, then GIT_BLINDER_STATE_DIR, then ~/.git-blinder. */
export function stateDirFrom(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? env.GIT_BLINDER_STATE_DIR ?? join(homedir(), '.git-blinder');
}

export const OPS_TOKEN_FILE = 'ops-token';
