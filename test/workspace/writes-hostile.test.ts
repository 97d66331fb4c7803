// A repository whose own configuration and tracked files name a program in every way git knows (hooks, editors,
// filters, merge drivers, signing, pagers, fsmonitor, receive-pack, an included tracked config): every write
// operation and every restore runs without starting any of them.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { HOSTILE_FILES, makeHostile, markerScript, markerText } from '../support/hostile-config.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { applied, rawGit, value, writerFor } from './writes-support.js';

describe('writes on a hostile repository run no program', () => {
  let g: GitDir;
  let marker: string;
  let root: string;
  const writers = createWorkTreeWriters({ timeoutMs: 30_000 });
  const author = { name: 'A', email: 'a@example.test' };

  beforeAll(async () => {
    g = await makeRepo([
      { message: 'root', files: HOSTILE_FILES },
      { message: 'feature', files: { 'f.txt': 'feature\n' }, branch: 'feature' },
      { message: 'up', files: { 'u.txt': 'u\n' }, branch: 'up' },
      { message: 'twoway', files: { 'a.txt': 'two\n' }, branch: 'twoway' },
      { message: 'main moves', files: { 'm.txt': 'm\n' }, branch: 'main' },
    ]);
    root = await mkdtemp(join(tmpdir(), 'gb-hostile-remote-'));
    const remote = join(root, 'remote.git');
    await rawGit(root, 'clone', '-q', '--bare', g.dir, remote);
    await g.git('remote', 'add', 'origin', remote);
    await g.git('fetch', '-q', 'origin');
    await g.git('branch', '-q', '--set-upstream-to=origin/main', 'main');
    const m = await markerScript(root);
    marker = m.marker;
    await makeHostile(g.dir, m.script);
    for (const [k, v] of [
      ['remote.origin.receivepack', m.script],
      ['remote.origin.uploadpack', m.script],
      ['core.worktree', root],
      ['rebase.updateRefs', 'true'],
      ['rebase.autoStash', 'true'],
      ['merge.autoStash', 'true'],
      ['rerere.enabled', 'true'],
      ['push.followTags', 'true'],
      ['merge.verifySignatures', 'true'],
    ]) {
      await g.git('config', k!, v!);
    }
    expect(await markerText(marker)).toBe('');
  });
  afterAll(async () => {
    await g.cleanup();
    await rm(root, { recursive: true, force: true });
  });

  it('commit, patch, discard, merge, rebase, reset, branch, push and restore', async () => {
    const w = await writerFor(writers, g.dir, 'main');
    await writeFile(join(g.dir, 'a.txt'), 'a2\n');
    await writeFile(join(g.dir, 'b.pr'), 'changed\n');
    const commit = applied(
      await w.apply({ kind: 'commit', message: 'hostile commit', paths: ['a.txt', 'b.pr'], author }),
    );
    expect(await g.git('show', `${commit.head}:b.pr`)).toBe('changed\n');
    // Pushed before the rebase rewrites what the remote has (a push is never forced).
    expect(value(await w.apply({ kind: 'push' }))).toMatchObject({ kind: 'applied' });
    const patch = `diff --git a/c.inc b/c.inc\n--- a/c.inc\n+++ b/c.inc\n@@ -1 +1 @@\n-included filter\n+patched\n`;
    applied(await w.apply({ kind: 'patch', patch: Buffer.from(patch) }));
    applied(await w.apply({ kind: 'discard', paths: ['c.inc'] }));
    const merged = applied(await w.apply({ kind: 'merge', from: 'feature' }));
    // Both sides changed a.txt, whose attributes name the repository's merge driver: refused, never run.
    const before = await g.git('rev-parse', 'HEAD');
    expect(await w.apply({ kind: 'merge', from: 'twoway' })).toMatchObject({ ok: false, error: { code: 'refused' } });
    expect(await w.preview({ kind: 'merge', from: 'twoway' })).toMatchObject({ ok: false, error: { code: 'refused' } });
    expect(await g.git('rev-parse', 'HEAD')).toBe(before);
    applied(await w.apply({ kind: 'rebase', onto: 'up' }));
    value(await w.preview({ kind: 'merge', from: 'up' }));
    await writeFile(join(g.dir, 'a.txt'), 'local\n');
    const reset = applied(await w.apply({ kind: 'reset', mode: 'hard', to: merged.previousHead! }));
    applied(await writers.restore(g.dir, reset.restorePoint!));
    applied(await w.apply({ kind: 'branch', name: 'made', from: 'main' }));
    expect(value(await writers.listRestorePoints(g.dir)).length).toBeGreaterThan(5);
    expect(await markerText(marker)).toBe('');
    // Control: plain git in the same repository does run them, so the silence above is the hardening's doing.
    // (stdin closed: the marker script passes stdin through, as a filter would.)
    spawnSync('git', ['commit', '-q', '--allow-empty', '-m', 'control'], {
      cwd: g.dir,
      input: '',
      timeout: 20_000,
      env: { ...process.env, HOME: g.dir },
    });
    expect(await markerText(marker)).not.toBe('');
  }, 120_000);
});
