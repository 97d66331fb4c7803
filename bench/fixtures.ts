// The "real-sized" repository used by the overhead and context sections: a bare clone of this repository, plus the
// file and commit every mode reads, picked once so all modes do the same work.
import { git, selfRepo } from './genrepo.js';

export interface SelfFixture {
  readonly dir: string;
  readonly files: number;
  readonly commits: number;
  /** A mid-sized source file. */
  readonly file: string;
  readonly fileBytes: number;
  /** A commit touching 5–30 files. */
  readonly commit: string;
  readonly commitFiles: number;
}

/** Builds (or reuses) the clone and picks the file and commit. */
export async function selfFixture(): Promise<SelfFixture> {
  const dir = await selfRepo();
  const files = (await git(dir, 'ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean);
  const commits = Number((await git(dir, 'rev-list', '--count', 'main')).trim());
  const file = files.includes('src/mcp/invoke.ts')
    ? 'src/mcp/invoke.ts'
    : (files[Math.floor(files.length / 2)] as string);
  const fileBytes = Number((await git(dir, 'cat-file', '-s', `main:${file}`)).trim());
  let commit = (await git(dir, 'rev-parse', 'main')).trim();
  let commitFiles = 0;
  const log = (await git(dir, 'log', '--format=@%H', '--name-only', '-n', '60', 'main')).split('@').filter(Boolean);
  for (const entry of log) {
    const [sha = '', ...names] = entry.split('\n').filter(Boolean);
    if (names.length >= 5 && names.length <= 30) {
      commit = sha;
      commitFiles = names.length;
      break;
    }
  }
  return { dir, files: files.length, commits, file, fileBytes, commit, commitFiles };
}
