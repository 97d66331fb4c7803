// Issue 13: a repository's own configuration must not make the working-tree port run a program. Every port operation
// runs on a dirty, stale, conflicted working tree of a repository whose config (and a tracked included file) points
// every program-valued setting at a marker script: fsmonitor, pager, external diff, textconv, filters (clean, smudge,
// process, required), merge drivers, hooks; so does a dirty submodule's own config. The marker never appears, and
// content is read byte for byte (no filter).
import { execFileSync } from 'node:child_process';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import type { WorkTree, Workspace, WsResult } from '../../src/workspace/types.js';
import { gitIn, makeRepo, type GitDir } from '../support/gitdir.js';
import { HOSTILE_FILES, makeHostile, markerScript, markerText } from '../support/hostile-config.js';

let repo: GitDir;
let sub: GitDir;
let marker: string;
let ws: Workspace;
let wt: WorkTree;

/** The test's own git, with every program it could start switched off (it sets up the state the port then reads). */
function quietGit(args: string[], input?: string): string {
  const off = [
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.fsmonitor=false',
    '-c',
    'filter.ev.clean=',
    '-c',
    'filter.ev.smudge=',
    '-c',
    'filter.ev.required=false',
    '-c',
    'filter.pr.process=',
    '-c',
    'filter.pr.required=false',
    '-c',
    'filter.inc.clean=',
    '-c',
    'filter.inc.smudge=',
  ];
  return execFileSync('git', [...off, ...args], {
    cwd: repo.dir,
    input,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', HOME: repo.dir },
  }).toString('utf8');
}

/** A merge preview may be refused (the driver cannot run); any other failure is a failure. */
function refusedIsOk(r: WsResult<unknown>): { ok: boolean } {
  return { ok: r.ok || r.error.code === 'refused' };
}

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: HOSTILE_FILES },
    { message: 'theirs', branch: 'theirs', files: { 'a.txt': 'theirs\n', 'b.pr': 'theirs\n' } },
    { message: 'side', branch: 'side', files: { 'side.txt': 'side\n', 'b.pr': 'side\n' } },
    { message: 'ours', branch: 'main', files: { 'a.txt': 'ours\n', 'b.pr': 'ours\n' } },
  ]);
  // A submodule with the same hostile setup of its own, dirty: a status or diff that entered it would run its programs.
  sub = await makeRepo([{ message: 'sub init', files: HOSTILE_FILES }]);
  await gitIn(repo.dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'sub']);
  await gitIn(repo.dir, ['commit', '-q', '-m', 'submodule']);
  const { script } = await markerScript(join(repo.dir, '..'));
  marker = join(repo.dir, '..', 'MARKER');
  await makeHostile(repo.dir, script);
  await makeHostile(join(repo.dir, 'sub'), script);
  // Drivers only the submodule knows (the superproject's listing cannot name them), on stale files inside it.
  const subOnly: [string, string][] = [
    ['filter.subonly.clean', script],
    ['filter.subonly.process', script],
    ['filter.subonly.required', 'true'],
    ['core.fsmonitor', script],
  ];
  for (const [k, v] of subOnly) {
    await gitIn(join(repo.dir, 'sub'), ['config', k, v]);
  }
  await writeFile(join(repo.dir, 'sub/.gitattributes'), '* filter=subonly\n');
  await writeFile(join(repo.dir, 'sub/b.pr'), 'changed inside the submodule\n');
  const soon = new Date(Date.now() + 60_000);
  for (const f of Object.keys(HOSTILE_FILES)) await utimes(join(repo.dir, 'sub', f), soon, soon).catch(() => undefined);
  // A conflict on a.txt made with plumbing only (no merge driver, no checkout): stages 1/2/3 and MERGE_HEAD.
  const blob = (rev: string): string => quietGit(['rev-parse', rev]).trim();
  const [base, ours, theirs] = [blob('main~3:a.txt'), blob('main:a.txt'), blob('theirs:a.txt')];
  quietGit(
    ['update-index', '--index-info'],
    `0 ${'0'.repeat(40)}\ta.txt\n100644 ${base} 1\ta.txt\n100644 ${ours} 2\ta.txt\n100644 ${theirs} 3\ta.txt\n`,
  );
  await writeFile(join(repo.dir, '.git/MERGE_HEAD'), `${blob('theirs')}\n`);
  await writeFile(join(repo.dir, 'a.txt'), '<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> theirs\n');
  // Dirty and stale: filtered files modified, an untracked one, every tracked file touched.
  await writeFile(join(repo.dir, 'b.pr'), 'process filter, changed\n');
  await writeFile(join(repo.dir, 'c.inc'), 'included filter, changed\n');
  await writeFile(join(repo.dir, 'new.pr'), 'untracked under a filter\n');
  const later = new Date(Date.now() + 60_000);
  for (const f of Object.keys(HOSTILE_FILES)) await utimes(join(repo.dir, f), later, later).catch(() => undefined);
  ws = createLocalWorkspace();
  const opened = await ws.open(repo.dir, 'main');
  if (!opened.ok || !opened.value) throw new Error('main is checked out');
  wt = opened.value;
  expect(await markerText(marker), 'the setup itself ran a program').toBe('');
}, 60_000);

afterAll(async () => {
  await repo?.cleanup();
  await sub?.cleanup();
});

it('runs no program from the repository on any working-tree read', async () => {
  const head = (await repo.git('rev-parse', 'HEAD')).trim();
  const calls: [string, () => Promise<{ ok: boolean }>][] = [
    ['worktrees', () => ws.worktrees(repo.dir)],
    ['status', () => wt.status()],
    ['diff index', () => wt.diff({ against: 'index', staged: false })],
    ['diff head', () => wt.diff({ against: 'head', staged: false })],
    ['diff staged', () => wt.diff({ against: 'head', staged: true })],
    ['diff commit', () => wt.diff({ against: { commit: head }, staged: false })],
    ['head', () => wt.head()],
    ['upstream', () => wt.upstreamCounts([''])],
    ['operation', () => wt.operation()],
    // Both sides changed b.pr and a.txt (`merge=ev`): the merge driver would run here if it could; it fails closed.
    ['merge preflight', async () => refusedIsOk(await wt.mergePreflight('theirs'))],
    ['merge preflight 2', async () => refusedIsOk(await wt.mergePreflight('side'))],
    ['conflict sides', () => wt.conflictSides('a.txt', 4096)],
    ['submodules', () => wt.submodules()],
    ['integrity', () => wt.integrity()],
    ['read file', () => wt.readFile('b.pr', 4096)],
    ['churn', () => wt.recentChurn('', 10)],
  ];
  for (const [name, call] of calls) {
    const r = await call();
    expect(r.ok, `${name}: ${JSON.stringify(r)}`).toBe(true);
    expect(await markerText(marker), `${name} started a program`).toBe('');
  }
  const d = await wt.diff({ against: 'index', staged: false });
  // No textconv, no clean filter: the patch is git's diff of the raw bytes.
  expect(d.ok && Buffer.from(d.value.files.find((f) => f.path === 'b.pr')?.patch ?? []).toString('utf8')).toContain(
    '+process filter, changed\n',
  );
  const c = await wt.conflictSides('a.txt', 4096);
  expect(c.ok && c.value.theirs.present && Buffer.from(c.value.theirs.bytes).toString('utf8')).toBe('theirs\n');
  expect(await wt.operation()).toEqual({ ok: true, value: 'merge' });
  expect(await wt.mergePreflight('theirs')).toMatchObject({ ok: false, error: { code: 'refused' } });
});

it('runs no hook or smudge filter when the operator adds a worktree', async () => {
  const path = join(repo.dir, '..', 'side-wt');
  const r = await ws.addWorktree(repo.dir, 'side', path);
  expect(r.ok, JSON.stringify(r)).toBe(true);
  expect(await markerText(marker), 'worktree add started a program').toBe('');
  // The checkout is byte for byte what was committed (a smudge filter would have changed it through `cat`... or run).
  expect(await readFile(join(path, 'side.txt'), 'utf8')).toBe('side\n');
  expect(await readFile(join(path, 'b.pr'), 'utf8')).toBe('side\n');
  const side = await ws.open(repo.dir, 'side');
  if (!side.ok || !side.value) throw new Error('side is checked out now');
  expect(await side.value.status()).toMatchObject({ ok: true });
  expect(await markerText(marker), 'status in the new worktree started a program').toBe('');
});
