// Git Data writes: blobs, trees, commits and refs, including fast-forward rules and racing updates.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture, type Obj } from './helpers.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture([
    { message: 'base', files: { 'README.md': 'readme\n', 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'keep/k.txt': 'k\n' } },
  ]);
});
afterAll(() => fx.close());

async function post(path: string, body: unknown): Promise<Obj> {
  const res = await fx.call('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Obj;
}

/** What `git hash-object` prints for these bytes. */
function gitHash(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** The atomic multi-file commit recipe of the reference (§12), returning the new commit SHA (ref not moved). */
async function commitOn(parent: string, tree: Obj[], message = 'change'): Promise<string> {
  const base = (await fx.call('GET', `/repos/octo/demo/git/commits/${parent}`)).body as Obj;
  const t = await post('/repos/octo/demo/git/trees', { base_tree: base.tree.sha, tree });
  const c = await post('/repos/octo/demo/git/commits', { message, tree: t.sha, parents: [parent] });
  return c.sha as string;
}

describe('blobs, trees and commits', () => {
  it('blob SHAs equal git hash-object for utf-8 and base64 content', async () => {
    const text = await post('/repos/octo/demo/git/blobs', { content: 'héllo\n' });
    expect(text.sha).toBe(gitHash(Buffer.from('héllo\n')));
    const bin = await post('/repos/octo/demo/git/blobs', {
      content: Buffer.from([0, 255, 1]).toString('base64'),
      encoding: 'base64',
    });
    const blob = (await fx.call('GET', `/repos/octo/demo/git/blobs/${bin.sha}`)).body as Obj;
    expect(Buffer.from(blob.content, 'base64')).toEqual(Buffer.from([0, 255, 1]));
    expect(blob.size).toBe(3);
    expect(bin.sha).toBe(gitHash(Buffer.from([0, 255, 1])));
    expect((await fx.repo.git('cat-file', '-t', text.sha)).trim()).toBe('blob');
  });

  it('trees layer nested paths, inline content and sha:null deletions over base_tree', async () => {
    const main = await fx.repo.head('main');
    const baseTree = (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim();
    const blob = await post('/repos/octo/demo/git/blobs', { content: 'deep\n' });
    const t = await post('/repos/octo/demo/git/trees', {
      base_tree: baseTree,
      tree: [
        { path: 'new/deeper/file.txt', mode: '100644', type: 'blob', sha: blob.sha },
        { path: 'src/a.ts', mode: '100644', type: 'blob', content: 'a2\n' },
        { path: 'src/b.ts', mode: '100644', type: 'blob', sha: null },
        { path: 'run.sh', mode: '100755', type: 'blob', content: '#!/bin/sh\n' },
      ],
    });
    const listing = (await fx.repo.git('ls-tree', '-r', t.sha))
      .trim()
      .split('\n')
      .map((l) => l.replace(/ [0-9a-f]{40}\t/, ' '));
    expect(listing).toEqual([
      '100644 blob README.md',
      '100644 blob keep/k.txt',
      '100644 blob new/deeper/file.txt',
      '100755 blob run.sh',
      '100644 blob src/a.ts',
    ]);
    expect(t.tree.map((e: Obj) => e.path)).toEqual(['README.md', 'keep', 'new', 'run.sh', 'src']);
    expect(t.truncated).toBe(false);
  });

  it('without base_tree only the listed entries remain; deleting a whole directory works', async () => {
    const t = await post('/repos/octo/demo/git/trees', {
      tree: [{ path: 'only.txt', mode: '100644', type: 'blob', content: 'x' }],
    });
    expect((await fx.repo.git('ls-tree', '-r', '--name-only', t.sha)).trim()).toBe('only.txt');
    const main = await fx.repo.head('main');
    const d = await post('/repos/octo/demo/git/trees', {
      base_tree: (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim(),
      tree: [{ path: 'src', mode: '040000', type: 'tree', sha: null }],
    });
    expect((await fx.repo.git('ls-tree', '-r', '--name-only', d.sha)).trim().split('\n')).toEqual([
      'README.md',
      'keep/k.txt',
    ]);
  });

  it('trees: a file may become a directory, and a subtree can be grafted by its tree SHA', async () => {
    const main = await fx.repo.head('main');
    const baseTree = (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim();
    const src = (await fx.repo.git('rev-parse', `${main}:src`)).trim();
    const t = await post('/repos/octo/demo/git/trees', {
      base_tree: baseTree,
      tree: [
        { path: 'README.md/inner.txt', mode: '100644', type: 'blob', content: 'now a dir' },
        { path: 'copy/of/src', mode: '040000', type: 'tree', sha: src },
        { path: 'keep', mode: '100644', type: 'blob', content: 'now a file' },
      ],
    });
    expect((await fx.repo.git('ls-tree', '-r', '--name-only', t.sha)).trim().split('\n')).toEqual([
      'README.md/inner.txt',
      'copy/of/src/a.ts',
      'copy/of/src/b.ts',
      'keep',
      'src/a.ts',
      'src/b.ts',
    ]);
    expect((await fx.repo.git('rev-parse', `${t.sha}:copy/of/src`)).trim()).toBe(src);
  });

  it('tree errors: deleting a missing path, neither sha nor content, a bad base_tree, a non-blob sha', async () => {
    const main = await fx.repo.head('main');
    const baseTree = (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim();
    const cases: [unknown, string][] = [
      [
        { base_tree: baseTree, tree: [{ path: 'ghost.txt', mode: '100644', type: 'blob', sha: null }] },
        'GitRPC::BadObjectState',
      ],
      [
        { tree: [{ path: 'x', mode: '100644', type: 'blob' }] },
        'Must supply either tree.sha or tree.content. Request will be rejected if both are present.',
      ],
      [{ base_tree: main, tree: [] }, 'base_tree is not a valid tree oid'],
      [
        { tree: [{ path: 'x', mode: '100644', type: 'blob', sha: baseTree }] },
        `tree.sha ${baseTree} is not a valid blob`,
      ],
      [
        { tree: [{ path: '../x', mode: '100644', type: 'blob', content: 'x' }] },
        'tree.path contains a malformed path component',
      ],
    ];
    for (const [body, message] of cases) {
      expect(await fx.call('POST', '/repos/octo/demo/git/trees', body)).toMatchObject({
        status: 422,
        body: { message },
      });
    }
  });

  it('commits: parents kept, author defaults to the token user, explicit author and date honoured, unsigned', async () => {
    const main = await fx.repo.head('main');
    const tree = (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim();
    const c = await post('/repos/octo/demo/git/commits', { message: 'mine', tree, parents: [main] });
    expect(c).toMatchObject({
      message: 'mine',
      tree: { sha: tree },
      parents: [{ sha: main }],
      author: { name: 'Blinder Bot' },
      verification: { verified: false, reason: 'unsigned' },
    });
    const d = await post('/repos/octo/demo/git/commits', {
      message: 'theirs',
      tree,
      author: { name: 'A', email: 'a@example.test', date: '2020-02-03T04:05:06Z' },
    });
    expect(d).toMatchObject({
      parents: [],
      author: { name: 'A', email: 'a@example.test', date: '2020-02-03T04:05:06Z' },
      committer: { name: 'A' },
    });
    expect((await fx.repo.git('log', '-1', '--format=%an <%ae> %aI %P', d.sha)).trim()).toBe(
      'A <a@example.test> 2020-02-03T04:05:06+00:00',
    );
    expect(
      await fx.call('POST', '/repos/octo/demo/git/commits', { message: 'x', tree, parents: ['f'.repeat(40)] }),
    ).toMatchObject({ status: 422 });
  });
});

describe('refs', () => {
  it('a fast-forward PATCH moves the branch; a non-fast-forward is 422 unless force is sent', async () => {
    const main = await fx.repo.head('main');
    const next = await commitOn(main, [{ path: 'ff.txt', mode: '100644', type: 'blob', content: 'ff' }]);
    const ok = await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha: next, force: false });
    expect(ok).toMatchObject({ status: 200, body: { ref: 'refs/heads/main', object: { sha: next, type: 'commit' } } });
    expect(await fx.repo.head('main')).toBe(next);

    const sideways = await commitOn(main, [{ path: 'side.txt', mode: '100644', type: 'blob', content: 's' }]);
    const refused = await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha: sideways });
    expect(refused).toMatchObject({
      status: 422,
      body: {
        message: 'Update is not a fast forward',
        documentation_url: 'https://docs.github.com/rest/git/refs#update-a-reference',
      },
    });
    expect(await fx.repo.head('main')).toBe(next);

    const forced = await fx.call('PATCH', '/repos/octo/demo/git/refs/heads%2Fmain', { sha: sideways, force: true });
    expect(forced.status).toBe(200);
    expect(await fx.repo.head('main')).toBe(sideways);
    await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha: next, force: true });
  });

  it('PATCH errors: missing ref, refs/ prefix, unknown object', async () => {
    const main = await fx.repo.head('main');
    expect(await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/ghost', { sha: main })).toMatchObject({
      status: 422,
      body: { message: 'Reference does not exist' },
    });
    expect(await fx.call('PATCH', '/repos/octo/demo/git/refs/refs/heads/main', { sha: main })).toMatchObject({
      status: 422,
      body: { message: 'Reference does not exist' },
    });
    expect(await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha: 'a'.repeat(40) })).toMatchObject({
      status: 422,
      body: { message: 'Object does not exist' },
    });
  });

  it('exactly one of two racing non-fast-forward updates wins', async () => {
    const main = await fx.repo.head('main');
    const one = await commitOn(main, [{ path: 'race.txt', mode: '100644', type: 'blob', content: 'one' }], 'one');
    const two = await commitOn(main, [{ path: 'race.txt', mode: '100644', type: 'blob', content: 'two' }], 'two');
    const results = await Promise.all(
      [one, two].map((sha) => fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha, force: false })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    const winner = results[0]?.status === 200 ? one : two;
    expect(await fx.repo.head('main')).toBe(winner);
  });

  it('moveRefBeforeUpdate: someone else pushes first, so the update is refused and the push survives', async () => {
    const main = await fx.repo.head('main');
    const mine = await commitOn(main, [{ path: 'mine.txt', mode: '100644', type: 'blob', content: 'mine' }]);
    fx.em.faults.moveRefBeforeUpdate({
      repo: 'octo/demo',
      branch: 'main',
      files: { 'theirs.txt': 'theirs', 'README.md': null },
      message: 'their push',
    });
    const res = await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha: mine });
    expect(res).toMatchObject({ status: 422, body: { message: 'Update is not a fast forward' } });
    const head = await fx.repo.head('main');
    expect((await fx.repo.git('log', '-1', '--format=%s %P', head)).trim()).toBe(`their push ${main}`);
    expect((await fx.repo.git('ls-tree', '--name-only', head)).split('\n')).toContain('theirs.txt');
    expect((await fx.repo.git('ls-tree', '--name-only', head)).split('\n')).not.toContain('README.md');
    // Re-reading the head and rebuilding on it succeeds: the retry a careful client does.
    const retry = await commitOn(head, [{ path: 'mine.txt', mode: '100644', type: 'blob', content: 'mine' }]);
    expect((await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', { sha: retry })).status).toBe(200);
  });

  it('create ref: 201 + Location, then already exists, invalid names, unknown object, D/F clash', async () => {
    const main = await fx.repo.head('main');
    const made = await fx.call('POST', '/repos/octo/demo/git/refs', { ref: 'refs/heads/topic/one', sha: main });
    expect(made).toMatchObject({ status: 201, body: { ref: 'refs/heads/topic/one', object: { sha: main } } });
    expect(made.headers.get('location')).toBe(`${fx.em.url}/repos/octo/demo/git/refs/heads/topic/one`);
    expect(await fx.call('GET', '/repos/octo/demo/branches/topic/one')).toMatchObject({
      status: 200,
      body: { name: 'topic/one' },
    });
    const cases: [string, string, string][] = [
      ['refs/heads/topic/one', main, 'Reference already exists'],
      ['heads/x', main, 'Reference name must contain at least three slash-separated components.'],
      ['refs/heads/a:b', main, 'refs/heads/a:b is not a valid ref name.'],
      ['refs/heads/x..y', main, 'refs/heads/x..y is not a valid ref name.'],
      [`refs/heads/${main}`, main, `refs/heads/${main} is not a valid ref name.`],
      ['refs/heads/x.lock', main, 'refs/heads/x.lock is not a valid ref name.'],
      ['refs/heads/fresh', 'b'.repeat(40), 'Object does not exist'],
      ['refs/heads/topic', main, 'Reference update failed'],
    ];
    for (const [ref, sha, message] of cases) {
      expect(await fx.call('POST', '/repos/octo/demo/git/refs', { ref, sha })).toMatchObject({
        status: 422,
        body: { message },
      });
    }
    expect((await fx.call('DELETE', '/repos/octo/demo/git/refs/heads/topic/one')).status).toBe(204);
    expect((await fx.call('GET', '/repos/octo/demo/git/ref/heads/topic/one')).status).toBe(404);
  });

  it('a submodule entry (mode 160000) is listed as type commit in trees and submodule in contents', async () => {
    const main = await fx.repo.head('main');
    const base = (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim();
    const t = await post('/repos/octo/demo/git/trees', {
      base_tree: base,
      tree: [
        { path: 'vendor/lib', mode: '160000', type: 'commit', sha: 'c'.repeat(40) },
        {
          path: '.gitmodules',
          mode: '100644',
          type: 'blob',
          content: '[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = https://github.com/octo/lib.git\n',
        },
      ],
    });
    const c = await post('/repos/octo/demo/git/commits', { message: 'submodule', tree: t.sha, parents: [main] });
    await post('/repos/octo/demo/git/refs', { ref: 'refs/heads/with-sub', sha: c.sha });
    const tree = (await fx.call('GET', '/repos/octo/demo/git/trees/with-sub?recursive=1')).body as Obj;
    expect(tree.tree.find((e: Obj) => e.path === 'vendor/lib')).toEqual({
      path: 'vendor/lib',
      mode: '160000',
      type: 'commit',
      sha: 'c'.repeat(40),
    });
    const sub = (await fx.call('GET', '/repos/octo/demo/contents/vendor/lib?ref=with-sub')).body as Obj;
    expect(sub).toMatchObject({
      type: 'submodule',
      submodule_git_url: 'https://github.com/octo/lib.git',
      sha: 'c'.repeat(40),
    });
    const dir = (await fx.call('GET', '/repos/octo/demo/contents/vendor?ref=with-sub')).body as Obj[];
    expect(dir[0]).toMatchObject({ type: 'file', name: 'lib' });
  });

  it('reads are never stale: pushes from outside (loose or packed refs) show up at once', async () => {
    await fx.repo.git('pack-refs', '--all');
    const before = (await fx.call('GET', '/repos/octo/demo/branches/main')).body as Obj;
    const pushed = await fx.repo.commit({ message: 'outside push', files: { 'outside.txt': 'o\n' } });
    expect(pushed).not.toBe(before.commit.sha);
    expect(await fx.call('GET', '/repos/octo/demo/branches/main')).toMatchObject({ body: { commit: { sha: pushed } } });
    expect(await fx.call('GET', '/repos/octo/demo/contents/outside.txt')).toMatchObject({
      status: 200,
      body: { size: 2 },
    });
    expect(await fx.call('GET', '/repos/octo/demo/commits/main')).toMatchObject({
      body: { sha: pushed, commit: { message: 'outside push' } },
    });
    await fx.repo.git('pack-refs', '--all');
    await fx.repo.git('update-ref', 'refs/heads/main', before.commit.sha);
    expect(await fx.call('GET', '/repos/octo/demo/branches/main')).toMatchObject({
      body: { commit: { sha: before.commit.sha } },
    });
  });
});
