// Attacks on the proposal channel (issue 14): another perimeter's proposal, forged or hostile ids, and the private
// restore-point namespace. A proposal that is not the caller's must read exactly like one that never existed.
import { symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
      change: {
        kind: 'push_files',
        message: 'secret plan',
        files: [{ path: 'secret/plan.md', content: 'the plan\n', encoding: 'utf-8' }],
        deletes: [],
      },
      facts: { paths: ['secret/plan.md'], protected_paths: [] },
    });
    check(made.ok, 'could not make the other perimeter’s proposal');
    return made.value.id;
  };
  let gated: Promise<Agent> | undefined;
  /** An agent of a perimeter whose pushes wait for approval (the only kind that is served the proposal tools). */
  const gatedAgent = (): Promise<Agent> =>
    (gated ??= (async () => {
      await fx.srv.perimeter({
        id: 'gated',
        repo: fx.repo,
        read: ['app/**'],
        write: ['app/**'],
        approval: { push_files: 'required' },
      });
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
        check(
          redact(r.text, ref) === redact(bogus.text, 'refs/nothing/here/main'),
          `answers differ:\n  ${r.text}\n  ${bogus.text}`,
        );
      },
    });
  }
  return out;
}

// Issue 19: the propose_* tools on a working-tree binding (local upstream only: GitHub bindings have no working tree).
// Perimeter `wsprop` reads what `app` reads, writes app/**, and is bound to the dirty linked worktree of branch `ws`.
const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
const MADE_UP = 'c0ffee'.repeat(6) + 'c0ff';

/** The issue-19 attacks on what the propose_* tools judge: revisions, content checks, field caps. */
export function workspaceProposalAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  if (fx.kind !== 'local') return [];
  let agent: Promise<Agent> | undefined;
  const wsprop = (): Promise<Agent> =>
    (agent ??= (async () => {
      // Only `ws`: feature/ok grew out of feature-hidden, so its history (branchOnly) is readable through it.
      await fx.srv.perimeter({
        id: 'wsprop',
        repo: fx.repo,
        read: ['app/**', 'docs/*.md'],
        write: ['app/**'],
        branches: ['ws'],
      });
      const key = await fx.srv.api('POST', '/api/perimeters/wsprop/keys');
      return fx.srv.connect('/mcp/wsprop/ws', 'legacy', { authorization: `Bearer ${key.json.key}` });
    })());
  const tree = join(dirname(fx.bare), 'ws-tree');
  /** Proposals of wsprop whose summary names one of `marks` (attacks run side by side: counting all would race). */
  const count = async (...marks: string[]) =>
    (await fx.proposals.list()).filter((p) => p.perimeter === 'wsprop' && marks.some((m) => p.summary.includes(m)))
      .length;
  /** The answers of `calls` must be identical once each call's own revision or path is masked; none is stored. */
  const alike = async (calls: { tool: string; args: Record<string, unknown>; mask: string }[]) => {
    const a = await wsprop();
    const marks = calls.map((c) => c.mask);
    const before = await count(...marks);
    const answers: string[] = [];
    for (const c of calls) {
      const r = await callTool(a, c.tool, c.args);
      noLeak(fx, `${r.text}\n${JSON.stringify(r.structured ?? null)}`, c.args);
      const id = typeof r.structured?.proposal_id === 'string' ? r.structured.proposal_id : '';
      answers.push(
        redact(
          JSON.stringify({ isError: r.isError ?? false, text: r.text, structured: r.structured ?? null }),
          c.mask,
          id,
        ),
      );
      if (id !== '') await callTool(a, 'proposal_cancel', { proposal_id: id });
    }
    for (const [i, x] of answers.entries()) check(x === answers[0], `answer ${i} differs:\n  ${answers[0]}\n  ${x}`);
    return { answers, stored: (await count(...marks)) - before };
  };
  const revisionCases: [string, string, (rev: string) => Record<string, unknown>][] = [
    [
      'propose_branch from a hidden branch’s commit',
      'branchOnly',
      (rev) => ({ name: 'adv-19', from: rev, reason: 'r' }),
    ],
    [
      'propose_reset to a hidden-only commit of the bound branch',
      'hiddenOnly',
      (rev) => ({ mode: 'soft', to: rev, reason: 'r' }),
    ],
    ['propose_merge from a commit touching only a private file', 'privateOnly', (rev) => ({ from: rev, reason: 'r' })],
    ['propose_rebase onto a hidden branch’s commit', 'branchOnly', (rev) => ({ onto: rev, reason: 'r' })],
    [
      'propose_plan whose branch step starts at a hidden branch’s commit',
      'branchOnly',
      (rev) => ({ steps: [{ kind: 'branch', name: 'adv-19p', from: rev }], reason: 'r' }),
    ],
  ];
  const out: Attack[] = revisionCases.map(([label, key, args]) => ({
    category: 'proposals',
    name: `${label} reads exactly like a made-up commit id (issue 19)`,
    run: async () => {
      const rev = fx.shas[key as keyof typeof fx.shas];
      const tool = label.split(' ')[0]!;
      const r = await alike([
        { tool, args: args(rev), mask: rev },
        { tool, args: args(MADE_UP), mask: MADE_UP },
      ]);
      check(r.answers[0]!.includes('"isError":true'), `accepted: ${r.answers[0]!.slice(0, 200)}`);
      check(r.stored === 0, 'a proposal was stored');
    },
  }));
  out.push(
    {
      category: 'proposals',
      name: 'propose_commit through a linked directory: a hidden file with a credential answers like one without (issue 19)',
      run: async () => {
        await writeFile(join(tree, 'secret/adv19-tok.txt'), `const t = "${TOKEN}";\n`);
        await writeFile(join(tree, 'secret/adv19-none.txt'), 'const t = "none";\n');
        const r = await alike([
          {
            tool: 'propose_commit',
            args: { message: 'm', paths: ['app/link-dir/adv19-tok.txt'], reason: 'r' },
            mask: 'adv19-tok',
          },
          {
            tool: 'propose_commit',
            args: { message: 'm', paths: ['app/link-dir/adv19-none.txt'], reason: 'r' },
            mask: 'adv19-none',
          },
        ]);
        check(!/ghp_|line \d|GitHub token/.test(r.answers[0]!), r.answers[0]!.slice(0, 300));
      },
    },
    {
      category: 'proposals',
      name: 'propose_commit of a new link: its hidden target’s credential is never scanned or reported (issue 19)',
      run: async () => {
        await writeFile(join(tree, 'secret/adv19-ltok.txt'), `const t = "${TOKEN}";\n`);
        await writeFile(join(tree, 'secret/adv19-lnone.txt'), 'const t = "none";\n');
        await symlink('../secret/adv19-ltok.txt', join(tree, 'app/adv19-a')).catch(() => undefined);
        await symlink('../secret/adv19-lnone.txt', join(tree, 'app/adv19-b')).catch(() => undefined);
        const r = await alike([
          { tool: 'propose_commit', args: { message: 'm', paths: ['app/adv19-a'], reason: 'r' }, mask: 'app/adv19-a' },
          { tool: 'propose_commit', args: { message: 'm', paths: ['app/adv19-b'], reason: 'r' }, mask: 'app/adv19-b' },
        ]);
        check(!/ghp_|line \d|GitHub token/.test(r.answers[0]!), r.answers[0]!.slice(0, 300));
      },
    },
    {
      category: 'proposals',
      name: 'propose_plan: a patch step past propose_patch’s cap, or patches past it together, are refused and not stored (issue 19)',
      run: async () => {
        const a = await wsprop();
        const before = await count('patch');
        const body = (n: number) =>
          `diff --git a/app/big.txt b/app/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/app/big.txt\n@@ -0,0 +1 @@\n+${'x'.repeat(n)}\n`;
        const one = await callTool(a, 'propose_plan', {
          steps: [{ kind: 'patch', patch: body(1_000_100) }],
          reason: 'r',
        });
        const three = await callTool(a, 'propose_plan', {
          steps: [1, 2, 3].map(() => ({ kind: 'patch', patch: body(400_000) })),
          reason: 'r',
        });
        check(
          one.isError === true && three.isError === true,
          `accepted: ${one.text.slice(0, 120)} / ${three.text.slice(0, 120)}`,
        );
        check((await count('patch')) === before, 'a proposal was stored');
      },
    },
  );
  return out;
}
