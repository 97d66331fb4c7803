// Attacks on the proposal channel (issue 14): another perimeter's proposal, forged or hostile ids, and the private
// restore-point namespace. A proposal that is not the caller's must read exactly like one that never existed.
import { type Ctx } from './context.js';
import type { Agent } from '../support/server.js';
import { callTool, check, noLeak, redact, type Attack } from './harness.js';

const FAKE = `p${'q'.repeat(24)}`;

export function proposalAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  let theirs: Promise<string> | undefined;
  /** A pending proposal of perimeter `other`, made through the service as its agent's push would. */
  const othersProposal = (): Promise<string> => (theirs ??= makeOthers());
  const makeOthers = async (): Promise<string> => {
    const service = fx.srv.proposals;
    check(service !== undefined, 'the fixture keeps no proposals');
    const made = await service.create({
      perimeter: 'other',
      repo: fx.repo,
      branch: 'main',
      base: '0'.repeat(40),
      agent: 'other-agent',
      change: { kind: 'push_files', message: 'secret plan', files: [{ path: 'secret/plan.md', content: 'the plan\n', encoding: 'utf-8' }], deletes: [] },
      facts: { paths: ['secret/plan.md'], protected_paths: [] },
    });
    check(made.ok, 'could not make the other perimeter’s proposal');
    return made.value.id;
  };
  let gated: Promise<Agent> | undefined;
  /** An agent of a perimeter whose pushes wait for approval (the only kind that is served the proposal tools). */
  const gatedAgent = (): Promise<Agent> =>
    (gated ??= (async () => {
      await fx.srv.perimeter({ id: 'gated', repo: fx.repo, read: ['app/**'], write: ['app/**'], approval: { push_files: 'required' } });
      const key = await fx.srv.api('POST', '/api/perimeters/gated/keys');
      return fx.srv.connect('/mcp/gated', 'legacy', { authorization: `Bearer ${key.json.key}` });
    })());
  const answer = async (tool: string, id: string) => {
    const r = await callTool(await gatedAgent(), tool, { proposal_id: id });
    noLeak(fx, `${r.text}\n${JSON.stringify(r.structured ?? null)}`, { proposal_id: id });
    check(r.isError === true, `${tool} answered for ${id}: ${r.text.slice(0, 200)}`);
    check(r.text.startsWith('Not found: proposal'), `${tool} for ${JSON.stringify(id)}: ${r.text.slice(0, 200)}`);
    return JSON.stringify({ text: redact(r.text, id), structured: r.structured ?? null });
  };
  const out: Attack[] = [];
  for (const tool of ['proposal_status', 'proposal_cancel']) {
    out.push({
      category: 'proposals',
      name: `${tool}: another perimeter's proposal reads as a made-up id`,
      run: async () => {
        const id = await othersProposal();
        const a = await answer(tool, id);
        const b = await answer(tool, FAKE);
        check(a === b, `answers differ:\n  ${a}\n  ${b}`);
        const still = await fx.srv.proposals?.get(id);
        check(still?.status === 'pending', `the other perimeter's proposal is ${still?.status}`);
      },
    });
    for (const [label, id] of [
      ['path traversal', '../../proposals.json'],
      ['upper-cased id', FAKE.toUpperCase()],
      ['id with a newline', `${FAKE}\n`],
      ['prototype key', '__proto__'],
      ['encoded dots', '%2e%2e%2fproposals.json'],
    ] as const) {
      out.push({
        category: 'proposals',
        name: `${tool}: ${label}`,
        run: async () => {
          const a = await answer(tool, id);
          const b = await answer(tool, FAKE);
          check(a === b, `answers differ:\n  ${a}\n  ${b}`);
        },
      });
    }
  }
  out.push({
    category: 'proposals',
    name: 'a perimeter without approval is not even served the proposal tools',
    run: async () => {
      const names = (await ctx.app.client.listTools()).tools.map((t) => t.name);
      check(!names.includes('proposal_status') && !names.includes('proposal_cancel'), JSON.stringify(names));
    },
  });
  for (const ref of ['refs/git-blinder/restore/x/main', 'refs/git-blinder/restore', 'git-blinder/restore/x/main']) {
    out.push({
      category: 'proposals',
      name: `get_commit: restore namespace ${ref}`,
      run: async () => {
        const r = await callTool(ctx.app, 'get_commit', { sha: ref });
        const bogus = await callTool(ctx.app, 'get_commit', { sha: 'refs/nothing/here/main' });
        check(r.isError === true, `get_commit answered: ${r.text.slice(0, 200)}`);
        check(redact(r.text, ref) === redact(bogus.text, 'refs/nothing/here/main'), `answers differ:\n  ${r.text}\n  ${bogus.text}`);
      },
    });
  }
  return out;
}
