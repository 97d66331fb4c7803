// The one place that spawns one-shot git commands: execFile (never a shell), the hardened flags and environment of
// hardening.ts, raw bytes back, exit codes as data. (The one read of process.env below src/cli: it only forwards PATH.)
import { execFile } from 'node:child_process';
import { HARDENED_CONFIG, hardenedEnv } from './hardening.js';
import { countSpawn } from './spawns.js';

/**
 * What one git invocation produced. `code` is null when git could not run to the end (`spawnError` says why): with
 * `too_large` stdout holds the first `maxBytes` bytes (a caller may serve them as a truncated answer); with `timeout`
 * the process was killed at `timeoutMs`.
 */
export interface GitRun {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly spawnError?: 'missing' | 'too_large' | 'timeout' | 'other';
}

export interface GitCall {
  /** Working directory; reads pass the git dir through `gitDir` instead, so the working tree is never consulted. */
  readonly cwd: string;
  readonly gitDir?: string;
  readonly input?: Buffer | string;
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the process after this long (default: no limit). */
  readonly timeoutMs?: number;
  /** Output ceiling for this call (default MAX_OUTPUT_BYTES). */
  readonly maxBytes?: number;
}

/** Output ceiling for one call; a read above it fails as `too_large` instead of eating memory unbounded. */
export const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** The PATH git is found with: the parent's, forwarded (the only variable git-blinder passes through). */
export function parentPath(): string | undefined {
  return process.env['PATH'];
}

/** The environment of one git process: the hardened base, the call's git dir, then the call's own additions. */
export function callEnv(call: GitCall): Record<string, string> {
  return { ...hardenedEnv(parentPath()), ...(call.gitDir ? { GIT_DIR: call.gitDir } : {}), ...call.env };
}

/** Runs `git <args>`; never throws for a git failure (the exit code is data), only for a broken caller. */
export function runGit(args: readonly string[], call: GitCall): Promise<GitRun> {
  const env = callEnv(call);
  countSpawn(args.find((a) => !a.startsWith('-')) ?? 'git');
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      [...HARDENED_CONFIG, ...args],
      {
        cwd: call.cwd,
        env,
        encoding: 'buffer',
        maxBuffer: call.maxBytes ?? MAX_OUTPUT_BYTES,
        windowsHide: true,
        ...(call.timeoutMs !== undefined ? { timeout: call.timeoutMs, killSignal: 'SIGKILL' as const } : {}),
      },
      (error, stdout, stderr) => {
        const out = Buffer.isBuffer(stdout) ? stdout : Buffer.from(stdout ?? '');
        const err = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : String(stderr ?? '');
        if (!error) return resolve({ code: 0, stdout: out, stderr: err });
        const e = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean; signal?: string | null };
        // The time bound fires as a kill by our signal; git's own exit codes are never signals.
        if (e.killed === true && e.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' && call.timeoutMs !== undefined) {
          return resolve({ code: null, stdout: out, stderr: err, spawnError: 'timeout' });
        }
        if (typeof e.code === 'number') return resolve({ code: e.code, stdout: out, stderr: err });
        if (e.code === 'ENOENT') return resolve({ code: null, stdout: out, stderr: err, spawnError: 'missing' });
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          return resolve({ code: null, stdout: out, stderr: err, spawnError: 'too_large' });
        }
        resolve({ code: null, stdout: out, stderr: err, spawnError: 'other' });
      },
    );
    // EPIPE when git exits before reading all input is reported through the exit code, not here.
    child.stdin?.on('error', () => undefined);
    if (call.input !== undefined) child.stdin?.end(call.input);
    else child.stdin?.end();
  });
}
