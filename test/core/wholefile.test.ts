// wholeFileChange must produce exactly what git reports for an unpaired add or delete (checked against real git
// through the local adapter), or a boundary-crossing rename would still read differently from a plain add.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wholeFileChange } from '../../src/core/wholefile.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

const CASES: [string, Buffer][] = [
  ['one line', Buffer.from('a\n')],
  ['no final newline', Buffer.from('a\nb')],
  ['single line without newline', Buffer.from('a')],
  ['CRLF and BOM', Buffer.from('\ufeffx\r\ny\r\n')],
  ['blank lines', Buffer.from('\n\n\n')],
  ['invalid UTF-8', Buffer.from([0x66, 0xff, 0x0a])],
  ['NUL (binary)', Buffer.from([0x61, 0, 0x62])],
  ['empty', Buffer.from('')],
];

describe('wholeFileChange against git', () => {
  let g: GitDir;
  const up = createLocalGitUpstream();
  beforeAll(async () => {
    const files = Object.fromEntries(CASES.map(([, b], i) => [`f${i}`, b]));
    g = await makeRepo(
      [
        { message: 'seed', files: { keep: 'k\n' } },
        { message: 'add', files },
        { message: 'del', files: Object.fromEntries(CASES.map((_, i) => [`f${i}`, null])) },
      ],
      { bare: true },
    );
  });
  afterAll(async () => g?.cleanup());

  it.each(['added', 'removed'] as const)('matches git for every case when %s', async (side) => {
    const sha = (await g.git('rev-parse', side === 'added' ? 'main~1' : 'main')).trim();
    const c = await up.getCommit(g.dir, sha);
    if (!c.ok) throw new Error(c.error.message);
    CASES.forEach(([, bytes], i) => {
      const f = c.value.files.find((x) => x.path === `f${i}`);
      const want = f
        ? { additions: f.additions, deletions: f.deletions, ...(f.patch !== undefined ? { patch: f.patch } : {}) }
        : undefined;
      expect(wholeFileChange(bytes, side), CASES[i]?.[0]).toEqual(want);
    });
  });
});
