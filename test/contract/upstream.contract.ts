// The behaviour every Upstream must have, through the port only. `git` (a bare GitDir behind the upstream) makes
// out-of-band commits and checks results. Run by each adapter's *.contract.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Upstream } from '../../src/upstream/types.js';
import type { CommitSpec, GitDir } from '../support/gitdir.js';

export interface ContractFixture {
  upstream: Upstream;
  repo: string;
  git: GitDir;
  cleanup(): Promise<void>;
}

/** Behaviours an upstream may skip, each with the reason it cannot do them. */
export interface ContractOptions {
  skip?: { symlinks?: string; concurrentWrites?: string };
}

const HISTORY: CommitSpec[] = [
  {
    message: 'initial',
    files: { 'README.md': 'hello\n', 'src/a.ts': 'export const a = 1;\n', 'docs/guide.md': 'guide\n' },
  },
  {
    message: 'binary and spaces',
    files: { 'img/logo.bin': Buffer.from([0, 1, 2, 255, 0]), 'docs/with space.md': 'spaced\n' },
  },
  { message: 'touch src', files: { 'src/a.ts': 'export const a = 2;\nexport const b = 3;\n' } },
  { message: 'feature work', files: { 'src/feature.ts': 'feature\n' }, branch: 'feature' },
  { message: 'rename guide', files: { 'docs/guide.md': null, 'docs/manual.md': 'guide\n' }, branch: 'main' },
];

/** Registers the Upstream contract suite under `name`. */
export function runUpstreamContract(
  name: string,
  setup: (commits: CommitSpec[]) => Promise<ContractFixture>,
  options: ContractOptions = {},
): void {
  describe(`Upstream contract: ${name}`, () => {
    let f: ContractFixture;
    beforeEach(async () => {
      f = await setup(HISTORY);
    });
    afterEach(async () => {
      await f.cleanup();
    });

    it('names the repository and its default branch', async () => {
      expect(await f.upstream.defaultBranch(f.repo)).toEqual({ ok: true, value: 'main' });
      const repos = await f.upstream.listRepos();
      expect(repos.ok && repos.value.find((r) => r.name === f.repo)?.defaultBranch).toBe('main');
    });

    it('lists branches with their heads and answers branchHead', async () => {
      const branches = await f.upstream.listBranches(f.repo);
      expect(branches.ok).toBe(true);
      if (!branches.ok) return;
      const byName = Object.fromEntries(branches.value.map((b) => [b.name, b.sha]));
      expect(byName['main']).toBe(await f.git.head('main'));
      expect(byName['feature']).toBe(await f.git.head('feature'));
      expect(await f.upstream.branchHead(f.repo, 'main')).toEqual({ ok: true, value: await f.git.head('main') });
      const missing = await f.upstream.branchHead(f.repo, 'no-such-branch');
      expect(!missing.ok && missing.error.code).toBe('not_found');
    });

    it('lists a tree recursively with full paths, types and blob sizes', async () => {
      const tree = await f.upstream.getTree(f.repo, 'main', '');
      expect(tree.ok).toBe(true);
      if (!tree.ok) return;
      expect(tree.value.commit).toBe(await f.git.head('main'));
      const byPath = new Map(tree.value.entries.map((e) => [e.path, e]));
      expect(byPath.get('src')?.type).toBe('dir');
      expect(byPath.get('src/a.ts')).toMatchObject({ type: 'file', size: 40 });
      expect(byPath.get('docs/with space.md')?.type).toBe('file');
      expect(byPath.has('docs/guide.md')).toBe(false);
      expect(byPath.has('src/feature.ts')).toBe(false);

      const sub = await f.upstream.getTree(f.repo, 'main', 'docs');
      expect(sub.ok && sub.value.entries.map((e) => e.path).sort()).toEqual(['docs/manual.md', 'docs/with space.md']);
    });

    it('answers not_found for a tree path that is a file or missing', async () => {
      for (const p of ['README.md', 'nope', 'src/nope']) {
        const r = await f.upstream.getTree(f.repo, 'main', p);
        expect(!r.ok && r.error.code).toBe('not_found');
      }
      const badRef = await f.upstream.getTree(f.repo, 'no-such-branch', '');
      expect(!badRef.ok && badRef.error.code).toBe('not_found');
    });

    it('reads files in order: text, binary as base64, missing and directories as not_found', async () => {
      const r = await f.upstream.readFiles(f.repo, 'main', [
        'src/a.ts',
        'img/logo.bin',
        'nope.txt',
        'docs',
        'docs/with space.md',
      ]);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const [text, bin, missing, dir, spaced] = r.value;
      expect(text).toMatchObject({
        path: 'src/a.ts',
        ok: true,
        bytes: Buffer.from('export const a = 2;\nexport const b = 3;\n'),
        size: 40,
      });
      expect(bin).toMatchObject({ path: 'img/logo.bin', ok: true, size: 5 });
      expect(bin?.ok && Buffer.from(bin.bytes)).toEqual(Buffer.from([0, 1, 2, 255, 0]));
      expect(missing).toMatchObject({ path: 'nope.txt', ok: false, error: { code: 'not_found' } });
      expect(dir).toMatchObject({ path: 'docs', ok: false, error: { code: 'not_found' } });
      expect(spaced).toMatchObject({ ok: true, bytes: Buffer.from('spaced\n') });
      // A directory and a missing file get the same message shape, so one cannot be told from the other.
      const shape = (x: typeof missing, p: string) => (x && !x.ok ? x.error.message.replace(p, 'X') : undefined);
      expect(shape(missing, 'nope.txt')).toBeDefined();
      expect(shape(missing, 'nope.txt')).toBe(shape(dir, 'docs'));
    });

    it('a BOM, CRLF and a NUL byte survive a read, byte for byte (issue 10: the adapters never decode)', async () => {
      const bom = Buffer.from('\ufeffline one\r\nline two\r\n', 'utf8');
      const nul = Buffer.from([0x61, 0x00, 0x62, 0x0d, 0x0a]);
      const lone = Buffer.from([0xef, 0xbb, 0xbf]);
      await f.git.commit({
        message: 'bytes',
        files: { 'bytes/bom.txt': bom, 'bytes/nul.bin': nul, 'bytes/only-bom.txt': lone },
      });
      const r = await f.upstream.readFiles(f.repo, 'main', ['bytes/bom.txt', 'bytes/nul.bin', 'bytes/only-bom.txt']);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const got = r.value.map((x) => (x.ok ? { size: x.size, bytes: Buffer.from(x.bytes).toString('hex') } : x));
      expect(got).toEqual([bom, nul, lone].map((b) => ({ size: b.length, bytes: b.toString('hex') })));
    });

    it.skipIf(options.skip?.symlinks)('returns a committed symlink as its target text', async () => {
      await f.git.commit({ message: 'link', files: { 'link-to-readme': { symlink: '../outside/secret' } } });
      const r = await f.upstream.readFiles(f.repo, 'main', ['link-to-readme']);
      expect(r.ok && r.value[0]).toMatchObject({ ok: true, symlink: true, bytes: Buffer.from('../outside/secret') });
    });

    it('pages commits newest first and filters by path prefix', async () => {
      const all = await f.upstream.listCommits(f.repo, 'main', { paths: [''], skip: 0, limit: 2 });
      expect(all.ok && all.value.commits.map((c) => c.message)).toEqual(['rename guide', 'touch src']);
      expect(all.ok && all.value.hasMore).toBe(true);
      const rest = await f.upstream.listCommits(f.repo, 'main', { paths: [''], skip: 2, limit: 10 });
      expect(rest.ok && rest.value.commits.map((c) => c.message)).toEqual(['binary and spaces', 'initial']);
      expect(rest.ok && rest.value.hasMore).toBe(false);
      const src = await f.upstream.listCommits(f.repo, 'main', { paths: ['src'], skip: 0, limit: 10 });
      expect(src.ok && src.value.commits.map((c) => c.message)).toEqual(['touch src', 'initial']);
      const both = await f.upstream.listCommits(f.repo, 'main', {
        paths: ['img', 'docs/manual.md'],
        skip: 0,
        limit: 10,
      });
      expect(both.ok && both.value.commits.map((c) => c.message)).toEqual(['rename guide', 'binary and spaces']);
      const head = all.ok ? all.value.commits[0] : undefined;
      expect(head).toMatchObject({
        sha: await f.git.head('main'),
        author: { name: 'Test Author', email: 'author@example.test' },
      });
      expect(head?.parents).toHaveLength(1);
      expect(head?.author.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
      // `files` is optional; when present it lists every touched path.
      if (head?.files) expect([...head.files].sort()).toEqual(['docs/guide.md', 'docs/manual.md']);
    });

    it('gets a commit with per-file status, counts, renames and patches', async () => {
      const sha = await f.git.head('main');
      const c = await f.upstream.getCommit(f.repo, sha);
      expect(c.ok).toBe(true);
      if (!c.ok) return;
      expect(c.value.message).toBe('rename guide');
      expect(c.value.files).toEqual([
        expect.objectContaining({
          path: 'docs/manual.md',
          status: 'renamed',
          previous_path: 'docs/guide.md',
          additions: 0,
          deletions: 0,
        }),
      ]);

      const touch = (await f.git.git('rev-parse', 'main~1')).trim();
      const t = await f.upstream.getCommit(f.repo, touch);
      const file = t.ok ? t.value.files[0] : undefined;
      expect(file).toMatchObject({ path: 'src/a.ts', status: 'modified', additions: 2, deletions: 1 });
      expect(file?.patch).toContain('+export const b = 3;');

      const bin = await f.upstream.getCommit(f.repo, (await f.git.git('rev-parse', 'main~2')).trim());
      const logo = bin.ok ? bin.value.files.find((x) => x.path === 'img/logo.bin') : undefined;
      expect(logo).toMatchObject({ status: 'added' });
      expect(logo?.patch).toBeUndefined();
    });

    it('refuses abbreviated ids and commits not reachable from the given ref', async () => {
      const feature = await f.git.head('feature');
      const short = await f.upstream.getCommit(f.repo, feature.slice(0, 12));
      expect(!short.ok && short.error.code).toBe('not_found');
      const hidden = await f.upstream.getCommit(f.repo, feature, 'main');
      expect(!hidden.ok && hidden.error.code).toBe('not_found');
      const visible = await f.upstream.getCommit(f.repo, feature, 'feature');
      expect(visible.ok).toBe(true);
      const bogus = await f.upstream.getCommit(f.repo, 'f'.repeat(40));
      expect(!bogus.ok && bogus.error.code).toBe('not_found');
    });

    it('compares refs: ahead, behind, identical, diverged', async () => {
      const mb = (await f.git.git('merge-base', 'main', 'feature')).trim();
      const div = await f.upstream.compare(f.repo, 'main', 'feature');
      expect(div.ok && div.value).toMatchObject({
        status: 'diverged',
        ahead_by: 1,
        behind_by: 1,
        merge_base: mb,
        files_complete: true,
      });
      expect(div.ok && div.value.commits.map((c) => c.message)).toEqual(['feature work']);
      expect(div.ok && div.value.files.map((x) => [x.path, x.status])).toEqual([['src/feature.ts', 'added']]);
      const same = await f.upstream.compare(f.repo, 'main', 'main');
      expect(same.ok && same.value).toMatchObject({ status: 'identical', ahead_by: 0, behind_by: 0 });
      const ahead = await f.upstream.compare(f.repo, mb, 'main');
      expect(ahead.ok && ahead.value).toMatchObject({ status: 'ahead', ahead_by: 1, behind_by: 0 });
      const behind = await f.upstream.compare(f.repo, 'main', mb);
      expect(behind.ok && behind.value).toMatchObject({ status: 'behind', ahead_by: 0, behind_by: 1 });
    });

    it('isAncestor: a commit and its ancestors are, a side branch, an unknown or malformed id are not', async () => {
      const main = await f.git.head('main');
      const feature = await f.git.head('feature');
      const first = (await f.git.git('rev-list', '--max-parents=0', 'main')).trim();
      expect(await f.upstream.isAncestor(f.repo, first, main)).toEqual({ ok: true, value: true });
      expect(await f.upstream.isAncestor(f.repo, main, main)).toEqual({ ok: true, value: true });
      expect(await f.upstream.isAncestor(f.repo, main, first)).toEqual({ ok: true, value: false });
      expect(await f.upstream.isAncestor(f.repo, feature, main)).toEqual({ ok: true, value: false });
      expect(await f.upstream.isAncestor(f.repo, 'f'.repeat(40), main)).toEqual({ ok: true, value: false });
      expect(await f.upstream.isAncestor(f.repo, '--all', main)).toEqual({ ok: true, value: false });
    });

    it('grep: first match per line in the given files only, in their order; limit, case, regex, binary skipped', async () => {
      await f.git.commit({
        message: 'grep corpus',
        files: {
          'g/one.txt': 'alpha beta\nno match\nBeta gamma beta\n',
          'g/two.txt': 'x beta\n',
          'g/skip.txt': 'beta everywhere\n',
          'g/bin.dat': Buffer.from([0x62, 0x65, 0x74, 0x61, 0, 1]),
          'g/wide.txt': `é${'beta'}\n`,
        },
      });
      const head = await f.git.head('main');
      const tree = await f.upstream.getTree(f.repo, head, 'g');
      if (!tree.ok) throw new Error('no tree');
      const sha = (p: string) => tree.value.entries.find((e) => e.path === p)?.sha ?? '';
      const files = ['g/two.txt', 'g/one.txt', 'g/bin.dat', 'g/wide.txt'].map((path) => ({ path, sha: sha(path) }));
      const base = {
        files,
        cover: files.map((f) => f.path),
        pattern: 'beta',
        mode: 'literal' as const,
        caseSensitive: true,
        maxMatches: 50,
        timeoutMs: 10_000,
      };
      const all = await f.upstream.grep(f.repo, head, base);
      expect(all).toEqual({
        ok: true,
        value: {
          end: 'complete',
          skipped: [],
          matches: [
            { path: 'g/two.txt', line: 1, column: 3, text: 'x beta', textColumn: 1 },
            { path: 'g/one.txt', line: 1, column: 7, text: 'alpha beta', textColumn: 1 },
            { path: 'g/one.txt', line: 3, column: 12, text: 'Beta gamma beta', textColumn: 1 },
            { path: 'g/wide.txt', line: 1, column: 2, text: 'ébeta', textColumn: 1 },
          ],
        },
      });
      const folded = await f.upstream.grep(f.repo, head, { ...base, caseSensitive: false });
      expect(folded.ok && folded.value.matches.map((m) => `${m.path}:${m.line}:${m.column}`)).toEqual([
        'g/two.txt:1:3',
        'g/one.txt:1:7',
        'g/one.txt:3:1',
        'g/wide.txt:1:2',
      ]);
      const limited = await f.upstream.grep(f.repo, head, { ...base, maxMatches: 2 });
      expect(limited.ok && limited.value.end).toBe('limit');
      expect(limited.ok && limited.value.matches.length).toBe(2);
      const regex = await f.upstream.grep(f.repo, head, { ...base, mode: 'regex', pattern: '^[a-z]+ b' });
      expect(regex.ok && regex.value.matches.map((m) => `${m.path}:${m.line}:${m.column}`)).toEqual([
        'g/two.txt:1:1',
        'g/one.txt:1:1',
      ]);
      const none = await f.upstream.grep(f.repo, head, { ...base, pattern: 'zeta' });
      expect(none).toEqual({ ok: true, value: { end: 'complete', matches: [], skipped: [] } });
      const bomb = await f.upstream.grep(f.repo, head, {
        ...base,
        files: [{ path: 'g/one.txt', sha: sha('g/one.txt') }],
        mode: 'regex',
        pattern: '(a|aa)+$',
        timeoutMs: 3000,
      });
      expect(bomb.ok).toBe(true);
    });

    it('commits files and deletes atomically on top of the branch head', async () => {
      const before = await f.git.head('main');
      const w = await f.upstream.commitFiles(f.repo, 'main', {
        message: 'agent edit',
        files: [
          { path: 'src/new file.ts', content: 'new\n', encoding: 'utf-8' },
          { path: 'bin/data', content: Buffer.from([0, 9, 8]).toString('base64'), encoding: 'base64' },
        ],
        deletes: ['README.md', 'does/not/exist.txt'],
        author: { name: 'Agent', email: 'agent@example.test' },
      });
      expect(w.ok && w.value).toMatchObject({ branch: 'main', parent: before, retries: 0 });
      if (!w.ok) return;
      expect(await f.git.head('main')).toBe(w.value.sha);
      const r = await f.upstream.readFiles(f.repo, 'main', ['src/new file.ts', 'bin/data', 'README.md']);
      expect(r.ok && r.value.map((x) => x.ok)).toEqual([true, true, false]);
      const c = await f.upstream.getCommit(f.repo, w.value.sha);
      expect(c.ok && c.value.author).toMatchObject({ name: 'Agent', email: 'agent@example.test' });
      expect(c.ok && c.value.parents).toEqual([before]);
    });

    it('always creates a commit, even when nothing changes', async () => {
      const before = await f.git.head('main');
      const w = await f.upstream.commitFiles(f.repo, 'main', {
        message: 'same content',
        files: [{ path: 'README.md', content: 'hello\n', encoding: 'utf-8' }],
        deletes: ['missing.txt'],
      });
      expect(w.ok && w.value.parent).toBe(before);
      expect(w.ok && w.value.sha).not.toBe(before);
    });

    it('builds on commits made out of band and refuses unknown branches', async () => {
      await f.git.commit({ message: 'out of band', files: { 'oob.txt': 'x\n' } });
      const head = await f.git.head('main');
      const w = await f.upstream.commitFiles(f.repo, 'main', {
        message: 'after',
        files: [{ path: 'a.txt', content: 'a', encoding: 'utf-8' }],
        deletes: [],
      });
      expect(w.ok && w.value.parent).toBe(head);
      const missing = await f.upstream.commitFiles(f.repo, 'nope', { message: 'x', files: [], deletes: [] });
      expect(!missing.ok && missing.error.code).toBe('not_found');
    });

    it.skipIf(options.skip?.concurrentWrites)('lands concurrent writes to different files', async () => {
      const results = await Promise.all(
        [0, 1, 2, 3, 4].map((i) =>
          f.upstream.commitFiles(f.repo, 'main', {
            message: `w${i}`,
            files: [{ path: `w/${i}.txt`, content: `${i}\n`, encoding: 'utf-8' }],
            deletes: [],
          }),
        ),
      );
      expect(results.every((r) => r.ok)).toBe(true);
      const tree = await f.upstream.getTree(f.repo, 'main', 'w');
      expect(tree.ok && tree.value.entries.map((e) => e.path).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `w/${i}.txt`));
    });

    // Other processes write while the upstream serves: a reader kept between calls must see their objects and refs.
    const text = async (ref: string, path: string) => {
      const r = await f.upstream.readFiles(f.repo, ref, [path]);
      const one = r.ok ? r.value[0] : undefined;
      return one?.ok ? Buffer.from(one.bytes).toString('utf8') : one?.error.code;
    };

    it('sees new loose objects and a moved branch between two calls', async () => {
      expect(await text('main', 'README.md')).toBe('hello\n');
      const before = await f.git.head('main');
      await f.git.commit({
        message: 'out of band edit',
        files: { 'README.md': 'edited\n', 'new/fresh.txt': 'fresh\n' },
      });
      const after = await f.git.head('main');
      expect(await f.upstream.branchHead(f.repo, 'main')).toEqual({ ok: true, value: after });
      expect(await text('main', 'README.md')).toBe('edited\n');
      expect(await text('main', 'new/fresh.txt')).toBe('fresh\n');
      expect(await text(before, 'README.md')).toBe('hello\n');
      const tree = await f.upstream.getTree(f.repo, 'main', 'new');
      expect(tree.ok && tree.value.entries.map((e) => e.path)).toEqual(['new/fresh.txt']);
      const page = await f.upstream.listCommits(f.repo, 'main', { paths: [''], skip: 0, limit: 1 });
      expect(page.ok && page.value.commits[0]?.sha).toBe(after);
    });

    it('sees objects moved into a new pack and written straight into one', async () => {
      expect(await text('main', 'src/a.ts')).toBe('export const a = 2;\nexport const b = 3;\n');
      // Every object into one new pack, loose copies removed: a reader that remembered loose paths must look again.
      await f.git.git('repack', '-a', '-d', '-q');
      await f.git.git('prune-packed');
      expect(await text('main', 'src/a.ts')).toBe('export const a = 2;\nexport const b = 3;\n');
      await f.git.commit({ message: 'after repack', files: { 'packed/late.txt': 'late\n' } });
      await f.git.git('repack', '-d', '-q');
      await f.git.git('prune-packed');
      expect(await text('main', 'packed/late.txt')).toBe('late\n');
      const head = await f.git.head('main');
      const c = await f.upstream.getCommit(f.repo, head, 'main');
      expect(c.ok && c.value.files.map((x) => x.path)).toEqual(['packed/late.txt']);
    });

    it('sees packed refs, a loose ref over a packed one, and a ref moved inside packed-refs', async () => {
      const main = await f.git.head('main');
      const feature = await f.git.head('feature');
      expect(await f.upstream.branchHead(f.repo, 'feature')).toEqual({ ok: true, value: feature });
      await f.git.git('pack-refs', '--all', '--prune');
      expect(await f.upstream.branchHead(f.repo, 'feature')).toEqual({ ok: true, value: feature });
      expect(await text('feature', 'src/feature.ts')).toBe('feature\n');
      // A loose ref now shadows the packed one.
      await f.git.git('update-ref', 'refs/heads/feature', main);
      expect(await f.upstream.branchHead(f.repo, 'feature')).toEqual({ ok: true, value: main });
      expect(await text('feature', 'src/feature.ts')).toBe('not_found');
      // Back into packed-refs only, moved there.
      await f.git.git('update-ref', 'refs/heads/feature', feature);
      await f.git.git('pack-refs', '--all', '--prune');
      expect(await f.upstream.branchHead(f.repo, 'feature')).toEqual({ ok: true, value: feature });
      expect(await text('feature', 'src/feature.ts')).toBe('feature\n');
      // Deleted while packed: gone at once.
      await f.git.git('update-ref', '-d', 'refs/heads/feature');
      const gone = await f.upstream.branchHead(f.repo, 'feature');
      expect(!gone.ok && gone.error.code).toBe('not_found');
    });
  });
}
