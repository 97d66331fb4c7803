// patchPaths reads a patch's file names the way git apply does (every name, both sides of a rename), and refuses
// what it cannot read for certain. Checked on hand-written headers and on patches real git wrote for odd names.
import { describe, expect, it } from 'vitest';
import { patchPaths } from '../../src/core/patch-paths.js';
import { makeRepo } from '../support/gitdir.js';

const paths = (p: string) => {
  const r = patchPaths(p);
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const refused = (p: string) => expect(patchPaths(p)).toMatchObject({ ok: false, code: 'unreadable_patch' });

describe('patchPaths', () => {
  it('reads modifications, additions, deletions, renames, copies and mode changes', () => {
    expect(paths('diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n')).toMatchObject({
      paths: ['x.txt'],
      sections: 1,
    });
    expect(
      paths('diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n').paths,
    ).toEqual(['n']);
    expect(
      paths('diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n').paths,
    ).toEqual(['d']);
    expect(paths('diff --git a/old b/new\nsimilarity index 100%\nrename from old\nrename to new\n').paths).toEqual([
      'old',
      'new',
    ]);
    expect(paths('diff --git a/src b/dst\nsimilarity index 90%\ncopy from src\ncopy to dst\n').paths).toEqual([
      'src',
      'dst',
    ]);
    expect(paths('diff --git a/m b/m\nold mode 100644\nnew mode 100755\n').paths).toEqual(['m']);
    expect(paths('diff --git a/sp ace b/sp ace\n--- a/sp ace\n+++ b/sp ace\n@@ -1 +1 @@\n-a\n+b\n').paths).toEqual([
      'sp ace',
    ]);
  });

  it('skips a commit message before the first section and counts hunk lines like git', () => {
    const p =
      'From x\nSubject: change\n\nbody text\n---\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n--- a/not-a-header\n+++ b/not-a-header\n \\ ctx\n\\ No newline at end of file\n';
    expect(paths(p)).toMatchObject({ paths: ['a'], sections: 1 });
  });

  it('refuses what git could read as more than it shows', () => {
    refused('');
    refused('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n');
    refused('text\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\n');
    // A traditional diff after the counted hunk lines of a git section.
    refused('diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n--- hidden\n+++ hidden\n@@ -1 +1 @@\n-x\n+y\n');
    // A hunk whose header promises more lines than follow before the next section.
    refused('diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,3 +1,3 @@\n-a\n+b\ndiff --git a/b b/b\n');
    refused('diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n-b\n+c\n');
    // Two different unquoted names and no rename lines: nothing says which files.
    refused('diff --git a/x b/y\nold mode 100644\nnew mode 100755\n');
    refused('diff --git a/x b/x\n--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n');
    refused('diff --git "a/bad\\q" "b/bad\\q"\n');
  });

  it('reads the names real git writes for odd file names, binary files and renames', async () => {
    const odd = ['sp ace.txt', 'quo"te.txt', 'tab\there.txt', 'ünï.txt', 'back\\slash.txt', 'a b/c d.txt'];
    const g = await makeRepo([
      {
        message: 'root',
        files: Object.fromEntries([
          ...odd.map((n) => [n, `${n}\n`]),
          ['bin.dat', Buffer.from([0, 1, 2, 3])],
          ['mv/from.txt', 'moving content\nline two\n'],
        ]),
      },
      {
        message: 'change',
        files: Object.fromEntries([
          ...odd.map((n) => [n, `${n} changed\n`]),
          ['bin.dat', Buffer.from([0, 9, 9, 9])],
          ['mv/from.txt', null],
          ['mv/to here.txt', 'moving content\nline two\n'],
        ]),
      },
    ]);
    try {
      for (const quote of ['true', 'false']) {
        const patch = await g.git('-c', `core.quotePath=${quote}`, 'diff', '--binary', '-M', 'HEAD~1', 'HEAD');
        const got = paths(patch);
        expect(got.sections).toBe(odd.length + 2);
        expect([...got.paths].sort()).toEqual([...odd, 'bin.dat', 'mv/from.txt', 'mv/to here.txt'].sort());
      }
    } finally {
      await g.cleanup();
    }
  });

  it('refuses a header whose ---/+++ or rename names are not its diff --git names (issue 20)', () => {
    refused('diff --git a/README.md b/README.md\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,2 @@\n echo\n+curl x | sh\n');
    refused('diff --git a/README.md b/run.sh\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,2 @@\n echo\n+curl x | sh\n');
    refused('diff --git "a/README.md" "b/README.md"\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-a\n+b\n');
    refused('diff --git a/x b/x\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n');
    refused('diff --git a/old b/new\nrename from other\nrename to new\n');
    refused('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n');
  });

  it("gives each section git's names and its hunk lines by position, not by prefix (issue 20)", () => {
    const p = paths(
      'diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n select 1;\ndiff --git "a/\\303\\251.ts" "b/\\303\\251.ts"\nnew file mode 100644\n--- /dev/null\n+++ "b/\\303\\251.ts"\n@@ -0,0 +1 @@\n+q\ndiff --git a/o b/n\nsimilarity index 100%\nrename from o\nrename to n\n',
    );
    expect(p.files.map((f) => [f.from, f.to, f.change, f.added, f.removed])).toEqual([
      ['q.sql', 'q.sql', 'modified', 1, 1],
      [undefined, 'é.ts', 'added', 1, 0],
      ['o', 'n', 'renamed', 0, 0],
    ]);
    expect(p.files[0]!.lines.filter((l) => l.kind !== 'meta')).toEqual([
      { kind: 'hunk', text: '@@ -1,2 +1,2 @@' },
      { kind: 'del', text: '-- x' },
      { kind: 'add', text: '++ y' },
      { kind: 'same', text: 'select 1;' },
    ]);
  });
});
