import { open } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import { CliError } from './client.js';

// Secrets never travel as flag values: argv is world-readable (`ps`, /proc/<pid>/cmdline) for the life of the process,
// and the README tells operators to run agents as another local user. A secret comes from the environment (readable
// only by the process's own user) or from a file only its owner can read.

/** The longest secret file read (a token or a store URL is far shorter; anything bigger is the wrong file). */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** How one secret may be given: its flag (refused), its file flag, and the variable(s) that carry it. */
export interface SecretSource {
  readonly flag: string;
  readonly fileFlag: string;
  readonly env: string;
}

/** The GitHub token `serve` holds. */
export const GITHUB_TOKEN: SecretSource = { flag: '--token', fileFlag: '--token-file', env: 'GITHUB_TOKEN' };
/** The ops token `serve` checks. */
export const SERVE_OPS_TOKEN: SecretSource = {
  flag: '--ops-token',
  fileFlag: '--ops-token-file',
  env: 'GIT_BLINDER_OPS_TOKEN',
};
/** The shared store URL (it may carry a password). */
export const STORE_URL: SecretSource = { flag: '--store', fileFlag: '--store-file', env: 'GIT_BLINDER_STORE' };
/** The ops token an operator command sends. */
export const CLIENT_OPS_TOKEN: SecretSource = {
  flag: '--token',
  fileFlag: '--token-file',
  env: 'GIT_BLINDER_OPS_TOKEN',
};
/** The agent key the stdio bridge sends. */
export const AGENT_KEY: SecretSource = { flag: '--key', fileFlag: '--key-file', env: 'GIT_BLINDER_AGENT_KEY' };

/** The sentence that replaces a secret given as a flag value: where the secret goes instead. */
export function onCommandLine(s: SecretSource, what: string): string {
  return (
    `${s.flag} would put ${what} in the process list (ps, /proc/<pid>/cmdline), readable by every local user. ` +
    `Set ${s.env} instead, or put it in a file only you can read and pass ${s.fileFlag} <file> (chmod 600 <file>).`
  );
}

/**
 * Reads a secret from a file that only its owner can read: a regular file (symlinks are followed), owned by this
 * user, no group or other permission bits, at most 64 KiB. One trailing newline is dropped (`echo x > f` writes one).
 * The checks run on the opened file, so a swap between check and read cannot pass another file.
 */
export async function readSecretFile(fileFlag: string, path: string): Promise<string> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(
      `${fileFlag}: cannot read ${path} (${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)}).`,
      2,
    );
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new CliError(`${fileFlag}: ${path} is not a regular file.`, 2);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new CliError(
        `${fileFlag}: ${path} belongs to uid ${st.uid}, not to this user (uid ${uid}); a secret file must be your own (chown it, chmod 600).`,
        2,
      );
    }
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new CliError(
        `${fileFlag}: ${path} is readable or writable by others (mode ${mode.toString(8).padStart(4, '0')}); run: chmod 600 ${path}`,
        2,
      );
    }
    if (st.size > MAX_SECRET_FILE_BYTES)
      throw new CliError(`${fileFlag}: ${path} is ${st.size} bytes; a secret file holds one line.`, 2);
    const text = (await fh.readFile('utf8')).replace(/\r?\n$/, '');
    if (text === '') throw new CliError(`${fileFlag}: ${path} is empty.`, 2);
    return text;
  } finally {
    await fh.close();
  }
}

/**
 * A secret from its file flag, else from its variable, checked by `check` (given the name to quote: the file or the
 * variable, never the value); undefined when neither is set. A bad value is a usage error (exit 2).
 */
export async function secretFrom(
  s: SecretSource,
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  check: (name: string) => (v: string) => string,
): Promise<string | undefined> {
  const given =
    file !== undefined
      ? { name: `${s.fileFlag} ${file}`, value: await readSecretFile(s.fileFlag, file) }
      : env[s.env] !== undefined
        ? { name: s.env, value: env[s.env] ?? '' }
        : undefined;
  if (given === undefined) return undefined;
  try {
    return check(given.name)(given.value);
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw new CliError(e.message, 2);
    throw e;
  }
}
