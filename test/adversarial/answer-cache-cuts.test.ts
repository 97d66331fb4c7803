// Issue 24: answers of immutable ids are reused, and a reused answer must be the one cut for the asking perimeter.
// A cache keyed by commit and arguments alone serves one perimeter's view to another (github-mcp-server,
// CVE-2026-48529). Two perimeters over one repository with different read globs ask for the same commit, tree and
// history page, in both orders; then the wide one is narrowed and asks again. Real server, real MCP clients, the
// server's own answer cache (checked to be in use, so the test cannot pass by never caching).
import { unfence } from '../support/fence.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerCache } from '../../src/mcp/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
const answers = new AnswerCache(() => ['wide', 'narrow']);
let head = '';

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'pub/a.ts': 'a1\n', 'secret/s.ts': 'hidden-one\n' } },
    { message: 'both', files: { 'pub/a.ts': 'a2\n', 'secret/s.ts': 'hidden-two\n', 'secret/t.ts': 'hidden-new\n' } },
  ]);
  head = (await repo.git('rev-parse', 'main')).trim();
  srv = await startTestServer({ answers });
  await srv.perimeter({ id: 'wide', repo: repo.dir, read: ['**'], write: [] });
  await srv.perimeter({ id: 'narrow', repo: repo.dir, read: ['pub/**'], write: [] });
});
afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

/** The same reads, in one order: a commit, the whole tree, a history page, a hidden file. */
async function reads(agent: Agent): Promise<string[]> {
  const out: string[] = [];
  for (const [tool, args] of [
    ['get_commit', { sha: head }],
    ['get_tree', { recursive: true }],
    ['list_commits', { per_page: 10 }],
    ['get_file', { path: 'secret/s.ts' }],
    ['get_file', { path: 'pub/a.ts' }],
  ] as const) {
    const r = await agent.call(tool, args);
    // Fences are drawn per answer (a cached one keeps its own): compared by position, not by nonce.
    out.push(`${tool} ${r.isError ? 'error ' : ''}${unfence(r.text)} ${JSON.stringify(r.structured ?? null)}`);
  }
  return out;
}

const leaks = (answers: readonly string[]) => answers.filter((a) => /secret|hidden-/.test(a));

describe('answer cache: one perimeter cut per answer', () => {
  it('two perimeters with different read globs each get their own cut of the same commit, in either order', async () => {
    const wide = await srv.connect('/mcp/wide');
    const narrow = await srv.connect('/mcp/narrow');
    // Wide first: its answers (with the hidden files) are in the cache when the narrow one asks.
    const w1 = await reads(wide);
    expect(leaks(w1).length).toBeGreaterThan(0);
    const n1 = await reads(narrow);
    expect(leaks(n1.slice(0, 3))).toEqual([]);
    expect(n1[3]).toContain('get_file error');
    expect(n1[3]).not.toContain('hidden-');
    expect(answers.stats().entries).toBeGreaterThan(0);
    // Again, both ways round: the repeats are served from the cache and are byte for byte the first answers.
    expect(await reads(narrow)).toEqual(n1);
    expect(await reads(wide)).toEqual(w1);
    await wide.close();
    await narrow.close();
  });

  it('a perimeter narrowed after its answers were cached gets the narrow cut at once, in an open session', async () => {
    const agent = await srv.connect('/mcp/wide');
    const before = await reads(agent);
    expect(leaks(before).length).toBeGreaterThan(0);
    const p = srv.store.get('wide');
    if (!p) throw new Error('no perimeter wide');
    await srv.store.put({ ...p, read: ['pub/**'] });
    const after = await reads(agent);
    expect(leaks(after.slice(0, 3))).toEqual([]);
    expect(after[3]).toContain('get_file error');
    // What the narrowed perimeter sees is exactly what a perimeter born narrow sees.
    const born = await srv.connect('/mcp/narrow');
    expect(after).toEqual(await reads(born));
    await agent.close();
    await born.close();
  });
});
