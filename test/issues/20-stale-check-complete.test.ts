// Issue 20 §3: the approval's stale check must be complete or fail closed. GitHub lists at most 300 files in a
// comparison and says nothing when it cut the list; a proposed path that changed past that cut was read as untouched,
// and the approved push landed on the new head, silently reverting the newer commit. On both upstreams (the emulator
// caps compare files at 300 like GitHub), through the real server and the real /api.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../support/gitdir.js';
import { serveBoth, UPSTREAM_KINDS, type Served } from '../support/both-upstreams.js';
import type { Agent } from '../support/server.js';

// More changed files than GitHub lists, all sorting before the proposed path, so the cut hides exactly that path.
const BULK = 320;
const bulk = (tag: string) =>
  Object.fromEntries(
    Array.from({ length: BULK }, (_, i) => [`bulk/f${String(i).padStart(4, '0')}.txt`, `${tag} ${i}\n`]),
  );

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  let agent: Agent;
  beforeAll(async () => {
    s = await serveBoth(
      kind,
      [{ message: 'init', files: { ...bulk('one'), 'zz/target.md': 'base\n', 'zz/other.md': 'other\n' } }],
      { server: { proposals: { ttlMs: 600_000 } } },
    );
    await s.srv.perimeter({
      id: 'gated',
      repo: s.repo,
      read: ['**'],
      write: ['zz/**'],
      approval: { push_files: 'required' },
    });
    agent = await s.srv.connect('/mcp/gated');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });
  const content = async (path: string) => (await gitIn(s.bare, ['show', `refs/heads/main:${path}`])).toString();

  it('a proposed path changed beyond 300 other changed files makes the proposal stale, never reverted', async () => {
    const r = await agent.call('push_files', {
      message: 'edit target',
      files: [{ path: 'zz/target.md', content: 'proposed\n' }],
    });
    expect(r.isError, r.text).toBeUndefined();
    expect(r.structured.status, r.text).toBe('pending');
    const id = r.structured.proposal_id as string;
    // Beside the server: a commit that changes 320 files and then the proposed one.
    await s.git.commit({ message: 'big change beside', files: { ...bulk('two'), 'zz/target.md': 'newer\n' } });
    const done = await s.srv.api('POST', `/api/proposals/${id}/approve`);
    expect(done.json.proposal.status, JSON.stringify(done.json)).toBe('failed');
    expect(done.json.proposal.reason).toMatch(/^stale: /);
    expect(await content('zz/target.md')).toBe('newer\n');
  }, 120_000);

  it('a proposal on a path nobody touched still applies after a small unrelated change', async () => {
    const r = await agent.call('push_files', {
      message: 'edit other',
      files: [{ path: 'zz/other.md', content: 'proposed\n' }],
    });
    const id = r.structured.proposal_id as string;
    await s.git.commit({ message: 'small change beside', files: { 'bulk/f0000.txt': 'three\n' } });
    const done = await s.srv.api('POST', `/api/proposals/${id}/approve`);
    expect(done.json.proposal.status, JSON.stringify(done.json)).toBe('applied');
    expect(await content('zz/other.md')).toBe('proposed\n');
  }, 120_000);
});
