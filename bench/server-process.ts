// The real server as a child process (`node bin/git-blinder serve …`), so its memory is measured alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Resident set size now, in KB (VmRSS). */
  rssKb(): number;
  /** Peak resident set size so far, in KB (VmHWM). */
  peakKb(): number;
  stop(): Promise<void>;
}

function statusField(pid: number, field: string): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Starts `bin/git-blinder serve` with `args` and resolves once it prints its URL. */
export async function startServerProcess(args: readonly string[]): Promise<ServerProcess> {
  const bin = new URL('../bin/git-blinder', import.meta.url).pathname;
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  child.stdout?.resume();
  const pid = child.pid as number;
  return {
    url,
    pid,
    rssKb: () => statusField(pid, 'VmRSS'),
    peakKb: () => statusField(pid, 'VmHWM'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}
