// Attacks on the proposal channel (issue 14): another perimeter's proposal, forged or hostile ids, and the private
// restore-point namespace. A proposal that is not the caller's must read exactly like one that never existed.
import { type Ctx } from './context.js';
import { callTool, check, noLeak, redact, type Attack } from './harness.js';

const FAKE = `p${'q'.repeat(24)}`;

export function proposalAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  let theirs: string | undefined;
  /** A pending proposal of perimeter `other`, made through the service as its agent's push would. */
  const othersProposal = async (): Promise<string> => {
    if (theirs !== undefined) return theirs;
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
    theirs = made.value.id;
    return theirs;
  };
  const answer = async (tool: string, id: string) => {
    const r = await callTool(ctx.app, tool, { proposal_id: id });
    noLeak(fx, `${r.text}\n${JSON.stringify(r.structured ?? null)}`, { proposal_id: id });
    check(r.isError === true, `${tool} answered for ${id}: ${r.text.slice(0, 200)}`);
    return redact(JSON.stringify({ text: r.text, structured: r.structured ?? null }), id);
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
      ['empty-looking id', ' '],
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
