// One-shot git commands whose output is consumed as it arrives (git grep): the caller can stop early and a hard time
// bound kills the process. Same hardened flags and environment as runGit; never a shell.
import { spawn } from 'node:child_process';
import { HARDENED_CONFIG } from './hardening.js';
import { callEnv, type GitCall } from './run.js';
import { countSpawn } from './spawns.js';

/** How a streamed git command ended. `stopped`: the consumer asked to stop; `timeout`: the time bound killed it. */
export type StreamEnd =
  | { readonly kind: 'exit'; readonly code: number; readonly stderr: string }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'spawn_error'; readonly missing: boolean };

/** `onData` returns `false` to stop reading (the process is killed). */
export interface StreamCall extends GitCall {
  readonly timeoutMs: number;
  readonly onData: (chunk: Buffer) => boolean;
}

const STDERR_CAP = 16 * 1024;

/** Runs `git <args>`, feeding stdout to `onData` chunk by chunk; never throws for a git failure. */
export function streamGit(args: readonly string[], call: StreamCall): Promise<StreamEnd> {
  const env = callEnv(call);
  countSpawn(args.find((a) => !a.startsWith('-')) ?? 'git');
  return new Promise((resolve) => {
    let settled: StreamEnd | undefined;
    let stderr = '';
    const child = spawn('git', [...HARDENED_CONFIG, ...args], {
      cwd: call.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const finish = (end: StreamEnd): void => {
      settled ??= end;
    };
    const timer = setTimeout(() => {
      finish({ kind: 'timeout' });
      child.kill('SIGKILL');
    }, call.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (settled !== undefined) return;
      if (!call.onData(chunk)) {
        finish({ kind: 'stopped' });
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_CAP) stderr += chunk.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      finish({ kind: 'spawn_error', missing: err.code === 'ENOENT' });
      resolve(settled as StreamEnd);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      finish({ kind: 'exit', code: code ?? -1, stderr: stderr.slice(0, STDERR_CAP) });
      resolve(settled as StreamEnd);
    });
  });
}
