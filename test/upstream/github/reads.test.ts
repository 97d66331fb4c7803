// Reads through the real Octokit stack against the GitHub emulator: repos, branches, trees (and the truncated-tree
// fallback), files (text, binary, > 1 MB, symlinks, submodule-free dirs), history and compare.
import { execFileSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitDir } from '../../support/gitdir.js';
import { startHarness, TOKEN, type Harness } from './harness.js';

let h: Harness;
let repo: string;
let git: GitDir;
const big = Buffer.alloc(1_500_000, 'abcdefghij\n'); // > 1 MB: the contents API would answer encoding "none"

beforeAll(async () => {
  h = await startHarness({ treeEntryLimit: 6 });
  ({ name: repo, git } = await h.repo([
    {
      message: 'initial',
      files: { 'README.md': 'hello\n', 'src/a.ts': 'a\n', 'src/lib/b.ts': 'b\n', 'docs/x.md': 'x\n' },
    },
    {
      message: 'assets',
      files: {
        'img/logo.png': Buffer.from([0x89, 0x50, 0, 1, 2]),
        'big.txt': big,
        'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      },
    },
    { message: 'link', files: { link: { symlink: 'src/a.ts' } } },
    { message: 'on feature', files: { 'feature/f.ts': 'f\n' }, branch: 'feature/x' },
    { message: 'touch src again', files: { 'src/a.ts': 'a2\n' }, branch: 'main' },
  ]));
}, 60_000);
afterAll(async () => {
  await h.close();
});

describe('repositories and branches', () => {
  it('answers default branch, repo list, branches (slash in name) and heads', async () => {
    const u = h.upstream();
    expect(await u.defaultBranch(repo)).toEqual({ ok: true, value: 'main' });
    const repos = await u.listRepos();
    expect(repos.ok && repos.value.map((r) => r.name)).toContain(repo);
    const branches = await u.listBranches(repo);
    expect(branches.ok && branches.value.map((b) => b.name).sort()).toEqual(['feature/x', 'main']);
    expect(await u.branchHead(repo, 'feature/x')).toEqual({ ok: true, value: await git.head('feature/x') });
    const missing = await u.branchHead(repo, 'nope');
    expect(!missing.ok && missing.error.code).toBe('not_found');
  });

  it('refuses names that are not owner/name, and unknown repositories', async () => {
    const u = h.upstream();
    for (const bad of ['justname', 'a/b/c', '/x', '../etc', '']) {
      const r = await u.defaultBranch(bad);
      expect(!r.ok && r.error.code).toBe('invalid');
    }
    const missing = await u.getTree('acme/does-not-exist', 'main', '');
    expect(!missing.ok && missing.error.code).toBe('not_found');
  });
});

describe('trees', () => {
  it('falls back to walking only the requested subtree when the recursive listing is truncated', async () => {
    const u = h.upstream();
    const mark = h.mark();
    const root = await u.getTree(repo, 'main', '');
    expect(root.ok).toBe(true);
    if (!root.ok) return;
    expect(root.value.commit).toBe(await git.head('main'));
    const byPath = new Map(root.value.entries.map((e) => [e.path, e]));
    // More entries than treeEntryLimit (6): GitHub would say truncated; the adapter must still list everything.
    expect([...byPath.keys()].sort()).toEqual(
      [
        'README.md',
        'big.txt',
        'docs',
        'docs/x.md',
        'img',
        'img/logo.png',
        'latin1.txt',
        'link',
        'src',
        'src/a.ts',
        'src/lib',
        'src/lib/b.ts',
      ].sort(),
    );
    expect(byPath.get('link')?.type).toBe('symlink');
    expect(byPath.get('src/lib')).toEqual({ path: 'src/lib', type: 'dir', sha: expect.any(String) });
    expect(byPath.get('big.txt')?.size).toBe(big.length);
    expect(mark().some((r) => r.path.includes('recursive'))).toBe(true);

    const sub = await u.getTree(repo, 'main', 'src');
    expect(sub.ok && sub.value.entries.map((e) => e.path).sort()).toEqual(['src/a.ts', 'src/lib', 'src/lib/b.ts']);
    for (const p of ['README.md', 'nope', 'src/nope']) {
      const r = await u.getTree(repo, 'main', p);
      expect(!r.ok && r.error.code).toBe('not_found');
    }
  });

  it('lists a branch whose name has a slash, and a tree at a commit SHA', async () => {
    const u = h.upstream();
    const t = await u.getTree(repo, 'feature/x', 'feature');
    expect(t.ok && t.value.entries.map((e) => e.path)).toEqual(['feature/f.ts']);
    const first = (await git.git('rev-list', '--max-parents=0', 'main')).trim();
    const old = await u.getTree(repo, first, 'src');
    expect(old.ok && old.value.commit).toBe(first);
  });
});

describe('files', () => {
  it('reads text, binary, invalid UTF-8, > 1 MB (via blobs) and symlinks; dirs and missing alike', async () => {
    const u = h.upstream();
    const r = await u.readFiles(repo, 'main', [
      'src/a.ts',
      'img/logo.png',
      'latin1.txt',
      'big.txt',
      'link',
      'src',
      'nope',
      'src/lib/b.ts',
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [text, png, latin1, large, link, dir, missing, nested] = r.value;
    expect(text).toMatchObject({ path: 'src/a.ts', ok: true, bytes: Buffer.from('a2\n'), size: 3 });
    expect(png).toMatchObject({ ok: true, size: 5 });
    expect(png?.ok && Buffer.from(png.bytes)).toEqual(Buffer.from([0x89, 0x50, 0, 1, 2]));
    expect(latin1?.ok && latin1.bytes.includes(0xe9)).toBe(true);
    expect(large?.ok && large.size).toBe(big.length);
    expect(large?.ok && Buffer.from(large.bytes).equals(big)).toBe(true);
    expect(link).toMatchObject({ ok: true, symlink: true, bytes: Buffer.from('src/a.ts') });
    expect(nested).toMatchObject({ ok: true, bytes: Buffer.from('b\n') });
    expect(dir).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(!dir?.ok && dir?.error.message.replace('src', 'P')).toBe(
      !missing?.ok && missing?.error.message.replace('nope', 'P'),
    );
  });
});

describe('history', () => {
  it('merges per-prefix streams newest first, deduplicates, pages with skip/limit and hasMore', async () => {
    const u = h.upstream();
    const all = await u.listCommits(repo, 'main', { paths: [''], skip: 0, limit: 10 });
    expect(all.ok && all.value.commits.map((c) => c.message)).toEqual(['touch src again', 'link', 'assets', 'initial']);
    expect(all.ok && all.value.hasMore).toBe(false);
    expect(all.ok && all.value.commits.every((c) => c.files === undefined)).toBe(true);
    const merged = await u.listCommits(repo, 'main', { paths: ['src', 'img', 'src/lib'], skip: 0, limit: 2 });
    expect(merged.ok && merged.value.commits.map((c) => c.message)).toEqual(['touch src again', 'assets']);
    expect(merged.ok && merged.value.hasMore).toBe(true);
    const rest = await u.listCommits(repo, 'main', { paths: ['src', 'img', 'src/lib'], skip: 2, limit: 5 });
    expect(rest.ok && rest.value.commits.map((c) => c.message)).toEqual(['initial']);
    expect(rest.ok && rest.value.hasMore).toBe(false);
    const none = await u.listCommits(repo, 'nope', { paths: [''], skip: 0, limit: 1 });
    expect(!none.ok && none.error.code).toBe('not_found');
  });

  it('pages past 100 commits lazily', async () => {
    const { name, git: g } = await h.repo([{ message: 'c0', files: { 'n.txt': '0' } }]);
    // 120 more commits in one git process (fast-import), each its own commit on main.
    const head = await g.head('main');
    let stream = '';
    for (let i = 1; i <= 120; i++) {
      const msg = `c${i}`;
      const when = 1767225600 + i * 60;
      stream += `commit refs/heads/main\ncommitter T <t@example.test> ${when} +0000\ndata ${msg.length}\n${msg}\n`;
      stream += i === 1 ? `from ${head}\n` : '';
      stream += `M 100644 inline n.txt\ndata ${String(i).length}\n${i}\n\n`;
    }
    execFileSync('git', ['-C', g.dir, 'fast-import', '--quiet', '--force'], { input: stream });
    const u = h.upstream();
    const mark = h.mark();
    const p = await u.listCommits(name, 'main', { paths: [''], skip: 95, limit: 10 });
    expect(p.ok && p.value.commits.map((c) => c.message.trim())).toEqual(
      Array.from({ length: 10 }, (_, i) => `c${120 - 95 - i}`),
    );
    expect(p.ok && p.value.hasMore).toBe(true);
    expect(mark().filter((r) => r.route?.endsWith('/commits')).length).toBe(2);
  });

  it('gets commits by full SHA only and checks reachability (renames: see the contract suite)', async () => {
    const u = h.upstream();
    const feature = await git.head('feature/x');
    const head = await git.head('main');
    expect((await u.getCommit(repo, head)).ok).toBe(true);
    const short = await u.getCommit(repo, head.slice(0, 12));
    const hidden = await u.getCommit(repo, feature, 'main');
    const bogus = await u.getCommit(repo, '0'.repeat(40), 'main');
    for (const r of [short, hidden, bogus]) expect(!r.ok && r.error.code).toBe('not_found');
    expect(!hidden.ok && !bogus.ok && hidden.error.message.replace(feature, 'S')).toBe(
      !bogus.ok && bogus.error.message.replace('0'.repeat(40), 'S'),
    );
    const visible = await u.getCommit(repo, feature, 'feature/x');
    expect(visible.ok && visible.value.files.map((f) => f.path)).toEqual(['feature/f.ts']);
    const first = (await git.git('rev-list', '--max-parents=0', 'main')).trim();
    expect((await u.getCommit(repo, first, 'main')).ok).toBe(true);
  });

  it('pages through a commit with more than 300 files', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 305 }, (_, i) => [`gen/f${String(i).padStart(3, '0')}.txt`, `${i}\n`]),
    );
    const { name, git: g } = await h.repo([{ message: 'many', files: many }]);
    const u = h.upstream();
    const mark = h.mark();
    const c = await u.getCommit(name, await g.head('main'));
    expect(c.ok && c.value.files.length).toBe(305);
    expect(c.ok && new Set(c.value.files.map((f) => f.path)).size).toBe(305);
    expect(mark().filter((r) => r.route?.endsWith('/commits/{ref}')).length).toBe(2);
  });

  it('compares two refs', async () => {
    const u = h.upstream();
    const c = await u.compare(repo, 'main', 'feature/x');
    expect(c.ok && c.value).toMatchObject({ status: 'diverged', ahead_by: 1, behind_by: 1 });
    expect(c.ok && c.value.files.map((f) => f.path)).toEqual(['feature/f.ts']);
    const missing = await u.compare(repo, 'main', 'nope');
    expect(!missing.ok && missing.error.code).toBe('not_found');
  });
});

describe('empty repositories and injected fetch', () => {
  it('answers empty_repository (without retrying the 409) where GitHub says the repository is empty', async () => {
    const { name } = await h.repo([]);
    const u = h.upstream({ retryDelayMs: 1000 });
    const mark = h.mark();
    const head = await u.branchHead(name, 'main');
    expect(!head.ok && head.error.code).toBe('empty_repository');
    const tree = await u.getTree(name, 'main', '');
    expect(!tree.ok && tree.error.code).toBe('empty_repository');
    expect(mark().filter((r) => r.status === 409).length).toBe(2); // one each: plugin-retry leaves 409 alone
    const branches = await u.listBranches(name);
    expect(branches).toEqual({ ok: true, value: [] });
  });

  it('sends every request through the injected fetch, with the token only in its Authorization header', async () => {
    const calls: string[] = [];
    const u = h.upstream({
      fetch: (input, init) => {
        calls.push(String(input));
        expect(String(input)).not.toContain('ghp_');
        expect(new Headers(init?.headers).get('authorization')).toBe(`token ${TOKEN}`);
        return fetch(input, init);
      },
    });
    expect((await u.defaultBranch(repo)).ok).toBe(true);
    expect(calls).toEqual([`${h.emulator.url}/repos/${repo}`]);
    expect(u.stats().requests).toBe(1);
  });
});

describe('GitHub Enterprise Server base URL', () => {
  it('works under an /api/v3 prefix (a forwarding proxy strips it)', async () => {
    const target = new URL(h.emulator.url);
    const proxy = createServer((req, res) => {
      const path = (req.url ?? '/').replace(/^\/api\/v3/, '');
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const u = h.upstream({ baseUrl: `http://127.0.0.1:${port}/api/v3/` });
      expect(await u.defaultBranch(repo)).toEqual({ ok: true, value: 'main' });
      const r = await u.readFiles(repo, 'feature/x', ['feature/f.ts']);
      expect(r.ok && r.value[0]).toMatchObject({ ok: true, bytes: Buffer.from('f\n') });
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
