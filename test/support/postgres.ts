// A real PostgreSQL server for tests: Debian's binaries, a fresh cluster in a temp dir, trust auth on a free loopback
// port, run as the `postgres` user when we are root (initdb refuses root). stop()/start() keep the data, so a test
// can take the database away and bring it back; destroy() stops it and removes the cluster.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

const run = promisify(execFile);

export interface TestPostgres {
  readonly url: string;
  readonly port: number;
  /** A fresh database on this server (one per test file keeps suites apart). */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** The newest installed server's bin dir, or undefined (then the PostgreSQL tests are skipped with a reason). */
export async function postgresBin(): Promise<string | undefined> {
  try {
    const majors = (await readdir('/usr/lib/postgresql'))
      .filter((d) => /^\d+$/.test(d))
      .sort((a, b) => Number(b) - Number(a));
    return majors[0] === undefined ? undefined : `/usr/lib/postgresql/${majors[0]}/bin`;
  } catch {
    return undefined;
  }
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
/** The command line, dropped to the postgres user when running as root. */
const as = (cmd: string, args: string[]): [string, string[]] =>
  asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];

async function waitReady(url: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.end();
      return;
    } catch (e) {
      await c.end().catch(() => undefined);
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Starts a throwaway cluster. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = await postgresBin();
  if (!bin)
    throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql).');
  const dir = await mkdtemp(join(tmpdir(), 'gb-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: g } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(g.trim()));
  }
  const data = join(dir, 'data');
  const [c, a] = as(join(bin, 'initdb'), ['-D', data, '-U', 'gb', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  await run(c, a);
  const port = await freePort();
  const url = `postgres://gb@127.0.0.1:${port}/postgres`;
  let proc: ChildProcess | undefined;
  const start = async () => {
    const [cmd, args] = as(join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ]);
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    proc = p;
    try {
      await waitReady(url);
    } catch (e) {
      throw new Error(`postgres did not start: ${(e as Error).message}\n${err}`);
    }
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    const [cmd, args] = as(join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'fast', '-w']);
    await run(cmd, args).catch(() => p.kill('SIGTERM'));
    if (p.exitCode === null) await new Promise((r) => p.once('exit', r));
  };
  await start();
  return {
    url,
    port,
    async database(name) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      return `postgres://gb@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
