// `git-blinder proposal …` and `git-blinder restore …`: the operator's approval flow over /api. Everything an agent
// wrote (summary, message, paths, reason, client name) reaches the terminal through `clean` or `jsonText` only.
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  assertNever,
  commitMessage,
  describeStep,
  PROPOSAL_STATUSES,
  workspaceSteps,
  type Proposal,
  type WorkspaceChange,
} from '../../core/index.js';
import type { ProposalFileView, ProposalRow, RestoreRow } from '../../http/api/schema.js';
import { CliError, type ApiClient } from '../client.js';
import { clean, jsonText, table } from '../table.js';

type Out = (line: string) => void;
type Ops = { json?: boolean };
type Wire = (cmd: Command) => Command;

const print = (out: Out, json: boolean | undefined, value: unknown, human: () => string) =>
  out(json ? jsonText(value, 2) : clean(human(), { lines: true }));
const enc = encodeURIComponent;

/** How long ago, for people ("3 min", "2 h"). */
function age(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 90
    ? `${s} s`
    : s < 5400
      ? `${Math.round(s / 60)} min`
      : s < 172_800
        ? `${Math.round(s / 3600)} h`
        : `${Math.round(s / 86_400)} d`;
}

const rows = (ps: readonly ProposalRow[]) =>
  table(
    ['ID', 'STATUS', 'PERIMETER', 'BRANCH', 'AGENT', 'AGE', 'RISK', 'SUMMARY'],
    ps.map((p) => [
      p.id,
      p.status,
      p.perimeter,
      p.branch,
      p.agent,
      age(p.created_at, Date.now()),
      p.protected_paths.length ? `protected: ${p.protected_paths.join(',')}` : '',
      p.summary,
    ]),
  );

/** The long form of one proposal: facts first, then the agent's words, then the change itself. */
export function showProposal(
  p: Proposal,
  files?: readonly ProposalFileView[],
  flags?: readonly { label: string; bad: boolean }[],
): string {
  const risk =
    flags === undefined
      ? []
      : [
          `risk:        ${flags.length === 0 ? '(none)' : flags.map((f) => (f.bad ? `[RED] ${f.label}` : f.label)).join(', ')}`,
        ];
  return [showFacts(p), ...risk, ...(files === undefined ? [] : ['', ...fileLines(files)])].join('\n');
}

const SIGN = { hunk: '', same: ' ', add: '+', del: '-' } as const;

/** Every file of the change as the page draws it: name, change, counts, red flags, notes, then its diff lines. */
function fileLines(files: readonly ProposalFileView[]): string[] {
  const out = [`files (${files.length}; the same view as the page):`];
  for (const f of files) {
    const name = f.from === undefined ? f.path : `${f.from} → ${f.path}`;
    out.push(
      `  ${f.change} ${name}  +${f.added} −${f.removed}${f.flag === undefined ? '' : `  [RED FLAG: ${f.flag}]`}`,
    );
    for (const n of f.notes) out.push(`    note: ${n}`);
    for (const l of f.lines ?? []) out.push(`    ${SIGN[l.kind]}${l.text}`);
    const shown = f.lines?.length ?? 0;
    if (f.lines_total > shown)
      out.push(`    … ${f.lines_total - shown} more diff lines on the page (/ui/proposals/<id>)`);
  }
  return out;
}

/** The facts and the change as stored. */
function showFacts(p: Proposal): string {
  const lines = [
    `id:          ${p.id}`,
    `status:      ${p.status}`,
    `perimeter:   ${p.perimeter}`,
    `branch:      ${p.branch} (base ${p.base})`,
    `agent:       ${p.agent}`,
    // Only a pending proposal can still expire; a decided one shows when it was made, nothing more.
    p.status === 'pending' ? `created:     ${p.created_at}   expires: ${p.expires_at}` : `created:     ${p.created_at}`,
    `hash:        ${p.hash}`,
    `protected:   ${p.facts.protected_paths.join(', ') || '(none)'}`,
  ];
  // What a push would send, recorded when it was proposed (issue 20 §8).
  const push = p.facts.push;
  if (push)
    lines.push(
      `push:        ${push.branch} to ${push.remote}, ${push.commits.length} commit(s)${push.commits.length ? `: ${push.commits.map((c) => c.slice(0, 12)).join(' ')}` : ''}`,
    );
  if (p.status === 'applied') lines.push(`commit:      ${p.commit}`);
  if (p.status === 'failed' || p.status === 'rejected') lines.push(`reason:      ${p.reason}`);
  if ('decided_by' in p) lines.push(`decided:     ${p.decided_by} at ${p.decided_at}`);
  if ('restore' in p && p.restore !== undefined) lines.push(`restore:     ${p.restore}`);
  if (p.agent_reason !== undefined) lines.push('', "agent's reason (the agent's words):", `  ${p.agent_reason}`);
  const c = p.change;
  if (c.kind !== 'push_files' && c.kind !== 'pull_request')
    return [...lines, '', ...workspaceLines(c, p.facts.paths)].join('\n');
  if (c.kind === 'pull_request')
    lines.push('', `pull request #${c.number}: merge ${p.branch} (${c.head}) into ${c.into}`);
  lines.push('', `message: ${commitMessage(c)}`);
  for (const f of c.files)
    lines.push(
      `  write  ${f.path}  (${f.encoding === 'base64' ? `${Math.floor((f.content.length * 3) / 4)} bytes, base64` : `${Buffer.byteLength(f.content)} bytes`})`,
    );
  for (const d of c.deletes) lines.push(`  delete ${d}`);
  return lines.join('\n');
}

/** A workspace change: its steps (a patch in full), then every path the preview said it touches. */
function workspaceLines(c: WorkspaceChange, paths: readonly string[]): string[] {
  const out = workspaceSteps(c).map(
    (s, i) => `step ${i + 1}: ${describeStep(s)}${s.kind === 'commit' ? ` — message: ${s.message}` : ''}`,
  );
  for (const s of workspaceSteps(c))
    if (s.kind === 'patch') out.push('patch:', ...s.patch.split('\n').map((l) => `  ${l}`));
  out.push(`fingerprint: ${c.fingerprint}`, 'paths (from the preview):', ...paths.map((x) => `  ${x}`));
  return out;
}

/** The one line `proposal approve` prints: what happened, in the words of what changed. */
function approvedLine(p: Proposal): string {
  switch (p.status) {
    case 'applied':
      if (!p.head_unchanged) return `applied ${p.id}: commit ${p.commit}`;
      return p.change.kind === 'patch' || p.change.kind === 'discard'
        ? `applied ${p.id} to the working tree (head unchanged)`
        : `applied ${p.id} (head unchanged)`;
    case 'failed':
      return `failed ${p.id}: ${p.reason}`;
    case 'pending':
    case 'approved':
    case 'applying':
    case 'rejected':
    case 'cancelled':
    case 'expired':
      return `${p.id}: ${p.status}`;
    default:
      return assertNever(p, 'proposal');
  }
}

/** Registers `proposal` and `restore` on the program; `ops` adds the shared --url/--token-file/--json flags. */
export function proposalCommands(
  program: Command,
  ops: Wire,
  clientFor: (o: Ops) => Promise<ApiClient>,
  out: Out,
): void {
  const proposal = program.command('proposal').description('Writes held for approval: list, show, approve, reject.');
  ops(
    proposal
      .command('list')
      .description('List proposals, newest first.')
      .option('--perimeter <id>', 'only this perimeter')
      .addOption(new Option('--status <status>', 'only this status').choices([...PROPOSAL_STATUSES])),
  ).action(async (o: Ops & { perimeter?: string; status?: string }) => {
    const q = new URLSearchParams({
      ...(o.perimeter ? { perimeter: o.perimeter } : {}),
      ...(o.status ? { status: o.status } : {}),
    }).toString();
    const r = await (await clientFor(o)).call('GET /proposals', `/proposals${q ? `?${q}` : ''}`);
    print(out, o.json, r, () => (r.proposals.length ? rows(r.proposals) : 'no proposals'));
  });
  ops(proposal.command('show <id>').description('Show one proposal: facts, the agent’s reason, every file.')).action(
    async (id: string, o: Ops) => {
      const r = await (await clientFor(o)).call('GET /proposals/:id', `/proposals/${enc(id)}`);
      print(out, o.json, r, () => showProposal(r.proposal, r.files, r.flags));
    },
  );
  ops(
    proposal
      .command('approve <id>')
      .description('Approve and apply: the policy is checked again on the perimeter as it is now.')
      .option('--hash <hash>', 'refuse unless the proposal still has this hash (as shown by "proposal show")'),
  ).action(async (id: string, o: Ops & { hash?: string }) => {
    const r = await (
      await clientFor(o)
    ).call('POST /proposals/:id/approve', `/proposals/${enc(id)}/approve`, o.hash ? { hash: o.hash } : {});
    const p = r.proposal;
    print(out, o.json, r, () => approvedLine(p));
    // `approve X && deploy` must stop when the change did not land: anything but `applied` is a failure (exit 1).
    if (p.status !== 'applied') throw new CliError('', 1);
  });
  // An empty reason is a usage error here, in the CLI's words (exit 2), not the API's 400 after a round trip.
  const reason = (v: string) => {
    if (v.trim() === '')
      throw new InvalidArgumentError('--reason is empty: say why (the agent reads it to decide what to do next).');
    return v;
  };
  ops(
    proposal
      .command('reject <id>')
      .description('Reject a pending proposal.')
      .addOption(new Option('--reason <text>', 'why (the agent sees it)').makeOptionMandatory().argParser(reason)),
  ).action(async (id: string, o: Ops & { reason: string }) => {
    const r = await (
      await clientFor(o)
    ).call('POST /proposals/:id/reject', `/proposals/${enc(id)}/reject`, { reason: o.reason });
    print(out, o.json, r, () => `rejected ${r.proposal.id}`);
  });

  const restore = program
    .command('restore')
    .description('Restore points taken before approved local writes (push_files and working-tree writes alike).');
  ops(
    restore.command('list').description('List restore points: what each keeps, for which proposal, and until when.'),
  ).action(async (o: Ops) => {
    const r = await (await clientFor(o)).call('GET /restore', '/restore');
    print(out, o.json, r, () => {
      const short = (sha: string | null) => (sha === null ? '(no branch)' : sha.slice(0, 12));
      const keeps = (p: RestoreRow) =>
        `${p.kind === 'ref' ? 'ref' : 'ref+stash'} ${short(p.head)}${p.stash.length ? ` + ${p.stash.length} path(s)` : ''}`;
      const rows = r.restore_points.map((p) => [
        p.id,
        p.repo,
        p.branch,
        p.proposal ?? '-',
        p.op,
        p.taken_at ?? '?',
        keeps(p),
        p.kept_until ?? 'until deleted',
      ]);
      const body = rows.length
        ? table(['ID', 'REPO', 'BRANCH', 'PROPOSAL', 'OP', 'TAKEN', 'KEEPS', 'KEPT UNTIL'], rows)
        : 'no restore points';
      return `${body}\nretention: each point is ${r.retention.rule}.`;
    });
  });
  ops(
    restore
      .command('apply <id>')
      .description(
        'Put the branch (and, for a working-tree point, the stashed paths) back as they were; the id is the one the proposal names.',
      ),
  ).action(async (id: string, o: Ops) => {
    const r = await (await clientFor(o)).call('POST /restore/:id/apply', `/restore/${enc(id)}/apply`);
    print(
      out,
      o.json,
      r,
      () =>
        `restored ${r.branch} in ${r.repo} to ${r.sha ?? '(branch removed)'} (was ${r.from ?? '(no branch)'}; undo: git-blinder restore apply ${r.undo})`,
    );
  });
}
