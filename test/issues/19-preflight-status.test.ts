// Issue 19, class 3: conflict_preflight's status came from git's exit code, so a conflict on a path the perimeter
// may write but not read (or not see at all) flipped "clean" to "conflicts". Every field now comes from the cut list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsTwins, type WsTwins } from '../support/ws-twins.js';

let tw: WsTwins;

beforeAll(async () => {
  tw = await wsTwins(
    [{ message: 'init', files: { 'app/a.txt': 'a\n', 'drop/x.txt': 'base\n' } }],
    { read: ['app/**'], write: ['app/**', 'drop/**'], branches: ['main', 'other'] },
    async (repo, hidden) => {
      await repo.git('branch', 'other');
      // The two branches conflict on the write-only file in one twin only; on readable files they agree.
      await repo.commit({
        message: 'theirs',
        branch: 'other',
        files: { 'app/b.txt': 'b\n', ...(hidden ? { 'drop/x.txt': 'theirs guess\n' } : {}) },
      });
      await repo.git('checkout', '-q', 'main');
      await repo.commit({
        message: 'ours',
        files: { 'app/c.txt': 'c\n', ...(hidden ? { 'drop/x.txt': 'ours\n' } : {}) },
      });
    },
  );
}, 60_000);

afterAll(async () => {
  await tw?.close();
});

describe('conflict_preflight: every field is a function of the cut', () => {
  it('a conflict on a write-only file neither flips the status nor moves a count', async () => {
    const [h, n] = await tw.both('conflict_preflight', { with: 'other' });
    expect(JSON.parse(n).structured).toMatchObject({ status: 'clean', conflicts: [], omitted_count: 0 });
    expect(h).toBe(n);
  });
});
