// Issue 19 class 5 (changes_since): a symlink whose target is hidden is absent from get_tree and get_file, but
// changes_since listed it as added, so its existence (and, by elimination, its target's) leaked. changes_since now
// judges links with the one predicate get_tree and get_file use (`linkServable`): a link counts on a side only while
// its target is readable there, so its answer matches what the other tools show, on both upstreams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(kind, [
      { message: 'init', files: { 'app/main.ts': '1\n', 'app/.env': 'X=1\n', 'secret/keys.txt': 'k\n' } },
    ]);
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**'], write: [] });
  }, 60_000);
  afterAll(async () => s?.close());

  /** What get_tree shows of the app directory's files and links. */
  const shown = async (a: Awaited<ReturnType<Served['srv']['connect']>>) =>
    (
      (await a.call('get_tree', { path: 'app', recursive: true })).structured.entries as {
        path: string;
        type: string;
      }[]
    )
      .filter((e) => e.type !== 'dir')
      .map((e) => e.path);

  it('lists only the links get_tree shows, as they come and go', async () => {
    const a = await s.srv.connect('/mcp/p');
    const start = (await a.call('changes_since', {})).structured.cursor as string;

    await s.git.commit({
      message: 'links',
      files: {
        'app/ok': { symlink: 'main.ts' },
        'app/out': { symlink: '../secret/keys.txt' },
        'app/env': { symlink: '.env' },
        'app/abs': { symlink: '/etc/passwd' },
        'app/dir': { symlink: '../secret' },
      },
    });
    expect(await shown(a)).toEqual(['app/main.ts', 'app/ok']);
    const added = await a.call('changes_since', { cursor: start });
    expect(added.structured.changes).toEqual([{ path: 'app/ok', change: 'added' }]);
    expect(added.text).not.toMatch(/app\/(out|env|abs|dir)/);

    // A visible link retargeted at a hidden file disappears from get_tree: it reads as deleted. A hidden-target link
    // retargeted at a readable file appears: it reads as added.
    await s.git.commit({
      message: 'retarget',
      files: { 'app/ok': { symlink: '../secret/keys.txt' }, 'app/out': { symlink: 'main.ts' } },
    });
    expect(await shown(a)).toEqual(['app/main.ts', 'app/out']);
    const moved = await a.call('changes_since', { cursor: added.structured.cursor });
    expect(moved.structured.changes).toEqual([
      { path: 'app/ok', change: 'deleted' },
      { path: 'app/out', change: 'added' },
    ]);

    // Links whose targets stay hidden change nothing an agent can see: the answer is that of an unmoved branch.
    await s.git.commit({
      message: 'hidden retarget',
      files: { 'app/env': { symlink: '../secret' }, 'app/abs': { symlink: '/etc/hostname' } },
    });
    const hidden = await a.call('changes_since', { cursor: moved.structured.cursor });
    expect(hidden.structured).toMatchObject({ fresh_instance: false, changes: [], truncated: false });
  });
});
