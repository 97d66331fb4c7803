// The real server as a child process (`node bin/git-blinder serve …`), so its memory is measured alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

const newest = (dir: string, ext: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith(ext))
      .map((f) => statSync(join(dir, f)).mtimeMs),
  );

/**
 * Why `dist/` would not run the sources as they are (missing, or older than the newest file under src/), or undefined
 * when it is current: a section that times `bin/git-blinder serve` would otherwise measure an older build unawares.
 */
export function staleBuild(): string | undefined {
  const root = new URL('..', import.meta.url).pathname;
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'cli', 'main.js'))) return 'dist/ is not built: run `npm run build` first';
  return newest(dist, '.js') < newest(join(root, 'src'), '.ts')
    ? 'dist/ is older than src/: run `npm run build` first'
    : undefined;
}

/** Starts `bin/git-blinder serve` with `args` (and `env`: secrets never go in args) and resolves once it prints its URL. */
export function startServerProcess(args: readonly string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const bin = new URL('../bin/git-blinder', import.meta.url).pathname;
  return startListening(process.execPath, [bin, 'serve', ...args], env, /listening on (http:\/\/\S+)/);
}

/**
 * Starts any server process and resolves once `ready` matches its stdout or stderr: the first capture group is its URL
 * (without a group, or without a pattern, `url` is `fallbackUrl`; with no pattern it resolves at once).
 */
export async function startListening(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  ready: RegExp | undefined,
  fallbackUrl = '',
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(command, [...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    // A server that never says it listens is not left behind.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in 60 s: ${stderr}`));
    }, 60_000);
    // No pattern: the caller polls the server itself.
    if (ready === undefined) {
      clearTimeout(timer);
      resolve(fallbackUrl);
    }
    const seen = (d: Buffer) => {
      // Matched before the tail is cut: one chunk can hold the line and more than the kept tail after it (`serve`
      // prints an agent URL per perimeter right after its listening line).
      out += d.toString();
      const m = ready?.exec(out);
      out = out.slice(-8000);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? fallbackUrl);
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
      seen(d);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
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
