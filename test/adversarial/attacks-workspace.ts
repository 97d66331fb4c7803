// Attacks on the workspace tools (issue 13): a dirty linked worktree with hidden changes mixed in (a staged hidden
// file, untracked .env and hidden files with canaries, a readable file renamed to a hidden path). Every answer must
// carry nothing hidden, and every hidden probe must read byte for byte like a missing one.
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Agent } from '../support/server.js';
import { sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';
import { fxPairedConflict, fxTwins, TWIN_CANARY } from './ws-twins.js';

const WS_TOOLS = [
  'workspace_brief',
  'workspace_status',
  'workspace_diff',
  'conflict_preflight',
  'conflict_read',
  'submodule_status',
  'scope_summary',
  'integrity_check',
];

export function workspaceAttacks(ctx: Ctx): Attack[] {
  let agent: Promise<Agent> | undefined;
  const ws = () =>
    (agent ??= ctx.fx.srv.connect('/mcp/ws/ws', 'legacy', { authorization: `Bearer ${ctx.fx.keys.ws}` }));
  const listed = async (a: Agent) => (await a.client.listTools()).tools.map((t) => t.name);
  const clean = async (tool: string, args: Record<string, unknown>) => {
    const r = await callTool(await ws(), tool, args);
    check(!r.isError, `${tool} failed: ${r.text.slice(0, 200)}`);
    noLeak(ctx.fx, whole(r), args);
    check(!/secret\/|\.env/.test(whole(r)), `${tool} named a hidden path: ${whole(r).slice(0, 300)}`);
  };
  const alike = async (tool: string, calls: { args: Record<string, unknown>; mask: string }[]) => {
    const a = await ws();
    await sameAnswers(
      ctx,
      calls.map((c) => ({ tool, args: c.args, mask: [c.mask], agent: a })),
    );
  };
  const local = ctx.fx.kind === 'local';
  let writer: Promise<Agent> | undefined;
  /** Perimeter `wsreset`: reads what `ws` reads, writes app/**, on the same dirty worktree (hidden staged changes). */
  const wsWriter = (): Promise<Agent> =>
    (writer ??= (async () => {
      await ctx.fx.srv.perimeter({
        id: 'wsreset',
        repo: ctx.fx.repo,
        read: ['app/**', 'docs/*.md'],
        write: ['app/**'],
        branches: ['ws', 'feature/ok'],
      });
      const key = await ctx.fx.srv.api('POST', '/api/perimeters/wsreset/keys');
      return ctx.fx.srv.connect('/mcp/wsreset/ws', 'legacy', { authorization: `Bearer ${key.json.key}` });
    })());
  /** A preview that involves hidden state must still be proposed (judged at approval, in the operator's view). */
  const notJudgedOnHidden = async (args: Record<string, unknown>, tool: string) => {
    const a = await wsWriter();
    const r = await callTool(a, tool, args);
    noLeak(ctx.fx, whole(r), args);
    check(!/secret\/|\.gitmodules|\.env/.test(whole(r)), `${tool} named a hidden path: ${whole(r).slice(0, 300)}`);
    check(!r.isError && r.structured?.status === 'pending', `${tool} refused on hidden state: ${r.text.slice(0, 300)}`);
    const stored = await ctx.fx.proposals.get(r.structured.proposal_id);
    check((stored?.facts.outside_window ?? []).length > 0, 'the operator is not shown the hidden paths');
    await callTool(a, 'proposal_cancel', { proposal_id: r.structured.proposal_id });
  };
  const attacks: Attack[] = [
    {
      category: 'workspace',
      name: 'a binding on a bare repository (no working tree) never lists the workspace tools',
      run: async () => {
        const names = await listed(ctx.app);
        check(
          WS_TOOLS.every((t) => !names.includes(t)),
          names.join(','),
        );
        const r = await callTool(ctx.app, 'workspace_status', {});
        check(r.isError === true && !/secret/.test(r.text), r.text.slice(0, 200));
      },
    },
  ];
  if (!local) {
    attacks.push({
      category: 'workspace',
      name: 'a GitHub perimeter never gets the workspace tools, even on a branch checked out on this machine',
      run: async () => {
        const names = await listed(await ws());
        check(
          WS_TOOLS.every((t) => !names.includes(t)),
          names.join(','),
        );
        const r = await callTool(await ws(), 'get_file', { path: 'app/main.ts', source: 'worktree' });
        // The option is not even in its schema there: refused as an unknown argument, before anything is read.
        check(r.isError === true && !/CANARY|secret/.test(r.text), r.text.slice(0, 200));
      },
    });
    return attacks;
  }
  attacks.push(
    {
      category: 'workspace',
      name: 'workspace_status shows no hidden entry (and does show the readable change)',
      run: async () => {
        await clean('workspace_status', {});
        const r = await callTool(await ws(), 'workspace_status', {});
        check(
          JSON.stringify(r.structured?.unstaged) === JSON.stringify([{ path: 'app/main.ts', change: 'modified' }]),
          whole(r).slice(0, 300),
        );
        check(
          JSON.stringify(r.structured?.staged) === JSON.stringify([{ path: 'app/lib/util.ts', change: 'deleted' }]),
          whole(r).slice(0, 300),
        );
      },
    },
    {
      category: 'workspace',
      name: 'workspace_diff (working tree) shows no hidden file',
      run: () => clean('workspace_diff', {}),
    },
    {
      category: 'workspace',
      name: 'workspace_diff staged: a staged hidden file and a rename to a hidden path stay hidden',
      run: () => clean('workspace_diff', { staged: true }),
    },
    { category: 'workspace', name: 'integrity_check shows no hidden file', run: () => clean('integrity_check', {}) },
    { category: 'workspace', name: 'workspace_brief counts nothing hidden', run: () => clean('workspace_brief', {}) },
    {
      category: 'workspace',
      name: 'scope_summary of the root shows no hidden entry',
      run: () => clean('scope_summary', {}),
    },
    {
      category: 'workspace',
      name: 'submodule_status shows no hidden gitlink',
      run: () => clean('submodule_status', {}),
    },
    {
      category: 'workspace',
      name: 'workspace_diff narrowed to a hidden directory, a changed private file or a missing path: one answer (no per-path omitted_count oracle)',
      run: () =>
        alike('workspace_diff', [
          { args: { path: 'secret' }, mask: 'secret' },
          { args: { path: 'app/.env' }, mask: 'app/.env' },
          { args: { path: 'app/nothing' }, mask: 'app/nothing' },
        ]),
    },
    {
      category: 'workspace',
      name: 'workspace_diff against a hidden-only commit reads like a nonexistent commit',
      run: () =>
        alike('workspace_diff', [
          { args: { against: ctx.fx.shas.hiddenOnly }, mask: ctx.fx.shas.hiddenOnly },
          { args: { against: 'f'.repeat(40) }, mask: 'f'.repeat(40) },
        ]),
    },
    {
      category: 'workspace',
      name: 'conflict_preflight with a branch outside the allowlist reads like a missing branch',
      run: () =>
        alike('conflict_preflight', [
          { args: { with: 'feature/ok' }, mask: 'feature/ok' },
          { args: { with: 'no-such' }, mask: 'no-such' },
          { args: { with: 'HEAD' }, mask: 'HEAD' },
        ]),
    },
    {
      category: 'workspace',
      name: 'conflict_preflight never hands git an option-like branch',
      run: async () => {
        const r = await callTool(await ws(), 'conflict_preflight', { with: '--output=/tmp/gb-pwned' });
        check(r.isError === true, r.text.slice(0, 200));
      },
    },
    {
      category: 'workspace',
      name: 'conflict_read on a hidden or private file reads like one that is not conflicted',
      run: () =>
        alike('conflict_read', [
          { args: { path: 'secret/keys.txt' }, mask: 'secret/keys.txt' },
          { args: { path: 'app/.env' }, mask: 'app/.env' },
          { args: { path: 'app/none.ts' }, mask: 'app/none.ts' },
        ]),
    },
    {
      category: 'workspace',
      name: 'get_file source worktree: an untracked hidden file and an untracked .env read like missing files',
      run: () =>
        alike('get_file', [
          { args: { path: 'secret/new.txt', source: 'worktree' }, mask: 'secret/new.txt' },
          { args: { path: 'app/.env', source: 'worktree' }, mask: 'app/.env' },
          { args: { path: 'app/none.ts', source: 'worktree' }, mask: 'app/none.ts' },
        ]),
    },
    {
      category: 'workspace',
      name: 'scope_summary of a hidden subtree reads like a missing one',
      run: () =>
        alike('scope_summary', [
          { args: { path: 'secret' }, mask: 'secret' },
          { args: { path: 'nodir' }, mask: 'nodir' },
        ]),
    },
    ...twinAttacks(ctx),
    {
      category: 'workspace',
      name: 'propose_reset --hard over hidden staged changes is proposed, never refused on them (issue 19)',
      run: () => notJudgedOnHidden({ mode: 'hard', to: 'ws', reason: 'r' }, 'propose_reset'),
    },
    {
      category: 'workspace',
      name: 'propose_rebase whose replayed history changes a hidden file is proposed, never refused on it (issue 19)',
      run: () => notJudgedOnHidden({ onto: 'feature/ok', reason: 'r' }, 'propose_rebase'),
    },
    {
      category: 'workspace',
      name: 'an idempotent propose_reset retry answers the same proposal after a hidden file changed (issue 19)',
      run: async () => {
        const a = await wsWriter();
        const file = join(dirname(ctx.fx.bare), 'ws-tree', 'secret/keys.txt');
        const args = { mode: 'hard', to: 'ws', reason: 'r', idempotency_key: 'adv-19-retry' };
        const first = await callTool(a, 'propose_reset', args);
        await writeFile(file, 'CANARY_WS_STAGED_SECRET changed on disk\n');
        const again = await callTool(a, 'propose_reset', args).finally(() =>
          writeFile(file, 'CANARY_WS_STAGED_SECRET\n'),
        );
        noLeak(ctx.fx, whole(again), args);
        check(
          !first.isError && !again.isError && again.structured?.proposal_id === first.structured?.proposal_id,
          `retry answered: ${again.text.slice(0, 200)}`,
        );
        await callTool(a, 'proposal_cancel', { proposal_id: first.structured.proposal_id });
      },
    },
    {
      category: 'workspace',
      name: 'workspace agents cannot name a repository or branch',
      run: async () => {
        const r = await callTool(await ws(), 'workspace_status', { repo: '/', ref: 'main' });
        check(r.isError === true, r.text.slice(0, 200));
      },
    },
  );
  return attacks;
}

/**
 * Issue 19: every workspace answer on two working trees that differ only in hidden files (a write-only conflict,
 * hidden-only commits past the churn window, a hidden name that is not UTF-8, links to a hidden file, a visible
 * addition git pairs with a hidden deletion in one twin only) must be the same bytes, commit ids masked.
 */
function twinAttacks(ctx: Ctx): Attack[] {
  const same = (cls: string, tool: string, args: Record<string, unknown>): Attack => ({
    category: 'workspace',
    name: `twins (${cls}): ${tool} ${JSON.stringify(args)} answers the same whatever the hidden files`,
    only: 'local',
    run: async () => {
      const [h, n] = await (await fxTwins(ctx.fx)).both(tool, args);
      check(!h.includes(TWIN_CANARY), `${tool} carried hidden bytes: ${h.slice(0, 300)}`);
      check(h === n, `${tool} differs between twins:\n  ${h.slice(0, 600)}\n  ${n.slice(0, 600)}`);
    },
  });
  return [
    same('class 3: a write-only conflict', 'conflict_preflight', { with: 'other' }),
    same('class 5: links to a hidden file', 'workspace_status', {}),
    same('class 5: links to a hidden file', 'workspace_brief', {}),
    same('class 5 and 6: links, hidden-only commits', 'scope_summary', {}),
    same('class 5 and 6: links, hidden-only commits', 'scope_summary', { path: 'app' }),
    same('class 5: a subtree holding only a link to a hidden file', 'scope_summary', { path: 'app/links' }),
    same('class 6: a hidden name that is not UTF-8', 'workspace_diff', {}),
    same('class 6 and 8: hidden name, pairing with a hidden deletion', 'workspace_diff', { against: 'head' }),
    same('class 8: pairing with a hidden deletion', 'workspace_diff', { staged: true }),
    same('class 6: hidden records and caps', 'integrity_check', {}),
    same('class 6: hidden records and caps', 'submodule_status', {}),
    {
      category: 'workspace',
      name: 'twins (class 8): conflict_read never serves a stage git paired from a hidden file, nor the file merged from it',
      only: 'local',
      run: async () => {
        const r = await callTool(await fxPairedConflict(ctx.fx), 'conflict_read', { path: 'app/m.ts' });
        check(!r.isError, r.text.slice(0, 200));
        check(
          !whole(r).includes(TWIN_CANARY) && !whole(r).includes('value5 '),
          `conflict_read served a paired stage: ${whole(r).slice(0, 400)}`,
        );
        check(r.structured?.ours?.present === true, 'ours (from the path itself) should be served');
      },
    },
  ];
}
