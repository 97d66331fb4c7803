// Twin working trees on the adversarial fixture's server (issue 19): two repositories that differ only in what the
// perimeter cannot see, one perimeter (and key) on each, so an attack can ask every workspace tool on both and demand
// the same bytes. Built once per fixture, lazily; the directories go when the process exits.
import { rmSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitIn, makeRepo, type CommitSpec, type GitDir } from '../support/gitdir.js';
import type { Agent } from '../support/server.js';
import { maskIds } from '../support/ws-twins.js';
import type { Fixture } from './fixture.js';
import { callTool } from './harness.js';

export const TWIN_CANARY = 'CANARY_TWIN_HIDDEN';
const BODY =
  Array.from({ length: 30 }, (_, i) => `export const value${i} = ${i}; // a line long enough to pair`).join('\n') +
  '\n';

/** Readable: `app/**\/*.ts` (literal prefix `app`, so git sees hidden files below it); writable: app and drop. */
export const TWIN_PERIMETER = { read: ['app/**/*.ts'], write: ['app/**', 'drop/**'], branches: ['main', 'other'] };

function history(hidden: boolean): CommitSpec[] {
  return [
    {
      message: 'init',
      files: {
        'app/a.ts': 'a\n',
        'app/c.ts': 'c\n',
        'drop/x.txt': 'base\n',
        'secret/s.txt': `${TWIN_CANARY}\n${BODY}`,
        // Similar enough to app/new.ts for git to pair them in one twin only.
        'app/old.txt': hidden ? BODY.replace('value3 ', 'other3 ') : 'nothing alike\n',
        ...(hidden ? { 'app/cl': { symlink: '../secret/s.txt' } } : {}),
      },
    },
  ];
}

async function dirty(repo: GitDir, hidden: boolean): Promise<void> {
  // Branches that conflict on a write-only file in one twin only.
  await repo.git('branch', 'other');
  await repo.commit({
    message: 'theirs',
    branch: 'other',
    files: { 'app/b.ts': 'b\n', ...(hidden ? { 'drop/x.txt': 'guess\n' } : {}) },
  });
  await repo.git('checkout', '-q', 'main');
  await repo.commit({ message: 'ours', files: { 'app/c.ts': 'c2\n', ...(hidden ? { 'drop/x.txt': 'ours\n' } : {}) } });
  // A changed hidden file named with bytes that are not UTF-8 in one twin, a plain hidden name in the other.
  const name = hidden
    ? Buffer.concat([Buffer.from('app/'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')])
    : Buffer.from('app/plain.txt');
  const abs = Buffer.concat([Buffer.from(`${repo.dir}/`), name]);
  await writeFile(abs, 'one\n');
  await gitIn(repo.dir, ['add', '-A']);
  await gitIn(repo.dir, ['commit', '-q', '-m', 'hidden file']);
  if (hidden) {
    // More commits touching only hidden files than the churn window holds.
    for (let i = 0; i < 101; i++) {
      await writeFile(join(repo.dir, 'secret/s.txt'), `${TWIN_CANARY} ${i}\n`);
      await gitIn(repo.dir, ['commit', '-q', '-m', `hidden ${i}`, '--', 'secret/s.txt']);
    }
    // Links to a hidden file: untracked, staged.
    await mkdir(join(repo.dir, 'app/links'));
    await symlink('../../secret/s.txt', join(repo.dir, 'app/links/u.ts'));
    await symlink('../secret/s.txt', join(repo.dir, 'app/sl.ts'));
    await repo.git('add', 'app/sl.ts');
  }
  await writeFile(abs, `${TWIN_CANARY}\n`);
  await writeFile(join(repo.dir, 'app/a.ts'), 'a2\n');
  await repo.git('rm', '-q', 'app/old.txt');
  await writeFile(join(repo.dir, 'app/new.ts'), BODY);
  await repo.git('add', 'app/new.ts');
}

export interface FxTwins {
  both(tool: string, args: Record<string, unknown>): Promise<[string, string]>;
}

const built = new WeakMap<Fixture, Promise<FxTwins>>();

async function build(fx: Fixture): Promise<FxTwins> {
  const agents: Agent[] = [];
  for (const hidden of [true, false]) {
    const repo = await makeRepo(history(hidden));
    process.once('exit', () => rmSync(dirname(repo.dir), { recursive: true, force: true }));
    await dirty(repo, hidden);
    const id = hidden ? 'twin-h' : 'twin-n';
    await fx.srv.perimeter({ id, repo: repo.dir, ...TWIN_PERIMETER });
    const key = (await fx.srv.api('POST', `/api/perimeters/${id}/keys`)).json.key as string;
    agents.push(await fx.srv.connect(`/mcp/${id}`, 'legacy', { authorization: `Bearer ${key}` }));
  }
  const answer = async (a: Agent, tool: string, args: Record<string, unknown>) => {
    const r = await callTool(a, tool, args);
    return maskIds(JSON.stringify({ isError: r.isError ?? false, text: r.text, structured: r.structured ?? null }));
  };
  const [h, n] = agents as [Agent, Agent];
  return { both: async (tool, args) => [await answer(h, tool, args), await answer(n, tool, args)] };
}

/** The fixture's twin pair (built on first use). */
export function fxTwins(fx: Fixture): Promise<FxTwins> {
  let p = built.get(fx);
  if (!p) {
    p = build(fx);
    built.set(fx, p);
  }
  return p;
}

const merges = new WeakMap<Fixture, Promise<Agent>>();

/**
 * A working tree in the middle of a merge where ours moved a hidden file to a readable path and theirs changed the
 * hidden file (with the canary): git records the conflict at the readable path, base and theirs from the hidden one.
 */
export function fxPairedConflict(fx: Fixture): Promise<Agent> {
  let p = merges.get(fx);
  if (!p) {
    p = (async () => {
      const lines = BODY.split('\n');
      const repo = await makeRepo([{ message: 'init', files: { 'secret/m.txt': BODY, 'app/keep.ts': 'k\n' } }]);
      process.once('exit', () => rmSync(dirname(repo.dir), { recursive: true, force: true }));
      await repo.git('branch', 'other');
      await repo.commit({
        message: 'theirs',
        branch: 'other',
        files: { 'secret/m.txt': lines.map((l, i) => (i === 5 ? TWIN_CANARY : l)).join('\n') },
      });
      await repo.git('checkout', '-q', 'main');
      await repo.git('mv', 'secret/m.txt', 'app/m.ts');
      await repo.commit({
        message: 'ours',
        files: { 'app/m.ts': lines.map((l, i) => (i === 5 ? 'ours' : l)).join('\n') },
      });
      await repo.git('merge', 'other').catch(() => undefined);
      await fx.srv.perimeter({ id: 'twin-merge', repo: repo.dir, ...TWIN_PERIMETER });
      const key = (await fx.srv.api('POST', '/api/perimeters/twin-merge/keys')).json.key as string;
      return fx.srv.connect('/mcp/twin-merge', 'legacy', { authorization: `Bearer ${key}` });
    })();
    merges.set(fx, p);
  }
  return p;
}
