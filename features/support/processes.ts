// Real child processes for the acceptance suite: the `git-blinder serve` server and one-shot CLI commands.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The installed entry point, exactly as an operator runs it (it imports the built dist/). */
export const BIN = fileURLToPath(new URL('../../bin/git-blinder', import.meta.url));

/** The environment of every child: the caller's, minus anything that would leak a token or a server URL in. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env))
    if (k === 'GITHUB_TOKEN' || k === 'GITHUB_API_URL' || k.startsWith('GIT_BLINDER_')) delete env[k];
  return { ...env, ...extra };
}

/** A running `git-blinder serve` with everything it printed. */
export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  stop(): Promise<void>;
}

/** Starts `git-blinder serve --port 0 …` and resolves once it prints its URL. */
export async function startServer(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`server did not start within ${opts.timeoutMs ?? 30_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
        ),
      opts.timeoutMs ?? 30_000,
    );
    child.stdout.on('data', (d: string) => {
      stdout += d;
      const m = /git-blinder \S+ listening on (http:\/\/\S+)/.exec(stdout);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)} before listening\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  }).catch(async (e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  let stopped: Promise<void> | undefined;
  return {
    url,
    child,
    output: () => ({ stdout, stderr }),
    stop: () => {
      stopped ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(t);
      })();
      return stopped;
    },
  };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one CLI command to completion (killed after `timeoutMs`). */
export function runCli(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; track?: (c: ChildProcess) => void },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    opts.track?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout += d));
    child.stderr.on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}
