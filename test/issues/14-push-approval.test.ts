// Issue 14: a push on a perimeter with `approval.push_files: required` is held as a proposal and lands only after an
// operator approves it — never after reject, cancel or expiry; an approval re-checks the policy on the perimeter as it
// is now and the branch against the base; proposals of one perimeter do not exist for another; idempotency keys
// return the same proposal. On both upstreams, through the real server, real MCP clients and the real /api.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../support/gitdir.js';
import { serveBoth, UPSTREAM_KINDS, bytesOf, type Served } from '../support/both-upstreams.js';
import type { Agent } from '../support/server.js';
import type { ProposalEvent } from '../../src/registry/proposals.js';

// Built at run time so the test file itself holds no token-shaped literal.
const TOKEN_LIKE = ['ghp', '_', 'R8x2Kq9LmZ4vT7wN1pB6yC3hJ5sD0fG2aQ8e'].join('');
const FILES = { 'docs/a.md': 'a\n', 'docs/b.md': 'b\n', 'app/main.ts': 'm\n', 'secret/plan.md': 'hidden\n' };

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  let agent: Agent;
  let other: Agent;
  let plain: Agent;
  let clock = Date.now();
  const events: ProposalEvent[] = [];
  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: FILES }], {
      server: { proposals: { ttlMs: 60_000, now: () => clock, audit: (e) => events.push(e) } },
    });
    await s.srv.perimeter({
      id: 'gated',
      repo: s.repo,
      read: ['docs/**', 'app/**'],
      write: ['docs/**'],
      approval: { push_files: 'required' },
    });
    await s.srv.perimeter({
      id: 'other',
      repo: s.repo,
      read: ['docs/**'],
      write: ['docs/**'],
      approval: { push_files: 'required' },
    });
    await s.srv.perimeter({ id: 'plain', repo: s.repo, read: ['docs/**', 'app/**'], write: ['docs/**'] });
    agent = await s.srv.connect('/mcp/gated');
    other = await s.srv.connect('/mcp/other');
    plain = await s.srv.connect('/mcp/plain');
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const propose = async (files: { path: string; content: string }[], extra: Record<string, unknown> = {}) => {
    const r = await agent.call('push_files', { message: 'change docs', files, ...extra });
    expect(r.isError, r.text).toBeUndefined();
    expect(r.structured.status).toBe('pending');
    expect(r.structured.proposal_id).toMatch(/^p[a-z2-7]{24}$/);
    return r.structured.proposal_id as string;
  };
  const content = async (path: string) => (await gitIn(s.bare, ['show', `refs/heads/main:${path}`])).toString();

  it('holds the push, then lands it only on approve, with the proposal trailer', async () => {
    const before = await s.head();
    const id = await propose([{ path: 'docs/a.md', content: 'approved\n' }], { reason: 'fix the intro' });
    expect(await s.head()).toBe(before);
    const st = await agent.call('proposal_status', { proposal_id: id });
    expect(st.structured).toMatchObject({ proposal_id: id, status: 'pending' });

    const shown = await s.srv.api('GET', `/api/proposals/${id}`);
    expect(shown.json.proposal).toMatchObject({
      perimeter: 'gated',
      branch: 'main',
      base: before,
      agent_reason: 'fix the intro',
    });
    const ok = await s.srv.api('POST', `/api/proposals/${id}/approve`, { hash: shown.json.proposal.hash });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.proposal.status).toBe('applied');
    const head = await s.head();
    expect(ok.json.proposal.commit).toBe(head);
    expect(await content('docs/a.md')).toBe('approved\n');
    expect((await gitIn(s.bare, ['log', '-1', '--format=%B', head])).toString()).toContain(
      `Git-Blinder-Proposal: ${id}`,
    );

    const done = await agent.call('proposal_status', { proposal_id: id });
    expect(done.structured).toMatchObject({ status: 'applied', commit: head });
    expect(JSON.stringify(done.structured)).not.toContain('restore');
    expect(events.filter((e) => e.proposal.id === id).map((e) => e.event)).toEqual([
      'proposed',
      'approved',
      'applying',
      'applied',
    ]);
    // Approving twice does not write twice.
    expect((await s.srv.api('POST', `/api/proposals/${id}/approve`)).status).toBe(409);
  });

  it('a wrong hash cannot be approved', async () => {
    const id = await propose([{ path: 'docs/b.md', content: 'other\n' }]);
    const r = await s.srv.api('POST', `/api/proposals/${id}/approve`, { hash: `sha256:${'0'.repeat(64)}` });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('hash mismatch');
    await s.srv.api('POST', `/api/proposals/${id}/reject`, { reason: 'cleanup' });
  });

  it('never lands after reject, cancel or expiry', async () => {
    const before = await s.head();
    const rejected = await propose([{ path: 'docs/b.md', content: 'rejected\n' }]);
    const rj = await s.srv.api('POST', `/api/proposals/${rejected}/reject`, { reason: 'not now' });
    expect(rj.json.proposal.status).toBe('rejected');
    expect((await agent.call('proposal_status', { proposal_id: rejected })).structured).toMatchObject({
      status: 'rejected',
      reason: 'not now',
    });

    const cancelled = await propose([{ path: 'docs/b.md', content: 'cancelled\n' }]);
    const c = await agent.call('proposal_cancel', { proposal_id: cancelled });
    expect(c.structured.status).toBe('cancelled');

    const expired = await propose([{ path: 'docs/b.md', content: 'expired\n' }]);
    clock += 61_000;
    expect((await agent.call('proposal_status', { proposal_id: expired })).structured.status).toBe('expired');

    for (const id of [rejected, cancelled, expired]) {
      const r = await s.srv.api('POST', `/api/proposals/${id}/approve`);
      expect(r.status, id).toBe(409);
    }
    expect(await s.head()).toBe(before);
    expect(await content('docs/b.md')).toBe('b\n');
  });

  it('is refused at once, with the same message as today, when the policy says no', async () => {
    for (const files of [
      [{ path: 'app/main.ts', content: 'x\n' }],
      [{ path: 'docs/key.md', content: `token = ${TOKEN_LIKE}\n` }],
    ]) {
      const gated = await agent.call('push_files', { message: 'm', files });
      const today = await plain.call('push_files', { message: 'm', files });
      expect(gated.isError).toBe(true);
      expect(gated.text).toBe(today.text);
    }
    expect((await s.srv.api('GET', '/api/proposals?perimeter=gated&status=pending')).json.proposals).toEqual([]);
  });

  it('fails with the reason when the perimeter lost the path before approval', async () => {
    const before = await s.head();
    const id = await propose([{ path: 'docs/a.md', content: 'late\n' }]);
    await s.srv.store.modify((draft) => {
      const p = draft.get('gated')!;
      draft.set('gated', { ...p, write: ['docs/b.md'] });
      return { ok: true, value: undefined };
    });
    const r = await s.srv.api('POST', `/api/proposals/${id}/approve`);
    expect(r.json.proposal.status).toBe('failed');
    expect(r.json.proposal.reason).toContain("outside this perimeter's write scope");
    expect(await s.head()).toBe(before);
    await s.srv.store.modify((draft) => {
      const p = draft.get('gated')!;
      draft.set('gated', { ...p, write: ['docs/**'] });
      return { ok: true, value: undefined };
    });
  });

  it('fails as stale when the branch moved on the proposal’s paths, and applies when it moved elsewhere', async () => {
    const stale = await propose([{ path: 'docs/a.md', content: 'stale\n' }]);
    const fine = await propose([{ path: 'docs/b.md', content: 'fine\n' }]);
    await s.git.commit({ message: 'beside', files: { 'docs/a.md': 'changed beside\n' } });
    const r1 = await s.srv.api('POST', `/api/proposals/${stale}/approve`);
    expect(r1.json.proposal.status).toBe('failed');
    expect(r1.json.proposal.reason).toMatch(/^stale: .*"docs\/a\.md"/);
    expect(await content('docs/a.md')).toBe('changed beside\n');
    const r2 = await s.srv.api('POST', `/api/proposals/${fine}/approve`);
    expect(r2.json.proposal.status, JSON.stringify(r2.json)).toBe('applied');
    expect(await content('docs/b.md')).toBe('fine\n');
  });

  it('another perimeter reads a proposal exactly as a made-up id', async () => {
    const id = await propose([{ path: 'docs/a.md', content: 'mine\n' }]);
    const fake = `p${'a'.repeat(24)}`;
    for (const tool of ['proposal_status', 'proposal_cancel']) {
      const theirs = await other.call(tool, { proposal_id: id });
      const none = await other.call(tool, { proposal_id: fake });
      expect(theirs.isError).toBe(true);
      expect(bytesOf(theirs).replace(id, fake)).toBe(bytesOf(none));
    }
    expect((await agent.call('proposal_status', { proposal_id: id })).structured.status).toBe('pending');
    await agent.call('proposal_cancel', { proposal_id: id });
  });

  it('the same idempotency key answers the same proposal; a different change under it is refused', async () => {
    const a = await propose([{ path: 'docs/a.md', content: 'idem\n' }], { idempotency_key: 'k-1' });
    const b = await propose([{ path: 'docs/a.md', content: 'idem\n' }], { idempotency_key: 'k-1' });
    expect(b).toBe(a);
    const c = await agent.call('push_files', {
      message: 'change docs',
      files: [{ path: 'docs/a.md', content: 'different\n' }],
      idempotency_key: 'k-1',
    });
    expect(c.isError).toBe(true);
    expect(c.text).toContain('idempotency key');
    // Another perimeter's key space is its own.
    const d = await other.call('push_files', {
      message: 'change docs',
      files: [{ path: 'docs/a.md', content: 'idem\n' }],
      idempotency_key: 'k-1',
    });
    expect(d.structured.proposal_id).not.toBe(a);
    expect(
      (await s.srv.api('GET', '/api/proposals?perimeter=gated')).json.proposals.filter(
        (p: { id: string }) => p.id === a,
      ),
    ).toHaveLength(1);
  });
});
