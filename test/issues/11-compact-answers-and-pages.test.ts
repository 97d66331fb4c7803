// Issue 11, items 5 and 6: the text block a model reads is a compact rendering, never larger than raw git's output
// for the same call, while structuredContent keeps the full JSON; tools/list for the agent tools fits in 6 KB; big
// trees and big commits come in byte-bounded pages (`truncated`, `next_page` / `next_files_page`), every answer
// within the perimeter's max_answer_bytes, and a page boundary never moves for a hidden entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../support/gitdir.js';
import type { Agent } from '../support/server.js';
import { serveBoth, UPSTREAM_KINDS, type Served } from '../support/both-upstreams.js';

const CAP = 1024;
const bytes = (s: string) => Buffer.byteLength(s);
/** What the answer cap bounds: the text block and the structuredContent JSON, each. */
const sizes = (r: { text: string; structured: unknown }) => ({
  text: bytes(r.text),
  json: bytes(JSON.stringify(r.structured)),
});

const src = (i: number) => `export const v${i} = ${i};\n// line two of file ${i}\n`;
const VISIBLE: Record<string, string> = {};
for (let i = 0; i < 40; i++) VISIBLE[`big/mod${String(i).padStart(2, '0')}.ts`] = src(i);
// Hidden beside the visible files: privacy zones (*.pem) and a directory outside `read`.
const HIDDEN: Record<string, string> = {};
for (let i = 0; i < 60; i++) HIDDEN[`big/k${String(i).padStart(2, '0')}.pem`] = `-----BEGIN PRIVATE KEY-----\n${i}\n`;
for (let i = 0; i < 60; i++) HIDDEN[`big/vault/s${String(i).padStart(2, '0')}.ts`] = `secret ${i}\n`;
const LONG = Array.from({ length: 400 }, (_v, i) => `row ${i + 1} of a file bigger than the cap`).join('\n') + '\n';

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  let all: Agent;
  let tight: Agent;
  let tightClean: Agent;
  let bigCommit = '';
  let cleanCommit = '';
  beforeAll(async () => {
    s = await serveBoth(kind, [
      {
        message: 'init',
        files: {
          'README.md': '# demo\n',
          'lib/a.ts': 'export const a = 1;\n',
          'lib/deep/b.ts': 'export const b = 2;\n',
          'docs/long.txt': LONG,
        },
      },
      { message: 'second\n\nWith a body line.', files: { 'lib/a.ts': 'export const a = 10;\n' } },
      // The same visible content on two branches; only main also holds hidden entries, in the tree and in the commit.
      { message: 'many files', files: VISIBLE, branch: 'clean' },
      { message: 'many files', files: { ...VISIBLE, ...HIDDEN }, branch: 'main' },
    ]);
    bigCommit = await s.head('main');
    cleanCommit = await s.head('clean');
    await s.srv.perimeter({ id: 'all', repo: s.repo, read: ['**'], write: [] });
    await s.srv.perimeter({
      id: 'tight',
      repo: s.repo,
      read: ['README.md', 'lib/**', 'docs/**', 'big/*.ts', 'big/*.pem'],
      write: [],
      branches: ['clean'],
      limits: { max_answer_bytes: CAP },
    });
    all = await s.srv.connect('/mcp/all');
    tight = await s.srv.connect('/mcp/tight');
    tightClean = await s.srv.connect('/mcp/tight/clean');
  }, 60_000);
  afterAll(async () => {
    for (const a of [all, tight, tightClean]) await a?.close();
    await s?.close();
  });

  it('text blocks are no larger than raw git for the same call; structuredContent keeps the JSON', async () => {
    const git = (...args: string[]) => gitIn(s.bare, args);
    const commits = Number((await git('rev-list', '--count', 'main')).trim());
    const second = (await git('rev-parse', 'main~1')).trim();
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['get_tree', { recursive: true }, ['ls-tree', '-r', '-l', 'main']],
      ['get_tree', { path: 'lib' }, ['ls-tree', 'main', 'lib/']],
      ['get_file', { path: 'lib/a.ts' }, ['show', 'main:lib/a.ts']],
      ['list_commits', { per_page: commits }, ['log', `-${commits}`, 'main']],
      ['get_commit', { sha: second }, ['show', second]],
    ];
    for (const [tool, args, raw] of cases) {
      const r = await all.call(tool, args);
      expect(r.isError, r.text).toBeFalsy();
      expect(bytes(r.text), `${tool} ${JSON.stringify(args)}:\n${r.text}`).toBeLessThanOrEqual(
        bytes(await git(...raw)),
      );
    }
    const file = await all.call('get_file', { path: 'lib/a.ts' });
    expect(file.text).toBe('export const a = 10;\n');
    expect(file.structured).toMatchObject({
      path: 'lib/a.ts',
      encoding: 'utf-8',
      content: 'export const a = 10;\n',
      size: 21,
    });
    const tree = await all.call('get_tree', { path: 'lib' });
    expect(tree.text).toMatch(/^lib: 2 entries\nfile 21 [0-9a-f]{40} lib\/a\.ts\ndir - - lib\/deep\n$/);
    expect(tree.structured.entries[0]).toMatchObject({ path: 'lib/a.ts', type: 'file', size: 21 });
    const log = await all.call('list_commits', { per_page: 2 });
    const lines = log.text.trimEnd().split('\n');
    // The commit lines are fenced as untrusted text (issue 22): a random nonce per answer, on lines of its own.
    expect(lines, log.text).toHaveLength(5);
    expect(lines[0]).toBe('page 1, 2 commits; more: page 2');
    expect(lines[1]).toMatch(/^<untrusted-[0-9a-f]{16}>$/);
    expect(lines[4]).toBe(lines[1]!.replace('<', '</'));
    expect(lines[2]).toMatch(/^[0-9a-f]{40} \S+ Test Author <author@example\.test> many files$/);
    expect(log.structured.commits[0].author.email).toBe('author@example.test');
    const show = await all.call('get_commit', { sha: second });
    expect(show.text).toContain('second\n\nWith a body line.\n');
    expect(show.text).toContain('M lib/a.ts +1 -1\n@@ ');
    expect(show.structured.files[0]).toMatchObject({
      path: 'lib/a.ts',
      status: 'modified',
      additions: 1,
      deletions: 1,
    });
  });

  // Issue 23 added edit_file and edit_files (and push_files' expected_head / expected_blob_sha): the eight tools
  // before them took 6 KB; the two edit tools are held to 2.5 KB of their own.
  it('tools/list for the ten agent tools is at most 9 KB, the edit tools at most 2.5 KB of it', async () => {
    const list = await all.client.listTools();
    expect(list.tools).toHaveLength(10);
    expect(bytes(JSON.stringify(list))).toBeLessThanOrEqual(9216);
    const edits = list.tools.filter((t) => t.name.startsWith('edit_'));
    expect(edits).toHaveLength(2);
    expect(bytes(JSON.stringify(edits))).toBeLessThanOrEqual(2560);
  });

  it('a big tree is paged within the cap, every visible entry exactly once, the last page untruncated', async () => {
    const seen: string[] = [];
    let page: number | undefined = 1;
    let pages = 0;
    while (page !== undefined) {
      const r = await tight.call('get_tree', { path: 'big', page });
      expect(r.isError, r.text).toBeFalsy();
      const sz = sizes(r);
      expect(sz.text).toBeLessThanOrEqual(CAP);
      expect(sz.json).toBeLessThanOrEqual(CAP);
      expect(r.structured.truncated).toBe(r.structured.next_page !== undefined);
      if (r.structured.truncated) expect(r.text).toContain(`truncated: more with page: ${page + 1}`);
      seen.push(...r.structured.entries.map((e: { path: string }) => e.path));
      page = r.structured.next_page;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(2);
    expect(seen).toEqual(Object.keys(VISIBLE).sort());
    const past = await tight.call('get_tree', { path: 'big', page: pages + 1 });
    expect(past.isError).toBe(true);
    expect(past.text).toContain(`this answer has ${pages} pages`);
  });

  it('hidden entries never move a tree page boundary: the same visible tree pages identically on both branches', async () => {
    for (let page = 1; ; page++) {
      const withHidden = await tight.call('get_tree', { path: 'big', recursive: true, page });
      const clean = await tightClean.call('get_tree', { path: 'big', recursive: true, page });
      expect({ text: withHidden.text, structured: withHidden.structured, isError: withHidden.isError }).toEqual({
        text: clean.text,
        structured: clean.structured,
        isError: clean.isError,
      });
      if (withHidden.isError || withHidden.structured.next_page === undefined) break;
    }
  });

  it('a big commit is paged over its visible files; boundaries ignore hidden files, omitted_count is on every page', async () => {
    const pagesOf = async (agent: Agent, sha: string) => {
      const out: { files: string[]; next?: number; omitted: number; stats: unknown }[] = [];
      let p: number | undefined = 1;
      while (p !== undefined) {
        const r = await agent.call('get_commit', { sha, files_page: p });
        expect(r.isError, r.text).toBeFalsy();
        expect(sizes(r).text).toBeLessThanOrEqual(CAP);
        expect(sizes(r).json).toBeLessThanOrEqual(CAP);
        out.push({
          files: r.structured.files.map((f: { path: string }) => f.path),
          next: r.structured.next_files_page,
          omitted: r.structured.omitted_count,
          stats: r.structured.stats,
        });
        p = r.structured.next_files_page;
      }
      return out;
    };
    const hidden = await pagesOf(tight, bigCommit);
    const clean = await pagesOf(tightClean, cleanCommit);
    expect(hidden.length).toBeGreaterThan(2);
    expect(hidden.flatMap((p) => p.files)).toEqual(Object.keys(VISIBLE).sort());
    expect(hidden.map((p) => p.files)).toEqual(clean.map((p) => p.files));
    expect(new Set(hidden.map((p) => p.omitted))).toEqual(new Set([120]));
    expect(new Set(clean.map((p) => p.omitted))).toEqual(new Set([0]));
    expect(hidden.map((p) => p.stats)).toEqual(clean.map((p) => p.stats));
    const past = await tight.call('get_commit', { sha: bigCommit, files_page: hidden.length + 1 });
    expect(past.isError).toBe(true);
    expect(past.text).toContain(
      `files_page ${hidden.length + 1} is past the end: this answer has ${hidden.length} pages`,
    );
  });

  it('a file over the cap is refused whole with the way to read it, and its line windows are served', async () => {
    const whole = await tight.call('get_file', { path: 'docs/long.txt' });
    expect(whole.isError).toBe(true);
    expect(whole.text).toContain(`is ${bytes(LONG)} bytes, over this perimeter's ${CAP}-byte answer cap`);
    expect(whole.text).toContain('line windows (start_line/end_line)');
    const w = await tight.call('get_file', { path: 'docs/long.txt', start_line: 391, end_line: 400 });
    expect(w.isError, w.text).toBeFalsy();
    expect(w.structured).toMatchObject({ total_lines: 400, start_line: 391, end_line: 400 });
    expect(w.text.split('\n')[0]).toBe('docs/long.txt: lines 391-400 of 400');
    expect(w.text.endsWith('row 400 of a file bigger than the cap\n')).toBe(true);
    expect(sizes(w).json).toBeLessThanOrEqual(CAP);
  });
});
