// Issue 24: a history page's first ask to the upstream is the page's own size (plus one to tell whether more follow),
// not a whole batch of 100: local git diffs every listed commit's files, so a listing twice as long costs twice the
// time. When hidden commits leave the page short, later asks take whole batches, and the page is the same either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeOf } from '../../src/core/scope.js';
import { visibleHistory } from '../../src/registry/history.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { makeRepo, type CommitSpec, type GitDir } from '../support/gitdir.js';

type Ask = { skip: number; limit: number };

/** The real local upstream, with each listCommits query written down before it is passed on. */
function recording(up: Upstream, asks: Ask[]): Upstream {
  return new Proxy(up, {
    get(target, prop, receiver) {
      if (prop !== 'listCommits') return Reflect.get(target, prop, receiver);
      const list: Upstream['listCommits'] = (repo, ref, q) => {
        asks.push({ skip: q.skip, limit: q.limit });
        return target.listCommits(repo, ref, q);
      };
      return list;
    },
  });
}

describe('issue 24: the first history ask is the page size', () => {
  let g: GitDir;
  let up: Upstream;
  beforeAll(async () => {
    // Oldest first: 60 commits to app/*.ts (readable below), then 80 to app/*.txt (listed under the prefix "app",
    // hidden by the glob), newest last.
    const specs: CommitSpec[] = [];
    for (let i = 0; i < 60; i++) specs.push({ message: `ts ${i}`, files: { [`app/m${i % 7}.ts`]: `${i}\n` } });
    for (let i = 0; i < 80; i++) specs.push({ message: `txt ${i}`, files: { [`app/n${i % 5}.txt`]: `${i}\n` } });
    g = await makeRepo(specs);
    up = createLocalGitUpstream({ repos: [g.dir] });
  }, 60_000);
  afterAll(async () => {
    await up.close();
    await g.cleanup();
  });

  const page = async (read: string[], skip: number, limit: number) => {
    const asks: Ask[] = [];
    const r = await visibleHistory(recording(up, asks), scopeOf({ read, write: [] }), {
      repo: g.dir,
      ref: 'main',
      readGlobs: read,
      trustPrefixes: false,
      path: undefined,
      skip,
      limit,
    });
    if (!r.ok) throw new Error(r.error.message);
    return { asks, shas: r.value.commits.map((c) => c.sha), hasMore: r.value.hasMore };
  };
  const gitLog = async (...args: string[]) => (await g.git('log', '--format=%H', ...args)).trim().split('\n');

  it('asks for the page and one more when every listed commit is readable', async () => {
    const first = await page(['**'], 0, 30);
    expect(first.asks).toEqual([{ skip: 0, limit: 31 }]);
    expect(first.shas).toEqual(await gitLog('-30', 'main'));
    expect(first.hasMore).toBe(true);
    const second = await page(['**'], 30, 30);
    expect(second.asks).toEqual([{ skip: 0, limit: 61 }]);
    expect(second.shas).toEqual((await gitLog('-60', 'main')).slice(30));
  });

  it('goes on by whole batches when hidden commits leave the page short, with the same page', async () => {
    const r = await page(['app/**/*.ts'], 0, 30);
    // 80 listed commits touch only hidden files: the first ask (31) finds none readable, the next batch fills it.
    expect(r.asks).toEqual([
      { skip: 0, limit: 31 },
      { skip: 31, limit: 100 },
    ]);
    expect(r.shas).toEqual((await gitLog('main', '--', 'app/*.ts')).slice(0, 30));
    expect(r.hasMore).toBe(true);
  });
});
