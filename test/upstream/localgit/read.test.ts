// Reads from the local git adapter: repository opening, trees, files, odd names, symlinks, submodules, empty repos.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../../src/upstream/localgit/index.js';
import { makeRepo, type GitDir } from '../../support/gitdir.js';

const ODD = 'odd dir/naïve file ✓.txt';
const NEWLINE = 'new\nline.txt';
const GLOB = 'lit/[a]*.md';

describe.each([{ bare: false }, { bare: true }])('localgit reads (bare: $bare)', ({ bare }) => {
  let g: GitDir;
  const up = createLocalGitUpstream({ maxFileBytes: 1000 });
  beforeAll(async () => {
    g = await makeRepo(
      [
        {
          message: 'one',
          files: { 'a.txt': 'a\n', [ODD]: 'odd\n', [NEWLINE]: 'nl\n', 'bad-utf8.txt': Buffer.from([0x66, 0xff, 0x66]) },
        },
        {
          message: 'two',
          files: {
            link: { symlink: '/etc/passwd' },
            'big.txt': 'x'.repeat(1001),
            [GLOB]: 'glob\n',
            'lit/ab.md': 'plain\n',
          },
        },
      ],
      { bare },
    );
  });
  afterAll(async () => {
    await g.cleanup();
  });

  it('reads paths with spaces, unicode and newlines, and invalid UTF-8 as base64', async () => {
    const r = await up.readFiles(g.dir, 'main', [ODD, NEWLINE, 'bad-utf8.txt', '']);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value[0]).toMatchObject({ path: ODD, ok: true, bytes: Buffer.from('odd\n') });
    expect(r.value[1]).toMatchObject({ path: NEWLINE, ok: true, bytes: Buffer.from('nl\n') });
    expect(r.value[2]).toMatchObject({ ok: true, bytes: Buffer.from([0x66, 0xff, 0x66]) });
    expect(r.value[3]).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('returns a symlink as its target text, never followed', async () => {
    const r = await up.readFiles(g.dir, 'main', ['link']);
    expect(r.ok && r.value[0]).toMatchObject({ ok: true, symlink: true, bytes: Buffer.from('/etc/passwd') });
    const t = await up.getTree(g.dir, 'main', '');
    expect(t.ok && t.value.entries.find((e) => e.path === 'link')).toMatchObject({ type: 'symlink', size: 11 });
  });

  it('refuses files above maxFileBytes with too_large', async () => {
    const r = await up.readFiles(g.dir, 'main', ['big.txt', 'a.txt']);
    expect(r.ok && r.value.map((x) => (x.ok ? 'ok' : x.error.code))).toEqual(['too_large', 'ok']);
  });

  it('lists trees with odd names and reads old refs by full id', async () => {
    const t = await up.getTree(g.dir, 'main', 'odd dir');
    expect(t.ok && t.value.entries).toEqual([expect.objectContaining({ path: ODD, type: 'file', size: 4 })]);
    const first = (await g.git('rev-parse', 'main~1')).trim();
    const old = await up.readFiles(g.dir, first, ['big.txt', 'a.txt']);
    expect(old.ok && old.value.map((x) => x.ok)).toEqual([false, true]);
    const abbrev = await up.getTree(g.dir, first.slice(0, 10), '');
    expect(!abbrev.ok && abbrev.error.code).toBe('not_found');
    for (const expr of ['main~1', 'main^', 'main:a.txt', '@{-1}', '-h', 'main^{/one}']) {
      const r = await up.getTree(g.dir, expr, '');
      expect(!r.ok && r.error.code).toBe('not_found');
    }
  });

  it('treats path prefixes literally in listCommits', async () => {
    const r = await up.listCommits(g.dir, 'main', { paths: [GLOB], skip: 0, limit: 10 });
    expect(r.ok && r.value.commits.map((c) => c.message)).toEqual(['two']);
    const none = await up.listCommits(g.dir, 'main', { paths: ['lit/*'], skip: 0, limit: 10 });
    expect(none.ok && none.value.commits).toEqual([]);
    const nl = await up.listCommits(g.dir, 'main', { paths: [NEWLINE], skip: 0, limit: 10 });
    expect(nl.ok && nl.value.commits.map((c) => [c.message, c.files])).toEqual([
      ['one', expect.arrayContaining([NEWLINE, ODD, 'a.txt'])],
    ]);
  });
});

describe('localgit repositories', () => {
  let g: GitDir;
  let empty: GitDir;
  let notRepo: string;
  beforeAll(async () => {
    g = await makeRepo([{ message: 'one', files: { 'sub/x.txt': 'x\n' } }]);
    empty = await makeRepo([], { bare: true });
    notRepo = await mkdtemp(join(tmpdir(), 'gb-norepo-'));
    await writeFile(join(notRepo, 'f'), 'x');
  });
  afterAll(async () => {
    await g.cleanup();
    await empty.cleanup();
    await rm(notRepo, { recursive: true, force: true });
  });

  it('refuses relative paths, non-repositories and subdirectories of a working tree', async () => {
    const up = createLocalGitUpstream();
    const rel = await up.defaultBranch('relative/repo');
    expect(!rel.ok && rel.error.code).toBe('invalid');
    for (const p of [notRepo, join(g.dir, 'sub'), join(notRepo, 'missing')]) {
      const r = await up.getTree(p, 'main', '');
      expect(!r.ok && r.error).toMatchObject({ code: 'not_found' });
    }
  });

  it('lists configured repositories plus the ones used since', async () => {
    const up = createLocalGitUpstream({ repos: [g.dir] });
    expect(await up.listRepos()).toEqual({ ok: true, value: [{ name: g.dir, defaultBranch: 'main' }] });
    await up.listBranches(empty.dir);
    const r = await up.listRepos();
    expect(r.ok && r.value.map((x) => x.name)).toEqual([g.dir, empty.dir]);
  });

  it('answers empty_repository for reads of a repository without commits', async () => {
    const up = createLocalGitUpstream();
    expect(await up.defaultBranch(empty.dir)).toEqual({ ok: true, value: 'main' });
    expect(await up.listBranches(empty.dir)).toEqual({ ok: true, value: [] });
    for (const r of [
      await up.getTree(empty.dir, 'main', ''),
      await up.readFiles(empty.dir, 'main', ['a']),
      await up.listCommits(empty.dir, 'main', { paths: [''], skip: 0, limit: 5 }),
      await up.branchHead(empty.dir, 'main'),
    ]) {
      expect(!r.ok && r.error.code).toBe('empty_repository');
    }
  });

  it('lists a submodule entry (gitlink) as type submodule without size, and cannot read it as a file', async () => {
    const sha = await g.head();
    await g.git('update-index', '--add', '--cacheinfo', `160000,${sha},vendor/sub`);
    await g.git('commit', '-q', '-m', 'add submodule');
    const up = createLocalGitUpstream();
    const t = await up.getTree(g.dir, 'main', 'vendor');
    expect(t.ok && t.value.entries).toEqual([{ path: 'vendor/sub', type: 'submodule', sha }]);
    const r = await up.readFiles(g.dir, 'main', ['vendor/sub']);
    expect(r.ok && r.value[0]).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const sub = await up.getTree(g.dir, 'main', 'vendor/sub');
    expect(!sub.ok && sub.error.code).toBe('not_found');
  });

  it('reports health and invalid branch names', async () => {
    const up = createLocalGitUpstream();
    expect(await up.health()).toMatchObject({ ok: true, detail: expect.stringMatching(/^git version/) });
    const bad = await up.branchHead(g.dir, 'bad..name');
    expect(!bad.ok && bad.error.code).toBe('invalid');
    await up.close();
  });

  it('treats paths git would resolve outside the tree as missing', async () => {
    const up = createLocalGitUpstream();
    const r = await up.readFiles(g.dir, 'main', ['../x', './sub/x.txt', 'sub/x.txt', '/etc/passwd']);
    expect(r.ok && r.value.map((x) => x.ok)).toEqual([false, false, true, false]);
    for (const p of ['../', './sub', '/etc']) {
      const t = await up.getTree(g.dir, 'main', p);
      expect(!t.ok && t.error.code).toBe('not_found');
    }
    const c = await up.listCommits(g.dir, 'main', { paths: ['../x'], skip: 0, limit: 5 });
    expect(c).toEqual({ ok: true, value: { commits: [], hasMore: false } });
  });

  it('never echoes git stderr or other paths in messages', async () => {
    const up = createLocalGitUpstream();
    const r = await up.getTree(notRepo, 'main', '');
    expect(!r.ok && r.error.message).toBe(`Repository not found: ${notRepo}`);
    const m = await up.getTree(g.dir, 'main', 'nope');
    expect(!m.ok && m.error.message).toBe('Directory not found: nope');
  });
});
