// What the figures were measured on: CPU, cores, memory, Node and git versions, load at start.
import { execFileSync } from 'node:child_process';
import { cpus, freemem, loadavg, totalmem, release, platform } from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memory_gb: number;
  readonly free_memory_gb: number;
  readonly os: string;
  readonly node: string;
  readonly git: string;
  readonly loadavg_start: readonly number[];
  readonly started_at: string;
}

/** Describes this machine now. */
export function describeMachine(): Machine {
  const list = cpus();
  let git = 'unknown';
  try {
    git = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    /* git missing: the local sections will fail loudly anyway */
  }
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    free_memory_gb: Math.round((freemem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()}`,
    node: process.version,
    git,
    loadavg_start: loadavg().map((x) => Math.round(x * 100) / 100),
    started_at: new Date().toISOString(),
  };
}
