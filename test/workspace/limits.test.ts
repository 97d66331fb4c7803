// Output caps and time bounds of the working-tree adapter: a listing cut by the cap says `truncated` and holds only
// whole entries (each identical to its uncut counterpart); a git process past its time bound is killed and reported.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runGit } from '../../src/gitcli/run.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import type { WorkTree } from '../../src/workspace/types.js';
import { makeDirtyRepo, type DirtyRepo } from './fixture.js';

let repo: DirtyRepo;

async function open(maxBytes: number): Promise<WorkTree> {
  const r = await createLocalWorkspace({ maxBytes }).open(repo.dir, 'main');
  if (!r.ok || !r.value) throw new Error('main is checked out');
  return r.value;
}

beforeAll(async () => {
  repo = await makeDirtyRepo();
}, 60_000);

afterAll(async () => {
  await repo?.cleanup();
});

it('cuts status at the cap into whole entries and says so', async () => {
  const full = await (await open(1 << 20)).status();
  const cut = await (await open(400)).status();
  if (!full.ok || !cut.ok) throw new Error('both answer');
  expect(full.value.truncated).toBe(false);
  expect(cut.value.truncated).toBe(true);
  expect(cut.value.entries.length).toBeGreaterThan(0);
  expect(cut.value.entries.length).toBeLessThan(full.value.entries.length);
  expect(cut.value.entries).toEqual(full.value.entries.slice(0, cut.value.entries.length));
});

it('cuts a diff at the cap into whole files and says so', async () => {
  const full = await (await open(1 << 20)).diff({ against: 'head', staged: false });
  if (!full.ok) throw new Error('full diff answers');
  // Raw and numstat records come first (about 130 bytes a file), then the patches: cut in the raw records, then
  // half-way through the patches.
  const patchBytes = full.value.files.reduce((n, f) => n + f.patch.length, 0);
  const head = full.value.files.length * 130;
  let partial = 0;
  for (const cap of [200, head + Math.floor(patchBytes / 2)]) {
    const cut = await (await open(cap)).diff({ against: 'head', staged: false });
    if (!cut.ok) throw new Error(`cut diff answers at ${cap}`);
    expect(cut.value.truncated, String(cap)).toBe(true);
    expect(cut.value.files.length).toBeLessThan(full.value.files.length);
    for (const f of cut.value.files) expect(full.value.files).toContainEqual(f);
    partial = Math.max(partial, cut.value.files.length);
  }
  expect(partial).toBeGreaterThan(0);
});

it('cuts churn and integrity at the cap and says so', async () => {
  const churn = await (await open(150)).recentChurn('', 10);
  expect(churn.ok && churn.value.truncated).toBe(true);
  const integrity = await (await open(300)).integrity();
  expect(integrity.ok && integrity.value.truncated).toBe(true);
});

it('kills a git process past its time bound', async () => {
  const fake = await mkdtemp(join(tmpdir(), 'gb-slowgit-'));
  const saved = process.env['PATH'];
  try {
    await writeFile(join(fake, 'git'), '#!/bin/sh\nsleep 5\n');
    await chmod(join(fake, 'git'), 0o755);
    process.env['PATH'] = `${fake}:${saved ?? ''}`;
    const started = Date.now();
    const run = await runGit(['status'], { cwd: repo.dir, timeoutMs: 200 });
    expect(run).toMatchObject({ code: null, spawnError: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
  } finally {
    process.env['PATH'] = saved;
    await rm(fake, { recursive: true, force: true });
  }
});
