// Issue 14: a proposal left `applying` (or `approved`) by a process that stopped is reconciled when the service starts
// again — by looking at the branch, never by re-running the write — and an approved local write leaves a restore
// point the operator can list and apply. The crash is simulated as the issue says: the stored state is written as
// the dead process left it, and a fresh service is opened over the same state dir.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposalApplier } from '../../src/mcp/proposal-apply.js';
import { proposalService, type ProposalService } from '../../src/registry/proposals.js';
import { openFileProposalStore } from '../../src/state/file/proposals.js';
import { gitIn } from '../support/gitdir.js';
import { serveBoth, UPSTREAM_KINDS, type Served } from '../support/both-upstreams.js';
import type { Agent } from '../support/server.js';

const FILES = { 'docs/a.md': 'a\n', 'docs/b.md': 'b\n' };

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  let agent: Agent;
  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: FILES }], { server: { proposals: {} } });
    await s.srv.perimeter({
      id: 'gated',
      repo: s.repo,
      read: ['docs/**'],
      write: ['docs/**'],
      approval: { push_files: 'required' },
    });
    agent = await s.srv.connect('/mcp/gated');
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const propose = async (path: string, content: string): Promise<string> => {
    const r = await agent.call('push_files', { message: `set ${path}`, files: [{ path, content }] });
    expect(r.structured?.status, r.text).toBe('pending');
    return r.structured.proposal_id as string;
  };
  /** Rewrites the stored record as a process that died mid-way would have left it. */
  const leaveAs = async (id: string, status: 'applying' | 'approved') => {
    const file = join(s.srv.stateDir, 'proposals', `${id}.json`);
    const p = JSON.parse(await readFile(file, 'utf8'));
    Object.assign(p, { status, decided_by: 'operator', decided_at: new Date().toISOString() });
    await writeFile(file, JSON.stringify(p));
  };
  /** A new service over the same state dir and upstream: what `serve` builds at its next start. */
  const restart = async (): Promise<ProposalService> => {
    const store = await openFileProposalStore(s.srv.stateDir);
    if (!store.ok) throw new Error(store.message);
    const applier = proposalApplier({ upstreamFor: s.srv.upstreamFor, log: () => undefined });
    return proposalService({
      store: store.value,
      perimeter: (id) => s.srv.store.get(id),
      ...applier,
      audit: () => undefined,
    });
  };

  it('applying whose commit did not land → failed "interrupted"; nothing is re-run', async () => {
    const before = await s.head();
    const id = await propose('docs/a.md', 'never\n');
    await leaveAs(id, 'applying');
    const svc = await restart();
    expect(await svc.reconcile()).toBe(1);
    const p = await svc.get(id);
    expect(p).toMatchObject({ status: 'failed' });
    expect(p?.status === 'failed' && p.reason).toMatch(/^interrupted/);
    expect(await s.head()).toBe(before);
  });

  it('applying whose commit landed → applied with that commit', async () => {
    const id = await propose('docs/b.md', 'landed\n');
    // The dead process got as far as the commit: it carries the proposal trailer.
    const sha = await s.git.commit({
      message: `set docs/b.md\n\nGit-Blinder-Proposal: ${id}`,
      files: { 'docs/b.md': 'landed\n' },
    });
    await leaveAs(id, 'applying');
    const svc = await restart();
    expect(await svc.reconcile()).toBe(1);
    expect(await svc.get(id)).toMatchObject({ status: 'applied', commit: sha });
  });

  it('approved that never started → failed, and the agent sees why', async () => {
    const id = await propose('docs/a.md', 'late\n');
    await leaveAs(id, 'approved');
    const svc = await restart();
    await svc.reconcile();
    const p = await svc.get(id);
    expect(p?.status).toBe('failed');
    // Reconciling twice changes nothing more.
    expect(await svc.reconcile()).toBe(0);
  });

  it.runIf(kind === 'local')(
    'an approved local write leaves a restore point the operator can list and apply',
    async () => {
      const before = await s.head();
      const id = await propose('docs/a.md', 'restorable\n');
      const ok = await s.srv.api('POST', `/api/proposals/${id}/approve`);
      expect(ok.json.proposal.status, JSON.stringify(ok.json)).toBe('applied');
      // Issue 20 §4: the proposal names the point by the id `restore apply` takes (it once named the full ref).
      expect(ok.json.proposal.restore).toBe(id);
      const listed = await s.srv.api('GET', '/api/restore');
      expect(listed.json.restore_points).toContainEqual(
        expect.objectContaining({ repo: s.repo, id, kind: 'ref', branch: 'main', head: before, proposal: id }),
      );
      const applied = await s.srv.api('POST', `/api/restore/${id}/apply`);
      expect(applied.status, JSON.stringify(applied.json)).toBe(200);
      expect(applied.json).toMatchObject({ id, branch: 'main', sha: before, from: ok.json.proposal.commit });
      expect(await s.head()).toBe(before);
      // The head it left is itself a restore point: the restore can be undone.
      const undo = await s.srv.api('POST', `/api/restore/${id}-undo/apply`);
      expect(undo.status).toBe(200);
      expect(await s.head()).toBe(ok.json.proposal.commit);
      // The namespace is no branch: agents' branch listings and refs never show it.
      expect((await gitIn(s.bare, ['for-each-ref', '--format=%(refname)', 'refs/heads/'])).toString()).not.toContain(
        'git-blinder',
      );
      expect((await s.srv.api('POST', '/api/restore/pnothing/apply')).status).toBe(404);
    },
  );
});
