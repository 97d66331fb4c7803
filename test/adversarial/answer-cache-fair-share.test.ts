// Bounds review, item 2: the answer cache was one LRU shared by every perimeter, so one perimeter flooding distinct
// reads pushed every other perimeter's answers out (starvation, and a timing channel: another perimeter could tell
// from its own repeat getting slower that someone else was busy). Now each perimeter has a fair share of the budget.
// Real server, real MCP clients, a small cache so the flood really overflows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindAgent, materialize, PerimeterSpec } from '../../src/core/index.js';
import { AnswerCache } from '../../src/mcp/index.js';
import type { CachedOutcome } from '../../src/mcp/answer-cache.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FILES = 60;
let repo: GitDir;
let srv: TestServer;
const answers = new AnswerCache(64 * 1024);

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

describe('answer cache: a fair share per perimeter', () => {
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

  it('keeps the answer under its own key: a flood through other bindings never reaches it', () => {
    const cache = new AnswerCache(16 * 1024);
    const bind = (id: string) => {
      const spec = PerimeterSpec.parse({ id, repo: '/nowhere', read: ['**'], write: [] });
      const b = bindAgent(materialize(spec, 'main'), undefined);
      if (!b.ok) throw new Error('no binding');
      return b.value;
    };
    const quiet = bind('quietbbb');
    const loud = bind('floodera');
    const key = cache.key(quiet, 'get_file', '/r', 'c'.repeat(40), { path: 'x' });
    const allow = (text: string): CachedOutcome => ({ kind: 'allow', text, value: {}, bytes: text.length });
    const answer = allow('kept');
    cache.set(key, answer);
    for (let i = 0; i < 1000; i++)
      cache.set(cache.key(loud, 'get_file', '/r', 'c'.repeat(40), { path: `p${i}` }), allow('x'.repeat(200)));
    expect(cache.get(key)).toBe(answer);
    expect(cache.stats().bytes).toBeLessThanOrEqual(16 * 1024);
    // Once B itself holds more than its share, its own oldest answers go first, not A's.
    for (let i = 0; i < 1000; i++)
      cache.set(cache.key(quiet, 'get_file', '/r', 'c'.repeat(40), { path: `q${i}` }), allow('y'.repeat(200)));
    expect(cache.get(key)).toBeUndefined();
    expect(cache.stats('floodera').bytes).toBeGreaterThan(6 * 1024);
    expect(cache.stats().bytes).toBeLessThanOrEqual(16 * 1024);
  });
});
