// A real repository with a really dirty working tree for the working-tree port: a merge in progress with a conflict,
// staged, unstaged, deleted, renamed, untracked and ignored files, a binary change, a mode change, symlinks (in-tree,
// retargeted, out-of-tree, dangling, to a directory), a submodule moved off its recorded commit, a stat-dirty file,
// an upstream branch, and a linked worktree with its own changes.
import { chmod, mkdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitIn, makeRepo, type GitDir } from '../support/gitdir.js';

export interface DirtyRepo {
  readonly git: GitDir;
  /** The main working tree (the repository's path). */
  readonly dir: string;
  /** The linked worktree of branch `feat`. */
  readonly featDir: string;
  /** The first commit of main. */
  readonly first: string;
  /** HEAD of main. */
  readonly head: string;
  /** The commit the submodule records, and the one checked out there now. */
  readonly subRecorded: string;
  readonly subCheckedOut: string;
  cleanup(): Promise<void>;
}

/** Builds the fixture (a few seconds of git). */
export async function makeDirtyRepo(): Promise<DirtyRepo> {
  const sub = await makeRepo([
    { message: 's1', files: { 's.txt': 's1\n' } },
    { message: 's2', files: { 's.txt': 's2\n' } },
  ]);
  const subFirst = (await sub.git('rev-parse', 'HEAD~1')).trim();
  const git = await makeRepo([
    {
      message: 'initial',
      files: {
        'README.md': 'readme\n',
        'src/a.ts': 'export const a = 1;\n',
        'src/b.ts': 'export const b = 1;\n',
        'docs/old.md': 'a document long enough to be found again after a rename\n'.repeat(4),
        'bin/run.sh': '#!/bin/sh\necho run\n',
        'conf.txt': 'base\n',
        'del.txt': 'to delete\n',
        'img.bin': Buffer.from([0, 1, 2, 3, 0, 255]),
        'link-in': { symlink: 'src/a.ts' },
        '.gitignore': 'build/\n',
        'odd/we"ird\tname é.txt': 'odd\n',
      },
    },
    { message: 'other side', branch: 'other', files: { 'conf.txt': 'other\n' } },
    { message: 'main side', branch: 'main', files: { 'conf.txt': 'main\n', 'src/a.ts': 'export const a = 2;\n' } },
    { message: 'clean side', branch: 'clean', files: { 'clean-only.txt': 'clean\n' } },
    { message: 'feature', branch: 'feat', files: { 'feat.txt': 'feat\n' } },
    { message: 'back on main', branch: 'main', files: { 'src/c.ts': 'export const c = 1;\n' } },
  ]);
  const dir = git.dir;
  const first = (await git.git('rev-list', '--max-parents=0', 'HEAD')).trim();
  // Upstream: a local branch `up` forked at the first commit with one commit of its own under docs/.
  await git.git('branch', 'up', first);
  await git.commit({ message: 'upstream docs', branch: 'up', files: { 'docs/up.md': 'up\n' } });
  await git.git('checkout', '-q', 'main');
  await git.git('config', 'branch.main.remote', '.');
  await git.git('config', 'branch.main.merge', 'refs/heads/up');
  // An unrelated history.
  await git.git('checkout', '-q', '--orphan', 'lone');
  await git.git('rm', '-q', '-rf', '.');
  await writeFile(join(dir, 'lone.txt'), 'lone\n');
  await git.git('add', 'lone.txt');
  await git.git('commit', '-q', '-m', 'lone');
  await git.git('checkout', '-q', 'main');
  // A submodule, committed, then moved off the recorded commit in the working tree.
  await gitIn(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'sub']);
  await git.git('commit', '-q', '-m', 'submodule');
  const subRecorded = (await gitIn(join(dir, 'sub'), ['rev-parse', 'HEAD'])).trim();
  await gitIn(join(dir, 'sub'), ['checkout', '-q', subFirst]);
  const head = (await git.git('rev-parse', 'HEAD')).trim();
  // The linked worktree, with changes of its own.
  const featDir = join(dirname(dir), 'feat-wt');
  await git.git('worktree', 'add', '-q', featDir, 'feat');
  await writeFile(join(featDir, 'feat.txt'), 'feat changed\n');
  await writeFile(join(featDir, 'feat-untracked.txt'), 'new\n');
  // A merge in progress with a conflict on conf.txt.
  await git.git('merge', 'other').catch(() => undefined);
  // Local changes around it.
  await writeFile(join(dir, 'src/a.ts'), 'export const a = 3;\nexport const more = 4;\n');
  await writeFile(join(dir, 'src/b.ts'), 'export const b = 2;\n');
  await git.git('add', 'src/b.ts');
  await rm(join(dir, 'del.txt'));
  await git.git('mv', 'docs/old.md', 'docs/new.md');
  await writeFile(join(dir, 'img.bin'), Buffer.from([0, 9, 9, 9, 0, 255]));
  await chmod(join(dir, 'bin/run.sh'), 0o755);
  await rm(join(dir, 'link-in'));
  await symlink('src/b.ts', join(dir, 'link-in'));
  await symlink('../outside.txt', join(dir, 'link-out'));
  await writeFile(join(dirname(dir), 'outside.txt'), 'outside the tree\n');
  await symlink('nope.txt', join(dir, 'link-dangling'));
  await symlink('src', join(dir, 'link-dir'));
  await symlink('loop-b', join(dir, 'loop-a'));
  await symlink('loop-a', join(dir, 'loop-b'));
  await writeFile(join(dir, 'odd/we"ird\tname é.txt'), 'odd changed\n');
  await writeFile(join(dir, 'notes.txt'), 'untracked notes\n');
  await mkdir(join(dir, 'untracked-dir'));
  await writeFile(join(dir, 'untracked-dir/x.txt'), 'x\n');
  await mkdir(join(dir, 'build'));
  await writeFile(join(dir, 'build/out.o'), 'ignored\n');
  // Stat-dirty only: same content, new times.
  const later = new Date(Date.now() + 10_000);
  await utimes(join(dir, 'README.md'), later, later);
  return {
    git,
    dir,
    featDir,
    first,
    head,
    subRecorded,
    subCheckedOut: subFirst,
    cleanup: async () => {
      await git.cleanup();
      await sub.cleanup();
    },
  };
}
