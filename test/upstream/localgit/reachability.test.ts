// The reachability cache's own rules: bounded with the least recently used pair dropped first, keyed by both ids,
// and nothing kept or served while a shallow or grafts file exists in the common dir.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReachCache } from '../../../src/upstream/localgit/reachability.js';

const id = (c: string) => c.repeat(40);

describe('reachability cache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gb-reach-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps at most its bound, dropping the pair used least recently', () => {
    const c = createReachCache(dir, 2);
    c.set(id('a'), id('h'), true);
    c.set(id('b'), id('h'), false);
    expect(c.get(id('a'), id('h'))).toBe(true);
    c.set(id('c'), id('h'), true);
    expect(c.get(id('b'), id('h'))).toBeUndefined();
    expect(c.get(id('a'), id('h'))).toBe(true);
    expect(c.get(id('c'), id('h'))).toBe(true);
    // Another head is another question.
    expect(c.get(id('a'), id('g'))).toBeUndefined();
    c.reached(id('g'), [id('g'), id('d')]);
    expect(c.get(id('d'), id('g'))).toBe(true);
    expect(c.get(id('g'), id('g'))).toBeUndefined();
  });

  it('keeps nothing while shallow or info/grafts exists', async () => {
    const c = createReachCache(dir);
    expect(c.plain()).toBe(true);
    await writeFile(join(dir, 'shallow'), `${id('a')}\n`);
    expect(c.plain()).toBe(false);
    c.set(id('a'), id('h'), false);
    c.reached(id('h'), [id('b')]);
    await rm(join(dir, 'shallow'));
    expect(c.get(id('a'), id('h'))).toBeUndefined();
    expect(c.get(id('b'), id('h'))).toBeUndefined();
    await mkdir(join(dir, 'info'));
    await writeFile(join(dir, 'info', 'grafts'), `${id('a')}\n`);
    expect(c.plain()).toBe(false);
  });
});
