// Issue 21 §4, "writes to a checked-out branch from several processes": instances of the BUILT server (`npm run build`
// first) on one real PostgreSQL, all serving one repository whose `main` is checked out in its working tree. Each
// write holds the branch through a PostgreSQL advisory lock, so concurrent pushes through different instances land
// one after the other (or are refused in words), the working tree follows the branch, and a holder killed with
// SIGKILL mid-write releases the lock with its session: the others go on.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANCH_LOCK } from '../../src/state/postgres/branch-lock.js';
import {
  api,
  modernAgent,
  startInstance,
  startInstances,
  stopInstance,
  stopInstances,
  type Instance,
} from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const run = promisify(execFile);

let pgs: SharedPostgres;
let store: string;
let repo: GitDir;
let dir: string;
let config: string;
let key: string;
const inst: Instance[] = [];

beforeAll(async () => {
  pgs = await sharedPostgres();
  store = await pgs.database('issue21lock');
  // Not bare: `main` is checked out in repo.dir, and every landed push must move that working tree with it.
  repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n' } }]);
  dir = await mkdtemp(join(tmpdir(), 'gb-lock-'));
  config = join(dir, 'perimeters.yaml');
  await writeFile(
    config,
    ['perimeters:', '  docs:', `    repo: ${repo.dir}`, '    read: ["docs/**"]', '    write: ["docs/**"]', ''].join(
      '\n',
    ),
  );
  await startInstances(3, { store, config, cwd: repo.dir, args: ['--store-silence', '3'] }, inst);
  const issued = await api(inst[0]!.url, 'POST', '/perimeters/docs/keys');
  expect(issued.status).toBe(201);
  key = issued.json.key;
}, 120_000);

afterAll(async () => {
  await stopInstances(inst);
  await repo?.cleanup();
  await pgs?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const git = async (...args: string[]) => (await run('git', ['-C', repo.dir, ...args])).stdout;

/** A push of one new file through instance `i`; the agent's answer. */
async function push(i: Instance, name: string) {
  const a = await modernAgent(i.url, '/mcp/docs', key);
  try {
    return await a.call('push_files', {
      message: `push ${name}`,
      files: [{ path: `docs/${name}.md`, content: `${name}\n` }],
    });
  } finally {
    await a.close().catch(() => undefined);
  }
}

/** Landed pushes are on main once, in HEAD and in the working tree; refusals say what to do. */
async function checkLanded(results: { name: string; r: Awaited<ReturnType<typeof push>> }[]): Promise<string[]> {
  const landed: string[] = [];
  for (const { name, r } of results) {
    if (!r.isError && !r.thrown) landed.push(name);
    else expect(r.text, r.thrown).toMatch(/retry|try again/i);
  }
  const log = (await git('log', '--format=%s', 'main')).split('\n');
  for (const name of landed) {
    expect(log.filter((s) => s === `push ${name}`)).toHaveLength(1);
    expect(await readFile(join(repo.dir, 'docs', `${name}.md`), 'utf8')).toBe(`${name}\n`);
  }
  return landed;
}

describe('one checked-out branch written through several instances', () => {
  it('lands 12 concurrent pushes through three instances; the working tree stays clean and git fsck passes', async () => {
    const names = Array.from({ length: 12 }, (_, n) => `c${n}`);
    const results = await Promise.all(names.map(async (name, n) => ({ name, r: await push(inst[n % 3]!, name) })));
    const landed = await checkLanded(results);
    // Nothing here is refused: the lock queues writers, it does not race them.
    expect(landed).toHaveLength(12);
    expect(await git('status', '--porcelain')).toBe('');
    await git('fsck', '--strict', '--no-progress');
  }, 90_000);

  it('a holder killed mid-write (SIGKILL) does not block the others', async () => {
    const doomed = await startInstance({ store, config, cwd: repo.dir, args: ['--store-silence', '3'] });
    const pid = doomed.process.child.pid!;
    const watch = new pg.Client({ connectionString: store });
    await watch.connect();
    let killedHolding = false;
    try {
      // The doomed instance pushes in a loop; the moment PostgreSQL shows it holding the branch lock, it is killed.
      let n = 0;
      const loop = (async () => {
        for (;;) {
          const r = await push(doomed, `d${n++}`).catch(() => undefined);
          if (r === undefined || r.thrown) return;
        }
      })();
      const t0 = Date.now();
      while (!killedHolding && Date.now() - t0 < 20_000) {
        const held = await watch.query(
          `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.classid = $1 AND l.granted AND a.application_name LIKE $2`,
          [BRANCH_LOCK, `%-${pid}-%`],
        );
        if (held.rowCount) {
          doomed.process.child.kill('SIGKILL');
          killedHolding = true;
        }
      }
      await loop;
      expect(killedHolding).toBe(true);
      // The others write at once: PostgreSQL released the dead session's lock, nobody waits out a timeout.
      const t1 = Date.now();
      const results = await Promise.all(
        ['k0', 'k1', 'k2', 'k3'].map(async (name, i) => ({ name, r: await push(inst[i % 3]!, name) })),
      );
      expect(await checkLanded(results)).toHaveLength(4);
      expect(Date.now() - t1).toBeLessThan(15_000);
      // The killed write is all or nothing for the branch; at most its own file can be left in the working tree
      // (git processes it had started finish without it), nothing of anyone else's.
      const status = (await git('status', '--porcelain')).split('\n').filter((l) => l !== '');
      for (const line of status) expect(line).toMatch(/docs\/d\d+\.md$/);
      expect(status.length).toBeLessThanOrEqual(1);
      await git('fsck', '--strict', '--no-progress');
    } finally {
      await watch.end();
      await stopInstance(doomed).catch(() => undefined);
    }
  }, 90_000);
});
