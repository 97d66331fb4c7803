// The behaviour every Workspace adapter must have, through the port only, on a real dirty repository (fixture.ts).
// Run by each adapter's *.contract.test.ts. The fixture is built once and only read; tests that write use their own.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusEntry, WorkTree, Workspace, WsResult } from '../../src/workspace/types.js';
import { gitIn, makeRepo } from '../support/gitdir.js';
import { makeDirtyRepo, type DirtyRepo } from './fixture.js';

/** The value of a successful result (fails the test otherwise). */
function value<T>(r: WsResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

function byPath(entries: readonly StatusEntry[], path: string): StatusEntry | undefined {
  return entries.find((e) => e.path === path);
}

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

/** git's own blob id of some bytes (what a symlink with this target hashes to). */
function hashText(cwd: string, input: string): string {
  return execFileSync('git', ['hash-object', '--stdin'], { cwd, input }).toString('utf8').trim();
}

/** Registers the Workspace contract suite under `name`. */
export function runWorkspaceContract(name: string, create: () => Workspace): void {
  describe(`Workspace contract: ${name}`, () => {
    let repo: DirtyRepo;
    let ws: Workspace;
    let main: WorkTree;
    let feat: WorkTree;

    beforeAll(async () => {
      repo = await makeDirtyRepo();
      ws = create();
      const m = value(await ws.open(repo.dir, 'main'));
      const f = value(await ws.open(repo.dir, 'feat'));
      if (!m || !f) throw new Error('main and feat are checked out');
      main = m;
      feat = f;
    }, 60_000);
    afterAll(async () => {
      await repo?.cleanup();
    });

    it('lists the main and the linked working tree, and opens only branches that are checked out', async () => {
      const list = value(await ws.worktrees(repo.dir));
      expect(list.map((w) => [w.branch, w.main])).toEqual([
        ['main', true],
        ['feat', false],
      ]);
      expect(list[1]?.path).toBe(repo.featDir);
      for (const b of ['other', 'nope', '-x', '--all', 'refs/heads/main', ''])
        expect(value(await ws.open(repo.dir, b)), b).toBeUndefined();
      expect(await ws.open('relative/path', 'main')).toMatchObject({ ok: false, error: { code: 'invalid' } });
      expect(await ws.open(join(repo.dir, 'src'), 'main')).toMatchObject({ ok: false, error: { code: 'not_found' } });
    });

    it('reports staged, unstaged, deleted, renamed, conflicted and untracked entries, ignored and stat-dirty files left out', async () => {
      const s = value(await main.status());
      expect(s.truncated).toBe(false);
      expect(byPath(s.entries, 'src/a.ts')).toMatchObject({ kind: 'ordinary', staged: '.', unstaged: 'M' });
      expect(byPath(s.entries, 'src/b.ts')).toMatchObject({ kind: 'ordinary', staged: 'M', unstaged: '.' });
      expect(byPath(s.entries, 'del.txt')).toMatchObject({ kind: 'ordinary', staged: '.', unstaged: 'D' });
      expect(byPath(s.entries, 'bin/run.sh')).toMatchObject({
        kind: 'ordinary',
        unstaged: 'M',
        modeIndex: '100644',
        modeWorktree: '100755',
      });
      expect(byPath(s.entries, 'docs/new.md')).toMatchObject({
        kind: 'renamed',
        origPath: 'docs/old.md',
        op: 'rename',
        staged: 'R',
        score: 100,
      });
      expect(byPath(s.entries, 'conf.txt')).toMatchObject({ kind: 'unmerged', xy: 'UU' });
      expect(byPath(s.entries, 'sub')).toMatchObject({ kind: 'ordinary', submodule: { commitChanged: true } });
      for (const p of ['notes.txt', 'untracked-dir/x.txt', 'link-out', 'link-dangling', 'link-dir']) {
        expect(byPath(s.entries, p), p).toEqual({ kind: 'untracked', path: p });
      }
      expect(byPath(s.entries, 'build/out.o')).toBeUndefined();
      expect(byPath(s.entries, 'README.md')).toBeUndefined();
      const ordinary = byPath(s.entries, 'src/a.ts');
      expect(ordinary?.kind === 'ordinary' && ordinary.oidHead).toBe(
        (await repo.git.git('rev-parse', 'HEAD:src/a.ts')).trim(),
      );
    });

    it('diffs the working tree against the index with raw per-file patches, stat-dirty files dropped', async () => {
      const d = value(await main.diff({ against: 'index', staged: false }));
      const paths = d.files.map((f) => f.path);
      expect(paths).toContain('src/a.ts');
      expect(paths).not.toContain('src/b.ts');
      expect(paths).not.toContain('README.md');
      const a = d.files.find((f) => f.path === 'src/a.ts');
      expect(a).toMatchObject({ status: 'modified', additions: 2, deletions: 1, binary: false, origPath: null });
      expect(text(a?.patch ?? new Uint8Array())).toMatch(
        /^diff --git a\/src\/a\.ts b\/src\/a\.ts\n[\s\S]*\n\+export const more = 4;\n$/,
      );
      expect(d.files.find((f) => f.path === 'del.txt')).toMatchObject({ status: 'deleted', deletions: 1 });
      expect(d.files.find((f) => f.path === 'img.bin')).toMatchObject({
        status: 'modified',
        binary: true,
        additions: 0,
      });
      expect(d.files.find((f) => f.path === 'bin/run.sh')).toMatchObject({
        oldMode: '100644',
        newMode: '100755',
        additions: 0,
      });
      expect(d.files.find((f) => f.path === 'link-in')).toMatchObject({ status: 'modified', oldMode: '120000' });
      expect(d.files.find((f) => f.path === 'conf.txt')).toMatchObject({ status: 'unmerged' });
      // A name git quotes in patch headers (quote, tab; non-ASCII left as is) is parsed back to the same path.
      expect(d.files.find((f) => f.path === 'odd/we"ird\tname é.txt')).toMatchObject({
        status: 'modified',
        additions: 1,
        deletions: 1,
      });
      expect(byPath(value(await main.status()).entries, 'odd/we"ird\tname é.txt')).toMatchObject({
        kind: 'ordinary',
        unstaged: 'M',
      });
      // Every patch belongs to its own file.
      for (const f of d.files)
        if (f.patch.length > 0 && !f.path.startsWith('odd/'))
          expect(text(f.patch).split('\n')[0]).toContain(`b/${f.path}`);
    });

    it('diffs the index against HEAD (staged) with renames, and the working tree against HEAD or a commit', async () => {
      const staged = value(await main.diff({ against: 'head', staged: true }));
      expect(staged.files.find((f) => f.path === 'src/b.ts')).toMatchObject({
        status: 'modified',
        additions: 1,
        deletions: 1,
      });
      expect(staged.files.find((f) => f.path === 'docs/new.md')).toMatchObject({
        status: 'renamed',
        origPath: 'docs/old.md',
      });
      expect(staged.files.map((f) => f.path)).not.toContain('src/a.ts');
      const head = value(await main.diff({ against: 'head', staged: false }));
      expect(head.files.map((f) => f.path)).toEqual(expect.arrayContaining(['src/a.ts', 'src/b.ts', 'del.txt']));
      const old = value(await main.diff({ against: { commit: repo.first }, staged: false, paths: ['src'] }));
      expect(old.files.map((f) => f.path).sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);
      expect(old.files.find((f) => f.path === 'src/c.ts')).toMatchObject({ status: 'added' });
    });

    it('refuses diffs git would misread, before git runs', async () => {
      expect(await main.diff({ against: 'index', staged: true })).toMatchObject({
        ok: false,
        error: { code: 'invalid' },
      });
      expect(await main.diff({ against: { commit: '--output=/tmp/x' }, staged: false })).toMatchObject({
        ok: false,
        error: { code: 'invalid' },
      });
      expect(await main.diff({ against: { commit: 'HEAD' }, staged: false })).toMatchObject({
        ok: false,
        error: { code: 'invalid' },
      });
      expect(await main.diff({ against: { commit: 'f'.repeat(40) }, staged: false })).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
    });

    it('reads HEAD, counts ahead/behind the upstream per prefix, and names the operation in progress', async () => {
      expect(value(await main.head())).toEqual({ branch: 'main', commit: repo.head, upstream: 'up' });
      expect(value(await main.upstreamCounts(['docs']))).toEqual({ kind: 'counted', ahead: 0, behind: 1 });
      expect(value(await main.upstreamCounts(['src']))).toEqual({ kind: 'counted', ahead: 2, behind: 0 });
      expect(value(await main.upstreamCounts(['']))).toEqual({ kind: 'counted', ahead: 3, behind: 1 });
      expect(value(await main.upstreamCounts([]))).toEqual({ kind: 'counted', ahead: 0, behind: 0 });
      expect(value(await feat.upstreamCounts(['']))).toEqual({ kind: 'none' });
      expect(value(await main.operation())).toBe('merge');
      expect(value(await feat.operation())).toBe('none');
    });

    it('previews a merge without touching anything', async () => {
      const before = await readFile(join(repo.dir, '.git/index'));
      expect(value(await feat.mergePreflight('other'))).toEqual({ kind: 'conflicted', paths: ['conf.txt'] });
      expect(value(await feat.mergePreflight('clean'))).toMatchObject({ kind: 'clean' });
      expect(value(await feat.mergePreflight('lone'))).toEqual({ kind: 'no_merge_base' });
      expect(await feat.mergePreflight('nope')).toMatchObject({ ok: false, error: { code: 'not_found' } });
      for (const b of ['-x', '--output=x', 'refs/heads/other', 'a..b'])
        expect(await feat.mergePreflight(b), b).toMatchObject({ ok: false, error: { code: 'invalid' } });
      expect(await readFile(join(repo.dir, '.git/index'))).toEqual(before);
      expect(
        value(await feat.status())
          .entries.map((e) => e.path)
          .sort(),
      ).toEqual(['feat-untracked.txt', 'feat.txt']);
    });

    it('reads the three sides of a conflict, capped', async () => {
      const c = value(await main.conflictSides('conf.txt', 1024));
      expect(c.base).toMatchObject({ present: true, truncated: false, size: 5, atPath: true });
      expect(c.base.present && text(c.base.bytes)).toBe('base\n');
      expect(c.ours.present && text(c.ours.bytes)).toBe('main\n');
      expect(c.theirs.present && text(c.theirs.bytes)).toBe('other\n');
      expect(c.worktree.kind === 'file' && text(c.worktree.bytes)).toMatch(
        /^<<<<<<< HEAD\nmain\n=======\nother\n>>>>>>> other\n$/,
      );
      const capped = value(await main.conflictSides('conf.txt', 2));
      expect(capped.ours).toMatchObject({ present: true, truncated: true, size: 5 });
      expect(capped.ours.present && text(capped.ours.bytes)).toBe('ma');
      expect(await main.conflictSides('src/a.ts', 1024)).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await main.conflictSides('src', 1024)).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await main.conflictSides('../conf.txt', 1024)).toMatchObject({ ok: false, error: { code: 'invalid' } });
    });

    it('lists submodules with recorded and checked-out commits', async () => {
      expect(value(await main.submodules())).toEqual([
        { path: 'sub', recorded: repo.subRecorded, checkedOut: repo.subCheckedOut },
      ]);
      expect(value(await feat.submodules())).toEqual([]);
    });

    it('checks integrity against HEAD with git-compatible hashes', async () => {
      const i = value(await main.integrity());
      const change = (p: string): string | undefined => i.entries.find((e) => e.path === p)?.change;
      expect(change('src/a.ts')).toBe('modified');
      expect(change('src/b.ts')).toBe('modified');
      expect(change('del.txt')).toBe('deleted');
      expect(change('docs/old.md')).toBe('deleted');
      expect(change('docs/new.md')).toBe('added');
      expect(change('bin/run.sh')).toBe('mode_changed');
      expect(change('link-in')).toBe('symlink_retargeted');
      expect(change('img.bin')).toBe('modified');
      expect(change('notes.txt')).toBe('added');
      expect(change('link-out')).toBe('added');
      expect(change('README.md')).toBeUndefined();
      expect(change('build/out.o')).toBeUndefined();
      expect(change('sub')).toBeUndefined();
      const a = i.entries.find((e) => e.path === 'src/a.ts');
      expect(a?.headOid).toBe((await repo.git.git('rev-parse', 'HEAD:src/a.ts')).trim());
      expect(a?.worktreeOid).toBe((await gitIn(repo.dir, ['hash-object', '--no-filters', 'src/a.ts'])).trim());
      const link = i.entries.find((e) => e.path === 'link-out');
      expect(link).toMatchObject({ worktreeMode: '120000', headOid: null });
      expect(link?.worktreeOid).toBe(hashText(repo.dir, '../outside.txt'));
      expect(i.entries.find((e) => e.path === 'link-in')).toMatchObject({
        headMode: '120000',
        worktreeMode: '120000',
        worktreeOid: hashText(repo.dir, 'src/b.ts'),
      });
      expect(i.entries.map((e) => e.path)).toEqual([...i.entries.map((e) => e.path)].sort());
    });

    it('reads files from disk, resolving symlinks inside the tree only', async () => {
      const a = value(await main.readFile('src/a.ts', 1024));
      expect(a).toMatchObject({ kind: 'file', resolvedPath: 'src/a.ts', executable: false });
      expect(a.kind === 'file' && text(a.bytes)).toBe('export const a = 3;\nexport const more = 4;\n');
      expect(value(await main.readFile('link-in', 1024))).toMatchObject({
        kind: 'file',
        path: 'link-in',
        resolvedPath: 'src/b.ts',
      });
      expect(value(await main.readFile('link-dir/a.ts', 1024))).toMatchObject({
        kind: 'file',
        resolvedPath: 'src/a.ts',
      });
      expect(value(await main.readFile('bin/run.sh', 1024))).toMatchObject({ kind: 'file', executable: true });
      expect(value(await main.readFile('link-out', 1024))).toEqual({
        kind: 'unresolvable',
        path: 'link-out',
        reason: 'outside',
      });
      expect(value(await main.readFile('link-dangling', 1024))).toEqual({
        kind: 'unresolvable',
        path: 'link-dangling',
        reason: 'dangling',
      });
      expect(value(await main.readFile('loop-a', 1024))).toEqual({
        kind: 'unresolvable',
        path: 'loop-a',
        reason: 'loop',
      });
      expect(value(await main.readFile('src', 1024))).toMatchObject({ kind: 'directory' });
      expect(value(await main.readFile('del.txt', 1024))).toEqual({ kind: 'missing', path: 'del.txt' });
      // The repository's own files are not content: identical to a path that does not exist.
      expect(value(await main.readFile('.git/config', 1024))).toEqual({ kind: 'missing', path: '.git/config' });
      expect(value(await main.readFile('sub/.git', 1024))).toEqual({ kind: 'missing', path: 'sub/.git' });
      expect(value(await main.readFile('src/a.ts', 5))).toMatchObject({ kind: 'too_large', size: 43 });
      for (const p of ['../outside.txt', '/etc/passwd', 'src/../x', '', 'a//b'])
        expect(await main.readFile(p, 1024), p).toMatchObject({ ok: false, error: { code: 'invalid' } });
      // The linked worktree reads its own disk.
      const f = value(await feat.readFile('feat.txt', 1024));
      expect(f.kind === 'file' && text(f.bytes)).toBe('feat changed\n');
    });

    it('gives per-commit churn under a prefix', async () => {
      const c = value(await main.recentChurn('src', 10));
      expect(c.commits.length).toBe(3);
      for (const commit of c.commits) for (const f of commit.files) expect(f.path.startsWith('src/')).toBe(true);
      expect(c.commits[0]?.files).toEqual([{ path: 'src/c.ts', additions: 1, deletions: 0, binary: false }]);
      const all = value(await main.recentChurn('', 1));
      expect(all.commits).toHaveLength(1);
      expect(await main.recentChurn('src', 0)).toMatchObject({ ok: false, error: { code: 'invalid' } });
    });

    it('with `read`, keeps only accepted paths in every listing and reads patches of those only (issue 19)', async () => {
      const read = (p: string) => p.startsWith('src/');
      const inSrc = (paths: readonly string[]) => paths.every(read);
      const all = value(await main.status());
      const cut = value(await main.status({ read }));
      expect(cut.entries.length).toBeGreaterThan(0);
      expect(inSrc(cut.entries.map((e) => e.path))).toBe(true);
      // No rename detection in the cut listing: every entry is ordinary, unmerged or untracked.
      expect(cut.entries.every((e) => e.kind !== 'renamed')).toBe(true);
      const untracked = (l: typeof all) =>
        l.entries.filter((e) => e.kind === 'untracked' && read(e.path)).map((e) => e.path);
      expect(untracked(cut)).toEqual(untracked(all));
      const d = value(await main.diff({ against: 'head', staged: false, read }));
      expect(d.files.length).toBeGreaterThan(0);
      expect(inSrc(d.files.flatMap((f) => [f.path, ...(f.origPath === null ? [] : [f.origPath])]))).toBe(true);
      expect(d.unread.length).toBeGreaterThan(0);
      expect(d.unread.some((u) => read(u.path))).toBe(false);
      expect(inSrc(value(await main.integrity({ read })).entries.map((e) => e.path))).toBe(true);
      expect(value(await main.submodules({ read: () => false }))).toEqual([]);
      expect(value(await main.submodules({ read: () => true })).length).toBe(value(await main.submodules()).length);
      const churn = value(await main.recentChurn('', 10, { read }));
      expect(churn.commits.length).toBeGreaterThan(0);
      expect(churn.commits.every((c) => c.files.length > 0 && inSrc(c.files.map((f) => f.path)))).toBe(true);
    });

    it('keeps two worktrees of one repository apart', async () => {
      const f = value(await feat.status()).entries.map((e) => e.path);
      expect(f).not.toContain('src/a.ts');
      const m = value(await main.status()).entries.map((e) => e.path);
      expect(m).not.toContain('feat-untracked.txt');
      expect(value(await feat.head())).toMatchObject({ branch: 'feat' });
    });

    it('answers on an unborn branch (no commit yet) as on an empty HEAD', async () => {
      const r = await makeRepo([]);
      try {
        await writeFile(join(r.dir, 'first.txt'), 'first\n');
        await r.git('add', 'first.txt');
        await writeFile(join(r.dir, 'loose.txt'), 'loose\n');
        const wt = value(await ws.open(r.dir, 'main'));
        if (!wt) throw new Error('an unborn main is checked out');
        expect(value(await wt.head())).toEqual({ branch: 'main', commit: null, upstream: null });
        expect(value(await wt.status()).entries).toEqual([
          expect.objectContaining({ kind: 'ordinary', path: 'first.txt', staged: 'A' }),
          { kind: 'untracked', path: 'loose.txt' },
        ]);
        expect(value(await wt.diff({ against: 'head', staged: true })).files).toEqual([
          expect.objectContaining({ path: 'first.txt', status: 'added' }),
        ]);
        expect(value(await wt.integrity()).entries.map((e) => [e.path, e.change])).toEqual([
          ['first.txt', 'added'],
          ['loose.txt', 'added'],
        ]);
        expect(value(await wt.submodules())).toEqual([]);
        expect(value(await wt.recentChurn('', 5))).toEqual({ commits: [], truncated: false });
        expect(value(await wt.upstreamCounts(['']))).toEqual({ kind: 'none' });
      } finally {
        await r.cleanup();
      }
    });

    it('adds a worktree for an allowlisted branch checked out nowhere, and refuses the rest', async () => {
      const r = await makeRepo([
        { message: 'one', files: { 'a.txt': 'a\n' } },
        { message: 'two', branch: 'side', files: { 'b.txt': 'b\n' } },
      ]);
      try {
        await r.git('checkout', '-q', 'main');
        const path = join(r.dir, '..', 'side-wt');
        const added = value(await ws.addWorktree(r.dir, 'side', path));
        expect(added).toMatchObject({ branch: 'side', main: false });
        expect(await readFile(join(path, 'b.txt'), 'utf8')).toBe('b\n');
        expect(value(await ws.open(r.dir, 'side'))?.branch).toBe('side');
        expect(await ws.addWorktree(r.dir, 'side', join(r.dir, '..', 'again'))).toMatchObject({
          ok: false,
          error: { code: 'conflict' },
        });
        expect(await ws.addWorktree(r.dir, 'main', join(r.dir, '..', 'm2'))).toMatchObject({
          ok: false,
          error: { code: 'conflict' },
        });
        expect(await ws.addWorktree(r.dir, 'nope', join(r.dir, '..', 'n'))).toMatchObject({
          ok: false,
          error: { code: 'not_found' },
        });
        expect(await ws.addWorktree(r.dir, '-b', join(r.dir, '..', 'n'))).toMatchObject({
          ok: false,
          error: { code: 'invalid' },
        });
        expect(await ws.addWorktree(r.dir, 'side', 'relative')).toMatchObject({
          ok: false,
          error: { code: 'invalid' },
        });
      } finally {
        await r.cleanup();
      }
    });
  });
}
