// The long-lived object reader over a real repository: answers matched in order under pipelining, refusals by size,
// a killed process replaced without failing the caller, and end().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectReader, ObjectReaderError, type ObjectReader } from '../../src/gitcli/object-reader.js';
import { createTreeReader, parseTreeObject } from '../../src/gitcli/tree-objects.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

describe('object reader', () => {
  let g: GitDir;
  let reader: ObjectReader;
  let blobs: string[];
  beforeAll(async () => {
    const files: Record<string, string | Buffer> = {
      'big.bin': Buffer.alloc(300_000, 7),
      'sp ace/ünï.txt': 'unicode\n',
    };
    for (let i = 0; i < 40; i++) files[`d${i % 4}/f${i}.txt`] = `file ${i}\n`.repeat(i + 1);
    g = await makeRepo([{ message: 'one', files }], { bare: true });
    blobs = (await g.git('ls-tree', '-r', '--format=%(objectname)', 'main')).trim().split('\n');
    reader = createObjectReader({ gitDir: g.dir });
  });
  afterAll(async () => {
    reader.end();
    await g.cleanup();
  });

  it('answers many concurrent requests in order, each with the bytes git has', async () => {
    const asks = [...blobs, ...blobs].map((sha, k) =>
      k % 2 ? reader.contents([sha], 1 << 20) : reader.info([sha, 'refs/heads/main']),
    );
    const answers = await Promise.all(asks);
    for (const [k, a] of answers.entries()) {
      const sha = [...blobs, ...blobs][k]!;
      const want = await g.git('cat-file', '-s', sha);
      if (k % 2) {
        const r = (a as Awaited<ReturnType<ObjectReader['contents']>>)[0]!;
        expect(r.kind === 'object' && r.sha === sha && r.bytes.length).toBe(Number(want));
      } else {
        const [i, ref] = a as Awaited<ReturnType<ObjectReader['info']>>;
        expect(i).toEqual({ found: true, sha, type: 'blob', size: Number(want) });
        expect(ref?.found && ref.sha).toBe(await g.head('main'));
      }
    }
    const text = await reader.contents([`${blobs[0]}`], 1 << 20);
    expect(text[0]?.kind === 'object' && text[0].bytes.toString('latin1')).toBe(
      await g.git('cat-file', 'blob', blobs[0]!),
    );
  });

  it('says missing for unknown names and refuses a blob above the cap by its size', async () => {
    expect(await reader.info(['refs/heads/nope', '0'.repeat(40)])).toEqual([{ found: false }, { found: false }]);
    const big = (await g.git('rev-parse', 'main:big.bin')).trim();
    expect(await reader.contents([big], 1000)).toEqual([{ kind: 'too_large', sha: big, type: 'blob', size: 300_000 }]);
    await expect(reader.info(['a\nb'])).rejects.toThrow(/not sendable/);
  });

  it('replaces a killed process, retrying what was in flight once', async () => {
    await reader.info(['refs/heads/main']);
    const pid = reader.pid();
    expect(pid).toBeTypeOf('number');
    const inflight = reader.contents(blobs, 1 << 20);
    process.kill(pid!, 'SIGKILL');
    const got = await inflight;
    expect(got.every((r) => r.kind === 'object')).toBe(true);
    expect(reader.pid()).not.toBe(pid);
    expect((await reader.info(['refs/heads/main']))[0]?.found).toBe(true);
  });

  it('walks trees by exact bytes and parses them as ls-tree lists them', async () => {
    const trees = createTreeReader(reader);
    const root = (await reader.info(['refs/heads/main^{tree}']))[0]!;
    const hit = await trees.lookup(root.found ? root.sha : '', ['sp ace', 'ünï.txt']);
    expect(hit?.sha).toBe((await g.git('rev-parse', 'main:sp ace/ünï.txt')).trim());
    expect(await trees.lookup(root.found ? root.sha : '', ['sp ace', 'uni.txt'])).toBeUndefined();
    const raw = await reader.contents([root.found ? root.sha : ''], 1 << 20);
    const parsed = raw[0]?.kind === 'object' ? parseTreeObject(raw[0].bytes) : undefined;
    const ls = (await g.git('ls-tree', 'main'))
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(parsed?.entries.map((e) => e.mode)).toEqual(ls);
  });

  it('fails cleanly after end()', async () => {
    const r = createObjectReader({ gitDir: g.dir });
    await r.info(['refs/heads/main']);
    r.end();
    await expect(r.info(['refs/heads/main'])).rejects.toBeInstanceOf(ObjectReaderError);
    expect(r.pid()).toBeUndefined();
  });
});
