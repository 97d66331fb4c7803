// `files[]` of get-commit and compare: git's rename-detecting diff turned into GitHub's diff-entry objects.
import { git } from './git.js';

/** git's well-known empty tree, the "parent" of a root commit. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** One changed file, before URLs are attached. */
export interface FileChange {
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed';
  filename: string;
  previousFilename?: string;
  sha: string;
  additions: number;
  deletions: number;
  patch?: string;
}

const STATUS: Record<string, FileChange['status']> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  R: 'renamed',
  C: 'copied',
  T: 'changed',
};

/** Changed files between two tree-ish objects, with rename detection (`-M`) like GitHub. */
export async function diffFiles(dir: string, from: string, to: string): Promise<FileChange[]> {
  const tail = ['--no-color', '--end-of-options', from, to];
  const [raw, patch] = await Promise.all([
    git(dir, ['diff-tree', '-r', '-M', '--raw', '-z', ...tail]),
    git(dir, ['diff-tree', '-r', '-M', '-p', ...tail]),
  ]);

  const changes: FileChange[] = [];
  const tok = raw.split('\0');
  for (let i = 0; i < tok.length;) {
    const head = tok[i++];
    if (!head || !head.startsWith(':')) continue;
    const [, , oldSha = '', newSha = '', st = ''] = head.slice(1).split(' ');
    const letter = st.charAt(0);
    const status = STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      const prev = tok[i++] ?? '';
      const name = tok[i++] ?? '';
      changes.push({ status, filename: name, previousFilename: prev, sha: newSha, additions: 0, deletions: 0 });
    } else {
      const name = tok[i++] ?? '';
      changes.push({ status, filename: name, sha: letter === 'D' ? oldSha : newSha, additions: 0, deletions: 0 });
    }
  }

  // Patch chunks come in the same order as the raw records; content lines never start with "diff --git ".
  const chunks = patch.split(/^(?=diff --git )/m).filter((ch) => ch.startsWith('diff --git '));
  chunks.forEach((ch, idx) => {
    const c = changes[idx];
    if (!c || /^(Binary files |GIT binary patch)/m.test(ch)) return;
    const at = ch.search(/^@@/m);
    if (at < 0) return;
    c.patch = ch.slice(at).replace(/\n$/, '');
    // Line counts as --numstat gives them: hunk lines starting with + or - (headers are before the first @@).
    for (const line of c.patch.split('\n')) {
      if (line.startsWith('+')) c.additions += 1;
      else if (line.startsWith('-')) c.deletions += 1;
    }
  });
  return changes;
}
