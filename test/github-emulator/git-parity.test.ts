// The emulator's answers for a repository agree with `git` itself on the same repository.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture, type Obj } from './helpers.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function body(path: string): Promise<Obj> {
  const res = await fx.call('GET', path);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body as Obj;
}

/** Follows rel="next" like Octokit's paginate does, collecting every item. */
async function all(path: string): Promise<Obj[]> {
  const items: Obj[] = [];
  let next: string | undefined = `${fx.em.url}${path}`;
  while (next) {
    const res = await fx.get(next.slice(fx.em.url.length));
    expect(res.status).toBe(200);
    items.push(...((await res.json()) as Obj[]));
    next = /<([^<>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return items;
}

describe('trees and contents agree with git', () => {
  it.each(['main', 'feature/x'])('recursive tree of %s equals git ls-tree -r -t -l', async (branch) => {
    const tree = await body(`/repos/octo/demo/git/trees/${encodeURIComponent(branch)}?recursive=1`);
    const fromGit = (await fx.repo.git('ls-tree', '-r', '-t', '-l', '-z', branch))
      .split('\0')
      .filter(Boolean)
      .map((l) => {
        const [meta = '', path] = l.split('\t');
        const [mode, type, sha, size] = meta.split(/ +/);
        return { path, mode, type, sha, ...(size === '-' ? {} : { size: Number(size) }) };
      });
    expect(tree.truncated).toBe(false);
    expect(
      tree.tree.map(({ path, mode, type, sha, size }: Obj) => ({
        path,
        mode,
        type,
        sha,
        ...(size === undefined ? {} : { size }),
      })),
    ).toEqual(fromGit);
    expect(tree.sha).toBe((await fx.repo.git('rev-parse', `${branch}^{tree}`)).trim());
  });

  it('every small file read through contents equals git cat-file, for raw and %2F-encoded paths', async () => {
    const files = (await fx.repo.git('ls-tree', '-r', '-l', '-z', 'main'))
      .split('\0')
      .filter(Boolean)
      .map((l) => {
        const [meta = '', path = ''] = l.split('\t');
        const [mode = '', , sha = '', size = '0'] = meta.split(/ +/);
        return { path, mode, sha, size: Number(size) };
      })
      .filter((f) => f.mode !== '120000' && f.size < 1024 * 1024);
    expect(files.length).toBeGreaterThan(4);
    for (const f of files) {
      const raw = await body(
        `/repos/octo/demo/contents/${f.path.split('/').map(encodeURIComponent).join('/')}?ref=main`,
      );
      const enc = await body(`/repos/octo/demo/contents/${encodeURIComponent(f.path)}?ref=main`);
      expect(enc).toEqual(raw);
      expect(raw.sha).toBe(f.sha);
      expect(raw.size).toBe(f.size);
      const bytes = Buffer.from((raw.content as string).replace(/\n/g, ''), 'base64');
      const viaGit = execFileSync('git', ['-C', fx.repo.dir, 'cat-file', 'blob', f.sha]); // bytes, not text
      expect(bytes.equals(viaGit)).toBe(true);
    }
  });

  it('directory listings equal git ls-tree of the directory', async () => {
    const listing = (await body('/repos/octo/demo/contents/src')) as unknown as Obj[];
    const fromGit = (await fx.repo.git('ls-tree', 'main:src'))
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[1]);
    expect(listing.map((e) => e.name)).toEqual(fromGit);
    expect(listing.map((e) => e.type)).toEqual(['file', 'file', 'dir']);
  });
});

describe('commit lists agree with git log', () => {
  const paths = [
    '',
    'src',
    'src/app.ts',
    'src/app',
    'src/lib',
    'src/lib/deep',
    'docs',
    'docs/manual.md',
    'docs/guide.md',
    'dir with space/a b#?.txt',
    'nope',
  ];
  it.each(paths)('path=%j, paged two at a time, equals git log main -- <path>', async (path) => {
    const q = new URLSearchParams({ sha: 'main', per_page: '2' });
    if (path) q.set('path', path);
    const listed = (await all(`/repos/octo/demo/commits?${q.toString()}`)).map((c) => c.sha);
    const fromGit = (await fx.repo.git('log', '--format=%H', 'main', ...(path ? ['--', path] : [])))
      .split('\n')
      .filter(Boolean);
    expect(listed).toEqual(fromGit);
  });

  it('lists from another branch by name with %2F', async () => {
    const listed = (await all('/repos/octo/demo/commits?sha=feature%2Fx')).map((c) => c.sha);
    expect(listed).toEqual((await fx.repo.git('log', '--format=%H', 'feature/x')).split('\n').filter(Boolean));
  });
});

describe('commit file lists agree with git diff-tree -M', () => {
  it('every commit on main: names, statuses, renames and line counts', async () => {
    const shas = (await fx.repo.git('log', '--format=%H', 'main')).split('\n').filter(Boolean);
    const letter: Record<string, string> = { added: 'A', removed: 'D', modified: 'M', renamed: 'R', changed: 'T' };
    for (const sha of shas) {
      const c = await body(`/repos/octo/demo/commits/${sha}`);
      const nameStatus = (await fx.repo.git('diff-tree', '--root', '-r', '-M', '--no-commit-id', '--name-status', sha))
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t'));
      const got = (c.files as Obj[]).map((f) =>
        f.status === 'renamed' ? [`R`, f.previous_filename, f.filename] : [letter[f.status], f.filename],
      );
      expect(got).toEqual(nameStatus.map(([st = '', ...names]) => [st.charAt(0), ...names]));
      const numstat = (await fx.repo.git('diff-tree', '--root', '-r', '-M', '--no-commit-id', '--numstat', sha))
        .split('\n')
        .filter(Boolean);
      (c.files as Obj[]).forEach((f, i) => {
        const [a = '', d = ''] = (numstat[i] ?? '').split('\t');
        expect([f.additions, f.deletions]).toEqual([a === '-' ? 0 : Number(a), d === '-' ? 0 : Number(d)]);
        expect(f.changes).toBe(f.additions + f.deletions);
      });
      expect(c.stats).toEqual({
        additions: (c.files as Obj[]).reduce((n, f) => n + f.additions, 0),
        deletions: (c.files as Obj[]).reduce((n, f) => n + f.deletions, 0),
        total: (c.files as Obj[]).reduce((n, f) => n + f.changes, 0),
      });
    }
  });

  it('patches start at @@, binary files have none, renames carry previous_filename', async () => {
    const edit = await body(
      `/repos/octo/demo/commits/${(await fx.repo.git('log', '--format=%H', '--grep=edit util', 'main')).trim()}`,
    );
    expect(edit.files[0].patch).toBe('@@ -1,3 +1,3 @@\n export function util() {\n-  return 1;\n+  return 2;\n }');
    const bin = await body(
      `/repos/octo/demo/commits/${(await fx.repo.git('log', '--format=%H', '--grep=binary and big', 'main')).trim()}`,
    );
    const logo = (bin.files as Obj[]).find((f) => f.filename === 'img/logo.bin');
    expect(logo).toMatchObject({ status: 'added' });
    expect(logo).not.toHaveProperty('patch');
    const ren = await body(
      `/repos/octo/demo/commits/${(await fx.repo.git('log', '--format=%H', '--grep=rename guide', 'main')).trim()}`,
    );
    expect(ren.files).toEqual([
      expect.objectContaining({
        status: 'renamed',
        filename: 'docs/manual.md',
        previous_filename: 'docs/guide.md',
        changes: 0,
      }),
    ]);
  });
});

describe('compare agrees with git', () => {
  it('main...feature/x: commits oldest first, ahead/behind, merge base and three-dot files', async () => {
    const cmp = await body('/repos/octo/demo/compare/main...feature%2Fx');
    const commits = (await fx.repo.git('log', '--reverse', '--format=%H', 'main..feature/x'))
      .split('\n')
      .filter(Boolean);
    const behind = (await fx.repo.git('rev-list', '--count', 'feature/x..main')).trim();
    expect(cmp.commits.map((c: Obj) => c.sha)).toEqual(commits);
    expect([cmp.ahead_by, cmp.behind_by, cmp.total_commits]).toEqual([commits.length, Number(behind), commits.length]);
    expect(cmp.status).toBe(Number(behind) > 0 ? 'diverged' : 'ahead');
    expect(cmp.merge_base_commit.sha).toBe((await fx.repo.git('merge-base', 'main', 'feature/x')).trim());
    const files = (await fx.repo.git('diff', '--name-only', 'main...feature/x')).split('\n').filter(Boolean);
    expect(cmp.files.map((f: Obj) => f.filename)).toEqual(files);
    const reverse = await body('/repos/octo/demo/compare/feature/x...main');
    expect(reverse.ahead_by).toBe(Number(behind));
  });
});
