// Issue 19, classes 6 and 8 on workspace_diff: git was run over the read globs' prefixes and its whole answer parsed,
// so a huge hidden patch truncated the answer (and dropped visible files), a hidden name that is not UTF-8 made the
// call fail, and git's rename pairing of a visible addition with a hidden deletion showed (counts, patch,
// omitted_count). Each pair of working trees below differs only in hidden files: every answer must be the same.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../support/gitdir.js';
import { wsTwins, type WsTwins } from '../support/ws-twins.js';

// `app/**/*.ts` has the literal prefix `app`: git saw every file below it, readable or not.
const PERIMETER = { read: ['app/**/*.ts'] };
const BODY =
  Array.from({ length: 30 }, (_, i) => `export const value${i} = ${i}; // a line long enough to pair`).join('\n') +
  '\n';
const BASE = { 'app/a.ts': 'a\n', 'app/z.ts': 'z\n', 'app/big.txt': 'small\n' };

let big: WsTwins;
let names: WsTwins;
let pairing: WsTwins;

beforeAll(async () => {
  // 1. A hidden patch past the diff cap (1 MiB here, 64 MiB by default) in one twin, a small one in the other.
  big = await wsTwins(
    [{ message: 'init', files: BASE }],
    PERIMETER,
    async (repo, hidden) => {
      await writeFile(
        join(repo.dir, 'app/big.txt'),
        hidden ? Array.from({ length: 80_000 }, (_, i) => `hidden line ${i} CANARY_BIG`).join('\n') : 'changed\n',
      );
      await writeFile(join(repo.dir, 'app/a.ts'), 'a2\n');
      await writeFile(join(repo.dir, 'app/z.ts'), 'z2\n');
    },
    { maxBytes: 1024 * 1024 },
  );
  // 2. A changed hidden file whose name is not UTF-8 in one twin, a plain hidden name in the other.
  names = await wsTwins([{ message: 'init', files: BASE }], PERIMETER, async (repo, hidden) => {
    const name = hidden
      ? Buffer.concat([Buffer.from('app/'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')])
      : Buffer.from('app/plain.txt');
    await writeFile(Buffer.concat([Buffer.from(`${repo.dir}/`), name]), 'one\n');
    await gitIn(repo.dir, ['add', '-A']);
    await gitIn(repo.dir, ['commit', '-q', '-m', 'hidden file']);
    await writeFile(Buffer.concat([Buffer.from(`${repo.dir}/`), name]), 'two\n');
    await writeFile(join(repo.dir, 'app/a.ts'), 'a2\n');
  });
  // 3. A staged visible addition and a staged hidden deletion, similar enough for git to pair in one twin only.
  pairing = await wsTwins(
    (hidden) => [
      {
        message: 'init',
        files: { ...BASE, 'app/old.txt': hidden ? BODY.replace('value3 ', 'other3 ') : 'nothing alike\n' },
      },
    ],
    PERIMETER,
    async (repo) => {
      await repo.git('rm', '-q', 'app/old.txt');
      await writeFile(join(repo.dir, 'app/new.ts'), BODY);
      await repo.git('add', 'app/new.ts');
    },
  );
}, 120_000);

afterAll(async () => {
  await big?.close();
  await names?.close();
  await pairing?.close();
});

describe('workspace_diff reads only readable patches', () => {
  it('a huge hidden patch neither truncates the answer nor drops a visible file', async () => {
    for (const args of [{}, { against: 'head' }]) {
      const [h, n] = await big.both('workspace_diff', args);
      expect(JSON.parse(n).structured.files.map((f: { path: string }) => f.path)).toEqual(['app/a.ts', 'app/z.ts']);
      expect(h).not.toContain('CANARY_BIG');
      expect(h).toBe(n);
    }
  });

  it('a hidden name that is not UTF-8 never makes the call fail', async () => {
    for (const args of [{}, { against: 'head' }]) {
      const [h, n] = await names.both('workspace_diff', args);
      expect(JSON.parse(n).isError).toBe(false);
      expect(h).toBe(n);
    }
  });
});

describe('workspace_diff pairs only after the cut', () => {
  it('whether git paired a visible addition with a hidden deletion does not show', async () => {
    for (const args of [{ staged: true }, { against: 'head' }]) {
      const [h, n] = await pairing.both('workspace_diff', args);
      const s = JSON.parse(n).structured;
      expect(s.files).toMatchObject([{ path: 'app/new.ts', status: 'added', additions: 30, deletions: 0 }]);
      expect(s.omitted_count).toBe(1);
      expect(h).toBe(n);
    }
  });
});
