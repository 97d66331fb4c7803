// Issue 26: `search` and `fetch`, the two fixed names ChatGPT's Deep Research and connectors call, as aliases of
// search_code and get_file through the same gate: hidden files are as absent, every refusal is get_file's byte for
// byte, ids are sealed to perimeter × branch (deterministic), a file over the cap comes back cut.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursorSeal } from '../../src/mcp/index.js';
import { bytesOf, UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

// A readable path near git's bound: its sealed id is longer than the path (the id schema allows for it).
const DEEP = `app/${Array.from({ length: 14 }, (_, i) => `${i}`.padEnd(200, 'd')).join('/')}/deep.ts`;
const LONG = Array.from({ length: 400 }, (_, i) => `line ${i} needle ${'x'.repeat(40)}`).join('\n') + '\n';

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  const seal = cursorSeal(randomBytes(32));
  /** An id the server could have minted for `path` on perimeter `who`'s main (e.g. before a perimeter change). */
  const mint = (who: string, path: string) =>
    seal.sealId(JSON.stringify({ v: 1, who: `agent:${who}`, repo: s.repo, branch: 'main', path }));

  beforeAll(async () => {
    s = await serveBoth(
      kind,
      [
        {
          message: 'init',
          files: {
            'app/a.ts': 'export const needle = 1;\n',
            'app/b.md': 'a Needle here\n',
            'app/none.ts': 'nothing\n',
            'app/long.txt': LONG,
            'app/.env': 'NEEDLE=secret\n',
            'app/img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]),
            'app/link-ok': { symlink: 'a.ts' },
            'app/link-bad': { symlink: '../secret/x.ts' },
            'secret/x.ts': 'needle in secret\n',
            [DEEP]: 'deepest\n',
          },
        },
      ],
      { server: { cursors: seal } },
    );
    const base = { repo: s.repo, read: ['app/**'], write: [] };
    await s.srv.perimeter({ id: 'dr', ...base, tools: ['search', 'fetch', 'get_file', 'search_code'] });
    await s.srv.perimeter({
      id: 'small',
      ...base,
      tools: ['search', 'fetch', 'get_file'],
      limits: { max_answer_bytes: 8192 },
    });
    await s.srv.perimeter({ id: 'plain', ...base });
    await s.srv.perimeter({ id: 'pair', ...base, tools: ['get_file', 'search_code'] });
    await s.srv.perimeter({ id: 'other', repo: s.repo, read: ['**'], write: [], tools: ['search', 'fetch'] });
  }, 60_000);
  afterAll(async () => s?.close());

  const listed = async (p: string) =>
    (await (await s.srv.connect(`/mcp/${p}`)).client.listTools()).tools.map((t) => t.name);

  it('lists search and fetch only where the perimeter names them; the default list is unchanged', async () => {
    expect(await listed('dr')).toEqual(expect.arrayContaining(['search', 'fetch', 'get_file', 'search_code']));
    const plain = await listed('plain');
    expect(plain).not.toContain('search');
    expect(plain).not.toContain('fetch');
    const a = await s.srv.connect('/mcp/plain');
    const unknown = bytesOf(
      await a
        .call('no_such_tool', { query: 'x' })
        .catch((e: Error) => ({ isError: true, text: e.message, structured: null })),
    );
    const alias = bytesOf(
      await a
        .call('search', { query: 'x' })
        .catch((e: Error) => ({ isError: true, text: e.message, structured: null })),
    );
    expect(alias.split('search').join('T')).toBe(unknown.split('no_such_tool').join('T'));
  });

  it('the two aliases add at most 1.5 KB to tools/list', async () => {
    const size = async (p: string) =>
      Buffer.byteLength(JSON.stringify(await (await s.srv.connect(`/mcp/${p}`)).client.listTools()));
    const added = (await size('dr')) - (await size('pair'));
    console.log(`search + fetch add ${added} bytes to tools/list`);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(1536);
  });

  it('search finds readable files only, one result per file, the same JSON in text and structured content', async () => {
    const a = await s.srv.connect('/mcp/dr');
    const r = await a.call('search', { query: 'needle' });
    expect(r.isError, r.text).toBeUndefined();
    expect(JSON.parse(r.text)).toEqual(r.structured);
    const titles = r.structured.results.map((x: { title: string }) => x.title);
    expect(titles).toEqual(['app/a.ts', 'app/b.md', 'app/long.txt']);
    for (const x of r.structured.results) {
      expect(x.url).toBe(`git-blinder://dr/main/${x.title}`);
      expect(x.id).toMatch(/^gbi1\./);
    }
    // Deterministic: the same call answers byte for byte alike (the twin check relies on it).
    expect(bytesOf(await a.call('search', { query: 'needle' }))).toBe(bytesOf(r));
    // The same files search_code finds.
    const code = await a.call('search_code', { query: 'needle', max_results: 200 });
    expect([...new Set(code.structured.matches.map((m: { path: string }) => m.path))]).toEqual(titles);
  });

  it('fetch of each result returns its text, path and size, and no commit id (the head may be hidden-only)', async () => {
    const a = await s.srv.connect('/mcp/dr');
    for (const x of (await a.call('search', { query: 'needle' })).structured.results) {
      const f = await a.call('fetch', { id: x.id });
      expect(f.isError, f.text).toBeUndefined();
      expect(JSON.parse(f.text)).toEqual(f.structured);
      const file = await a.call('get_file', { path: x.title });
      expect(f.structured).toEqual({
        id: x.id,
        title: x.title,
        url: x.url,
        text: file.structured.content,
        metadata: { path: x.title, bytes: file.structured.size, encoding: 'utf-8' },
      });
    }
  });

  it('a made-up, edited, foreign or cursor id answers alike, without naming anything', async () => {
    const a = await s.srv.connect('/mcp/dr');
    const other = await s.srv.connect('/mcp/other');
    const foreign = (await other.call('search', { query: 'needle in secret' })).structured.results[0].id as string;
    const good = (await a.call('search', { query: 'needle' })).structured.results[0].id as string;
    const edited = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    const cursor =
      (await a.call('changes_since', {}).catch(() => ({ structured: { cursor: 'gbc1.x' } }))).structured?.cursor ??
      'gbc1.x';
    const made = bytesOf(await a.call('fetch', { id: 'gbi1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }));
    expect(made).toContain('names no file');
    for (const id of [foreign, edited, String(cursor), 'x', mint('other', 'secret/x.ts')])
      expect(bytesOf(await a.call('fetch', { id }))).toBe(made);
  });

  it('every refusal of fetch is get_file’s for the same path, byte for byte', async () => {
    const a = await s.srv.connect('/mcp/dr');
    // Binary (refused), privacy zone, hidden, hidden-target link, missing (not found), a readable link (served).
    for (const path of ['app/img.png', 'app/.env', 'secret/x.ts', 'app/link-bad', 'app/gone.ts']) {
      const f = await a.call('fetch', { id: mint('dr', path) });
      const g = await a.call('get_file', { path });
      expect(f.isError).toBe(true);
      expect(bytesOf(f)).toBe(bytesOf(g));
    }
    const link = await a.call('fetch', { id: mint('dr', 'app/link-ok') });
    expect(link.structured).toMatchObject({ text: 'a.ts', metadata: { symlink: true } });
  });

  it('a file over the answer cap comes back cut at a line, with truncated and the sizes', async () => {
    const a = await s.srv.connect('/mcp/small');
    const hit = (await a.call('search', { query: 'line 399 needle' })).structured.results[0];
    expect(hit.title).toBe('app/long.txt');
    const f = await a.call('fetch', { id: hit.id });
    expect(f.isError, f.text).toBeUndefined();
    const m = f.structured.metadata;
    expect(m).toMatchObject({ truncated: true, total_bytes: LONG.length, bytes: LONG.length });
    expect(m.served_bytes).toBe(Buffer.byteLength(f.structured.text));
    expect(LONG.startsWith(f.structured.text) && f.structured.text.endsWith('\n')).toBe(true);
    expect(m.next_line).toBe(f.structured.text.split('\n').length);
    expect(Buffer.byteLength(f.text) + Buffer.byteLength(JSON.stringify(f.structured))).toBeLessThanOrEqual(8192);
    // get_file refuses the whole file and serves the rest from next_line.
    expect((await a.call('get_file', { path: 'app/long.txt' })).isError).toBe(true);
    const rest = await a.call('get_file', { path: 'app/long.txt', start_line: m.next_line, end_line: m.next_line });
    expect(rest.structured.content).toBe(`${LONG.split('\n')[m.next_line - 1]}\n`);
  });

  it('a path near the bound of git gets an id that fetch opens', async () => {
    const a = await s.srv.connect('/mcp/dr');
    const hit = (await a.call('search', { query: 'deepest' })).structured.results[0];
    expect(hit.title).toBe(DEEP);
    expect(hit.id.length).toBeGreaterThan(DEEP.length);
    expect((await a.call('fetch', { id: hit.id })).structured.text).toBe('deepest\n');
  });

  it('the audit names the alias and the path it read', async () => {
    const a = await s.srv.connect('/mcp/dr');
    const id = mint('dr', 'app/a.ts');
    await a.call('fetch', { id });
    const rec = s.srv.records.filter((r) => r.tool === 'fetch').at(-1);
    expect(rec).toMatchObject({ tool: 'fetch', perimeter: 'dr', paths: ['app/a.ts'], verdict: 'allow' });
  });
});
