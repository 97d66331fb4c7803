// Bounds review, item 2: the answer cache was one LRU shared by every perimeter, so one perimeter flooding distinct
// reads pushed every other perimeter's answers out (starvation, and a timing channel: another perimeter could tell
// from its own repeat getting slower that someone else was busy). A share that shrank as more perimeters cached still
// let one perimeter count the bytes another cached (the next review). Now each configured perimeter has a fixed quota
// and only its own answers make room. Real server, real MCP clients, a small cache so the flood really overflows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindAgent, materialize, PerimeterSpec } from '../../src/core/index.js';
import { AnswerCache } from '../../src/mcp/index.js';
import type { CachedOutcome } from '../../src/mcp/answer-cache.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FILES = 60;
let repo: GitDir;
let srv: TestServer;
const answers = new AnswerCache(() => ['floodera', 'quietbbb'], 64 * 1024, 0);

beforeAll(async () => {
  const files: Record<string, string> = { 'b/keep.md': 'the answer perimeter B cached\n' };
  for (let i = 0; i < FILES; i++) files[`a/f${i}.md`] = `${String(i).padStart(4, '0')} `.repeat(250);
  repo = await makeRepo([{ message: 'init', files }]);
  srv = await startTestServer({ answers });
  await srv.perimeter({ id: 'floodera', repo: repo.dir, read: ['a/**'], write: [] });
  await srv.perimeter({ id: 'quietbbb', repo: repo.dir, read: ['b/**'], write: [] });
});
afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

describe('answer cache: a fixed quota per perimeter', () => {
  it("a flood of distinct reads from perimeter A leaves perimeter B's cached answer in place", async () => {
    const b = await srv.connect('/mcp/quietbbb');
    const first = await b.call('get_file', { path: 'b/keep.md' });
    expect(first.isError).not.toBe(true);
    expect(first.text).toContain('the answer perimeter B cached');
    const quiet = answers.stats('quietbbb');
    expect(quiet.entries).toBe(1);

    const a = await srv.connect('/mcp/floodera');
    for (let i = 0; i < FILES; i++) expect((await a.call('get_file', { path: `a/f${i}.md` })).isError).not.toBe(true);
    // The flood overflowed the budget (so eviction ran), and only A paid for it.
    const flood = answers.stats('floodera');
    expect(flood.entries).toBeGreaterThan(0);
    expect(flood.entries).toBeLessThan(FILES);
    expect(answers.stats().bytes).toBeLessThanOrEqual(64 * 1024);
    expect(answers.stats('quietbbb')).toEqual(quiet);
    expect((await b.call('get_file', { path: 'b/keep.md' })).text).toBe(first.text);
    await a.close();
    await b.close();
  });

  const bind = (id: string) => {
    const spec = PerimeterSpec.parse({ id, repo: '/nowhere', read: ['**'], write: [] });
    const b = bindAgent(materialize(spec, 'main'), undefined);
    if (!b.ok) throw new Error('no binding');
    return b.value;
  };
  const allow = (text: string): CachedOutcome => ({ kind: 'allow', text, value: {}, bytes: text.length });
  const at = (cache: AnswerCache, b: ReturnType<typeof bind>, path: string) =>
    cache.key(b, 'get_file', '/r', 'c'.repeat(40), { path });

  it('keeps the answer under its own key: a flood through other bindings never reaches it', () => {
    const cache = new AnswerCache(() => ['quietbbb', 'floodera'], 16 * 1024, 0);
    const quiet = bind('quietbbb');
    const loud = bind('floodera');
    const key = at(cache, quiet, 'x');
    const answer = allow('kept');
    cache.set(key, answer);
    for (let i = 0; i < 1000; i++) cache.set(at(cache, loud, `p${i}`), allow('x'.repeat(200)));
    expect(cache.get(key)).toBe(answer);
    expect(cache.stats().bytes).toBeLessThanOrEqual(16 * 1024);
    const loudHeld = cache.stats('floodera');
    expect(loudHeld.bytes).toBeGreaterThan(4 * 1024);
    // Once B itself holds more than its quota, its own oldest answers go, and A's are untouched.
    for (let i = 0; i < 1000; i++) cache.set(at(cache, quiet, `q${i}`), allow('y'.repeat(200)));
    expect(cache.get(key)).toBeUndefined();
    expect(cache.stats('floodera')).toEqual(loudHeld);
    expect(cache.stats().bytes).toBeLessThanOrEqual(16 * 1024);
  });

  it("another perimeter starting to cache changes nothing of what a perimeter keeps (no count of others' bytes)", () => {
    const cache = new AnswerCache(() => ['watcher', 'other'], 16 * 1024, 0);
    const watcher = bind('watcher');
    const other = bind('other');
    // The watcher fills its quota, then notes which of its answers are still held.
    for (let i = 0; i < 100; i++) cache.set(at(cache, watcher, `w${i}`), allow('w'.repeat(150)));
    const held = Array.from({ length: 100 }, (_, i) => cache.get(at(cache, watcher, `w${i}`)) !== undefined);
    const before = cache.stats('watcher');
    expect(held.some(Boolean)).toBe(true);
    expect(held.every(Boolean)).toBe(false);
    // The other perimeter caches answers of various sizes: none of them moves the watcher's quota or evicts its answers.
    for (let i = 0; i < 50; i++) cache.set(at(cache, other, `o${i}`), allow('o'.repeat(20 + 37 * i)));
    expect(cache.stats('watcher')).toEqual(before);
    expect(Array.from({ length: 100 }, (_, i) => cache.get(at(cache, watcher, `w${i}`)) !== undefined)).toEqual(held);
  });

  it("drops a removed perimeter's shelf, and shares the budget among the perimeters configured now", () => {
    let ids = ['gone', 'stays'];
    const cache = new AnswerCache(() => ids, 12 * 1024, 0);
    for (let i = 0; i < 40; i++) cache.set(at(cache, bind('gone'), `g${i}`), allow('g'.repeat(150)));
    expect(cache.stats('gone').entries).toBeGreaterThan(0);
    ids = ['stays'];
    cache.set(at(cache, bind('stays'), 's'), allow('s'));
    expect(cache.stats('gone')).toEqual({ entries: 0, bytes: 0 });
    expect(cache.stats().bytes).toBe(cache.stats('stays').bytes);
  });
});
