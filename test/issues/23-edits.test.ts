// Issue 23 §3: edits that refuse instead of overwriting. edit_file / edit_files replace exact text located in the file
// as it is now (once, or at an occurrence), refuse the whole call when anything does not hold, and never rebase an
// edit blind onto a file that changed under it; push_files gains expected_head and expected_blob_sha; writes echo
// each file's blob id and size. Hidden paths answer exactly as missing ones. On both upstreams, through the real
// server, real MCP clients, the real /api, and commits made beside the server with git itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Upstream } from '../../src/upstream/types.js';
import { serveBoth, UPSTREAM_KINDS, bytesOf, type Served } from '../support/both-upstreams.js';
import { gitIn } from '../support/gitdir.js';
import type { Agent } from '../support/server.js';
import { advance } from '../twins/advance.js';

const MAIN = 'const a = 1;\nconst b = 2;\n';
const FILES = {
  'app/main.ts': MAIN,
  'app/dup.ts': 'x = 0;\nx = 0;\nx = 0;\n',
  'app/other.ts': 'other\n',
  'docs/a.md': 'hello\n',
  'out/report.txt': 'SECRET=hunter2\n',
  'secret/key.txt': 'k\n',
};

let epoch = 1_900_000_000;

describe.each(UPSTREAM_KINDS)('issue 23 edits, %s upstream', (kind) => {
  let s: Served;
  let agent: Agent;
  let gated: Agent;
  /** Runs once, just before the next commit reaches the upstream (another writer landing under the call). */
  let beforeCommit: (() => Promise<void>) | undefined;

  const wrap = (u: Upstream): Upstream =>
    new Proxy(u, {
      get(t, k, r) {
        if (k === 'commitFiles')
          return async (...args: Parameters<Upstream['commitFiles']>) => {
            const f = beforeCommit;
            beforeCommit = undefined;
            await f?.();
            return t.commitFiles(...args);
          };
        if (k === 'withBudget' && t.withBudget)
          return (b: Parameters<NonNullable<Upstream['withBudget']>>[0]) => wrap(t.withBudget!(b));
        const v: unknown = Reflect.get(t, k, r);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });

  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: FILES }], { server: { proposals: { ttlMs: 60_000 } }, wrap });
    const spec = { repo: s.repo, read: ['app/**', 'docs/**'], write: ['app/**', 'docs/**', 'out/**'] };
    await s.srv.perimeter({ id: 'ed', ...spec });
    await s.srv.perimeter({ id: 'edgated', ...spec, approval: { push_files: 'required' } });
    agent = await s.srv.connect('/mcp/ed');
    gated = await s.srv.connect('/mcp/edgated');
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const content = async (path: string) => gitIn(s.bare, ['show', `refs/heads/main:${path}`]);
  const blob = async (path: string) => (await gitIn(s.bare, ['rev-parse', `refs/heads/main:${path}`])).trim();
  /** A commit made beside the server, as another writer would. */
  const beside = (changes: Record<string, string | null>) =>
    advance(s.bare, 'main', changes, { author: 'Other <o@example.test>', epoch: epoch++, message: 'beside\n' });

  it('replaces exact text, answers the new blob id and size, and lands one commit', async () => {
    const before = await s.head();
    const r = await agent.call('edit_file', {
      path: 'app/main.ts',
      edits: [{ old_text: 'const b = 2;', new_text: 'const b = 3;' }],
    });
    expect(r.isError, r.text).toBeUndefined();
    const head = await s.head();
    expect(head).not.toBe(before);
    expect((await gitIn(s.bare, ['rev-parse', `${head}^`])).trim()).toBe(before);
    expect(await content('app/main.ts')).toBe('const a = 1;\nconst b = 3;\n');
    expect(r.structured).toEqual({
      branch: 'main',
      commit: head,
      files: [{ path: 'app/main.ts', blob_sha: await blob('app/main.ts'), size: 26 }],
    });
    expect(r.text).toContain(await blob('app/main.ts'));
  });

  it('a stale old_text writes nothing', async () => {
    await beside({ 'app/main.ts': 'const a = 10;\nconst b = 3;\n' });
    const before = await s.head();
    const r = await agent.call('edit_file', {
      path: 'app/main.ts',
      edits: [{ old_text: 'const a = 1;\n', new_text: 'const a = 5;\n' }],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^Edit 1 of "app\/main.ts": old_text does not occur/);
    expect(await s.head()).toBe(before);
  });

  it('an ambiguous match is refused; occurrence picks one; an occurrence past the last is refused', async () => {
    const before = await s.head();
    const amb = await agent.call('edit_file', { path: 'app/dup.ts', edits: [{ old_text: 'x = 0;', new_text: 'y' }] });
    expect(amb.isError).toBe(true);
    expect(amb.text).toContain('occurs 3 times');
    const past = await agent.call('edit_file', {
      path: 'app/dup.ts',
      edits: [{ old_text: 'x = 0;', new_text: 'y', occurrence: 4 }],
    });
    expect(past.text).toContain('occurrence 4 was asked but old_text occurs 3 times');
    const overlap = await agent.call('edit_file', {
      path: 'app/dup.ts',
      edits: [
        { old_text: 'x = 0;\nx', new_text: 'a' },
        { old_text: '0;\nx = 0;\nx', new_text: 'b' },
      ],
    });
    expect(overlap.text).toContain('overlapping');
    expect(await s.head()).toBe(before);
    const ok = await agent.call('edit_file', {
      path: 'app/dup.ts',
      edits: [{ old_text: 'x = 0;', new_text: 'x = 2;', occurrence: 2 }],
    });
    expect(ok.isError, ok.text).toBeUndefined();
    expect(await content('app/dup.ts')).toBe('x = 0;\nx = 2;\nx = 0;\n');
  });

  it("edits are located in the file as it is, not in each other's results", async () => {
    const r = await agent.call('edit_file', {
      path: 'app/other.ts',
      edits: [
        { old_text: 'other', new_text: 'one two' },
        { old_text: 'two', new_text: 'three' },
      ],
    });
    expect(r.text).toMatch(/^Edit 2 of "app\/other.ts": old_text does not occur/);
  });

  it('expected_blob_sha: stale refuses, current lands', async () => {
    const old = await blob('docs/a.md');
    await beside({ 'docs/a.md': 'hello there\n' });
    const before = await s.head();
    const stale = await agent.call('edit_file', {
      path: 'docs/a.md',
      expected_blob_sha: old,
      edits: [{ old_text: 'hello', new_text: 'bye' }],
    });
    expect(stale.isError).toBe(true);
    expect(stale.text).toContain(`Stale: "docs/a.md" changed since you read it`);
    expect(await s.head()).toBe(before);
    const read = await agent.call('get_file', { path: 'docs/a.md' });
    const ok = await agent.call('edit_file', {
      path: 'docs/a.md',
      expected_blob_sha: read.structured.sha,
      edits: [{ old_text: 'hello', new_text: 'bye' }],
    });
    expect(ok.isError, ok.text).toBeUndefined();
    expect(await content('docs/a.md')).toBe('bye there\n');
  });

  it('edit_files is atomic: one bad file refuses all', async () => {
    const before = await s.head();
    const r = await agent.call('edit_files', {
      message: 'two files',
      files: [
        { path: 'app/other.ts', edits: [{ old_text: 'other', new_text: 'changed' }] },
        { path: 'docs/a.md', edits: [{ old_text: 'not there', new_text: 'x' }] },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('Edit 1 of "docs/a.md"');
    expect(await s.head()).toBe(before);
    expect(await content('app/other.ts')).toBe('other\n');
    const ok = await agent.call('edit_files', {
      message: 'two files',
      files: [
        { path: 'app/other.ts', edits: [{ old_text: 'other', new_text: 'changed' }] },
        { path: 'docs/a.md', edits: [{ old_text: 'bye', new_text: 'hi' }] },
      ],
    });
    expect(ok.isError, ok.text).toBeUndefined();
    expect(ok.structured.files.map((f: { path: string }) => f.path)).toEqual(['app/other.ts', 'docs/a.md']);
    expect((await gitIn(s.bare, ['rev-parse', 'refs/heads/main~1'])).trim()).toBe(before);
  });

  it('a file that changes under the commit is re-checked on its new content, never overwritten', async () => {
    // Another writer changes the same file between the edit's read and its commit: the edit is planned again on the
    // new content; here its old_text still matches, so both changes are kept.
    await beside({ 'app/race.ts': 'top\nmiddle\nbottom\n' });
    beforeCommit = async () => {
      await beside({ 'app/race.ts': 'top changed\nmiddle\nbottom\n' });
    };
    const r = await agent.call('edit_file', {
      path: 'app/race.ts',
      edits: [{ old_text: 'bottom', new_text: 'bottom edited' }],
    });
    expect(r.isError, r.text).toBeUndefined();
    expect(await content('app/race.ts')).toBe('top changed\nmiddle\nbottom edited\n');
    // Now the other writer removes the text the edit replaces: the re-check refuses, nothing of ours lands.
    beforeCommit = async () => {
      await beside({ 'app/race.ts': 'rewritten\n' });
    };
    const gone = await agent.call('edit_file', { path: 'app/race.ts', edits: [{ old_text: 'middle', new_text: 'm' }] });
    expect(gone.isError).toBe(true);
    expect(gone.text).toContain('old_text does not occur');
    expect(await content('app/race.ts')).toBe('rewritten\n');
    // A writer touching another file only: the edit lands on top of it, computed on unchanged content.
    beforeCommit = async () => {
      await beside({ 'app/elsewhere.ts': 'e\n' });
    };
    const side = await agent.call('edit_file', {
      path: 'app/race.ts',
      edits: [{ old_text: 'rewritten', new_text: 'r' }],
    });
    expect(side.isError, side.text).toBeUndefined();
    expect(await content('app/race.ts')).toBe('r\n');
    expect(await content('app/elsewhere.ts')).toBe('e\n');
  });

  it('push_files: expected_head refuses a moved branch, expected_blob_sha a changed file; files echo what landed', async () => {
    const list = await agent.call('list_commits', { per_page: 1 });
    const seen = list.structured.commits[0].sha as string;
    await beside({ 'app/moved.ts': 'moved\n' });
    const before = await s.head();
    const moved = await agent.call('push_files', {
      message: 'p',
      expected_head: seen,
      files: [{ path: 'app/p.ts', content: 'p\n' }],
    });
    expect(moved.isError).toBe(true);
    expect(moved.text).toContain(`the newest commit you can see on the bound branch is ${before}`);
    expect(await s.head()).toBe(before);
    // A commit touching only a file the agent cannot read does not move the head it knows.
    await beside({ 'secret/key.txt': 'k2\n' });
    const stale = await agent.call('push_files', {
      message: 'p',
      expected_head: before,
      files: [{ path: 'app/main.ts', content: 'x\n', expected_blob_sha: '0'.repeat(40) }],
    });
    expect(stale.text).toContain('Stale: "app/main.ts" changed since you read it');
    const ok = await agent.call('push_files', {
      message: 'p',
      expected_head: before,
      files: [
        { path: 'app/p.ts', content: 'p\n' },
        { path: 'app/main.ts', content: 'x\n', expected_blob_sha: await blob('app/main.ts') },
      ],
    });
    expect(ok.isError, ok.text).toBeUndefined();
    expect(ok.structured.files).toEqual([
      { path: 'app/p.ts', blob_sha: await blob('app/p.ts'), size: 2 },
      { path: 'app/main.ts', blob_sha: await blob('app/main.ts'), size: 2 },
    ]);
  });

  it('an unreadable path answers exactly as a missing one, whatever it holds and whatever is guessed', async () => {
    const before = await s.head();
    const ask = (path: string, old_text: string) =>
      agent.call('edit_file', { path, edits: [{ old_text, new_text: 'pwned' }] });
    // A write-only file that exists, with the right guess and a wrong one; a write-only path that does not exist.
    const right = bytesOf(await ask('out/report.txt', 'SECRET=hunter2'));
    const wrong = bytesOf(await ask('out/report.txt', 'SECRET=nope'));
    const none = bytesOf(await ask('out/none.txt', 'SECRET=hunter2'));
    expect(right).toBe(wrong);
    expect(none).toBe(right.replaceAll('out/report.txt', 'out/none.txt'));
    // A readable path that does not exist reads the same.
    const missing = bytesOf(await ask('app/none.ts', 'x'));
    expect(missing).toBe(right.replaceAll('out/report.txt', 'app/none.ts'));
    // The same for expected_blob_sha on push_files and for edit_files.
    const pushHidden = await agent.call('push_files', {
      message: 'p',
      files: [{ path: 'out/report.txt', content: 'x', expected_blob_sha: await blob('out/report.txt') }],
    });
    const pushMissing = await agent.call('push_files', {
      message: 'p',
      files: [{ path: 'out/none.txt', content: 'x', expected_blob_sha: await blob('out/report.txt') }],
    });
    expect(bytesOf(pushHidden)).toBe(bytesOf(pushMissing).replaceAll('out/none.txt', 'out/report.txt'));
    const many = await agent.call('edit_files', {
      message: 'm',
      files: [
        { path: 'out/report.txt', edits: [{ old_text: 'SECRET', new_text: 'x' }] },
        { path: 'app/main.ts', edits: [{ old_text: 'no such text', new_text: 'x' }] },
      ],
    });
    // Whether the hidden file exists is judged before any content: the readable file's mismatch is not reached.
    expect(many.text).toBe(JSON.parse(right).text);
    expect(await s.head()).toBe(before);
    expect(await content('out/report.txt')).toBe('SECRET=hunter2\n');
  });

  it('approval mode: the edit becomes a proposal whose applied bytes are the ones shown', async () => {
    const before = await s.head();
    const r = await gated.call('edit_file', {
      path: 'docs/a.md',
      edits: [{ old_text: 'hi', new_text: 'approved' }],
      reason: 'wording',
    });
    expect(r.isError, r.text).toBeUndefined();
    expect(r.structured.status).toBe('pending');
    expect(await s.head()).toBe(before);
    const id = r.structured.proposal_id as string;
    const shown = await s.srv.api('GET', `/api/proposals/${id}`);
    expect(shown.json.proposal.base).toBe(before);
    const view = shown.json.files[0];
    expect(view.path).toBe('docs/a.md');
    const recorded = (await s.srv.proposals!.get(id))!.change;
    expect(recorded.kind === 'push_files' && recorded.files[0]?.content).toBe('approved there\n');
    const ok = await s.srv.api('POST', `/api/proposals/${id}/approve`, { hash: shown.json.proposal.hash });
    expect(ok.json.proposal.status, JSON.stringify(ok.json)).toBe('applied');
    expect(await content('docs/a.md')).toBe('approved there\n');
    const diff = await gitIn(s.bare, ['diff', before, 'refs/heads/main', '--', 'docs/a.md']);
    const added = diff
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .map((l) => l.slice(1));
    const removed = diff
      .split('\n')
      .filter((l) => l.startsWith('-') && !l.startsWith('---'))
      .map((l) => l.slice(1));
    const lines = view.lines as { kind: string; text: string }[];
    expect(lines.filter((l) => l.kind === 'add').map((l) => l.text)).toEqual(added);
    expect(lines.filter((l) => l.kind === 'del').map((l) => l.text)).toEqual(removed);
  });

  it('approval mode: a file that changes before approval makes the proposal stale, never re-applied blind', async () => {
    const r = await gated.call('edit_file', {
      path: 'docs/a.md',
      edits: [{ old_text: 'approved', new_text: 'later' }],
    });
    const id = r.structured.proposal_id as string;
    await beside({ 'docs/a.md': 'approved there, and more\n' });
    const shown = await s.srv.api('GET', `/api/proposals/${id}`);
    const out = await s.srv.api('POST', `/api/proposals/${id}/approve`, { hash: shown.json.proposal.hash });
    expect(JSON.stringify(out.json)).toContain('stale');
    expect(await content('docs/a.md')).toBe('approved there, and more\n');
  });
});
