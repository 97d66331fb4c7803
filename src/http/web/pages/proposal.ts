import { commitMessage, describeStep, isAgentName, workspaceSteps, type Proposal } from '../../../core/index.js';
import { html, segment, type Html } from '../escape.js';
import type { FileDiff } from '../filediffs.js';
import { diffstatTable, fileBox, INLINE_FILES } from '../render-diff.js';
import { conflictsOf, hiddenCharacterPaths, riskFlags } from '../risk.js';
import { age, flags, shortSha } from './common.js';

/** Everything the proposal page shows. */
export interface ProposalPageModel {
  readonly proposal: Proposal;
  readonly files: readonly FileDiff[];
  /** Every proposal, for overlaps with other pending ones. */
  readonly all: readonly Proposal[];
  readonly csrf: string;
  readonly now: number;
  /** A refusal of the last decision, shown above the forms. */
  readonly problem?: string;
}

const list = (items: readonly string[], none: string): Html =>
  items.length === 0
    ? html`<span class="muted">${none}</span>`
    : html`${items.map((x, i) => html`${i > 0 ? ', ' : ''}<code>${x}</code>`)}`;

function outcome(p: Proposal, now: number): Html {
  switch (p.status) {
    case 'pending':
      return html`<span>pending</span> <span class="muted">(expires in ${age(new Date(now).toISOString(), Date.parse(p.expires_at))})</span>`;
    case 'approved':
    case 'applying':
      return html`<span>${p.status}</span> by ${p.decided_by}`;
    case 'applied':
      return html`<span class="ok">applied</span> by ${p.decided_by}: commit ${shortSha(p.commit)}`;
    case 'failed':
      return html`<span class="bad">failed</span>: ${p.reason}`;
    case 'rejected':
      return html`<span class="bad">rejected</span> by ${p.decided_by}: ${p.reason}`;
    case 'cancelled':
      return html`<span>cancelled by the agent</span>`;
    case 'expired':
      return html`<span>expired</span> unapproved`;
    default:
      return assertNever(p);
  }
}

/** The agent's own text shown beside its reason: a commit message, or for other operations what it asked to run. */
function message(p: Proposal): { label: string; text: string } {
  const c = p.change;
  switch (c.kind) {
    case 'push_files':
    case 'commit':
      return { label: 'Commit message written by the agent', text: c.message };
    case 'pull_request':
      return {
        label: `Pull request #${c.number} (merge of ${p.branch} at ${c.head.slice(0, 12)} into ${c.into}), title and body written by the agent`,
        text: commitMessage(c),
      };
    case 'plan':
      return {
        label: 'Steps the agent asked for, in order',
        text: c.steps
          .map((s, i) => `${i + 1}. ${describeStep(s)}${s.kind === 'commit' ? `: ${s.message}` : ''}`)
          .join('\n'),
      };
    case 'patch':
    case 'discard':
    case 'merge':
    case 'rebase':
    case 'reset':
    case 'branch':
    case 'push':
      return { label: 'Operation the agent asked for', text: describeStep(workspaceSteps(c)[0]!) };
    default:
      return assertNever(c);
  }
}

/** Branches an approval would add to the perimeter's allowlist, and where each one's commit is read from. */
function allowlisting(p: Proposal): Html | undefined {
  const sources = p.facts.branch_sources ?? [];
  if (sources.length === 0) return undefined;
  return html`<tr><th>Adds to the allowlist of ${p.perimeter}</th><td class="allowlist bad">${sources.map(
    (s) =>
      html`<div>branch <code>${s.branch}</code> at <code>${s.from}</code>, reached from allowlisted branch <code>${s.reached_by}</code></div>`,
  )}</td></tr>
`;
}

/** What a push would send, recorded when it was proposed: the remote, its branch and the commits. */
function pushSends(p: Proposal): Html | undefined {
  const push = p.facts.push;
  if (push === undefined) return undefined;
  return html`<tr><th>Push</th><td class="push">branch <code>${push.branch}</code> to remote <code>${push.remote}</code>, ${push.commits.length} commit(s)${push.commits.map((c) => html` <code>${c.slice(0, 12)}</code>`)}</td></tr>
`;
}

/** Paths the operation would change that the agent can neither read nor write: approving fails on them. */
function outsideWindow(p: Proposal): Html | undefined {
  const paths = p.facts.outside_window ?? [];
  if (paths.length === 0) return undefined;
  return html`<tr><th>Outside the agent's window</th><td class="outside bad">${list(paths, '')} <span class="muted">(the agent was not told; approving fails on these paths)</span></td></tr>
`;
}

/** One proposal: server facts, the agent's words (marked as such), the diff, and the decision forms. */
export function proposalPage(m: ProposalPageModel): Html {
  const p = m.proposal;
  const conflicts = conflictsOf(p, m.all);
  const symlinks = m.files.filter((f) => f.symlinkChange).map((f) => f.path);
  const hidden = hiddenCharacterPaths(p);
  const inline = m.files.slice(0, INLINE_FILES);
  const unplaced = m.files.filter((f) => f.flag !== undefined).map((f) => f.path);
  return html`<h1>${p.summary}</h1>
<p>Status: ${outcome(p, m.now)} ${flags(riskFlags(p, m.all))}</p>
${m.problem ? html`<p class="notice bad" role="alert">${m.problem}</p>` : undefined}
<h2>Facts the server computed</h2>
<table class="facts"><tbody>
<tr><th>Perimeter</th><td>${p.perimeter}</td></tr>
<tr><th>Repository</th><td><code>${p.repo}</code></td></tr>
<tr><th>Branch</th><td><code>${p.branch}</code></td></tr>
<tr><th>Base commit</th><td><code>${p.base}</code></td></tr>
<tr><th>Proposed</th><td>${age(p.created_at, m.now)} ago by ${isAgentName(p.agent) ? html`agent <code class="agent">${p.agent}</code> (from its key)` : html`the client that calls itself <code>${p.agent}</code>`}</td></tr>
<tr><th>Protected paths touched</th><td class="protected">${list(p.facts.protected_paths, 'none')}</td></tr>
${allowlisting(p)}${pushSends(p)}${outsideWindow(p)}<tr><th>Symlink or mode changes</th><td class="modes">${list(symlinks, 'none')}</td></tr>
<tr><th>Names with hidden characters</th><td class="hidden-names">${list(hidden, 'none')}</td></tr>
<tr><th>Overlapping pending proposals</th><td class="conflicts">${
    conflicts.length === 0
      ? html`<span class="muted">none</span>`
      : conflicts.map(
          (c) => html`<div><a href="/ui/proposals/${segment(c.id)}">${c.id}</a>: ${list(c.paths, '')}</div>`,
        )
  }</td></tr>
<tr><th>Change hash</th><td><code>${p.hash}</code></td></tr>
</tbody></table>
<h2>In the agent's words</h2>
<p class="reason-label">Reason given by the agent (unverified)</p>
<div class="reason agent-reason">${p.agent_reason ?? html`<span class="muted">The agent gave no reason.</span>`}</div>
<p class="reason-label">${message(p).label}</p>
<div class="reason commit-message">${message(p).text}</div>
<h2>Files</h2>
${unplaced.length > 0 ? html`<p class="notice bad" role="alert">${unplaced.length} of the change's files cannot be shown here (${list(unplaced, '')}): they are flagged in red below. Do not approve what you cannot see.</p>` : undefined}
${diffstatTable(p.id, m.files)}
${inline.map((f, n) => fileBox(p.id, n, f))}
${m.files.length > inline.length ? html`<p class="more">${m.files.length - inline.length} more files: open them from the table above.</p>` : undefined}
${p.status === 'pending' ? decide(p, m.csrf) : undefined}`;
}

function decide(p: Proposal, csrf: string): Html {
  const base = `/ui/proposals/${segment(p.id)}`;
  return html`<section class="decide">
<form method="post" action="${base}/approve"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="hash" value="${p.hash}">
<p>Approving applies exactly this change (hash above) if the policy and the base still allow it.</p>
<button type="submit" class="approve">Approve and apply</button></form>
<form method="post" action="${base}/reject"><input type="hidden" name="csrf" value="${csrf}">
<label for="reason">Reason for rejecting (the agent sees it)</label><textarea id="reason" name="reason" required maxlength="2000"></textarea>
<button type="submit" class="reject">Reject</button></form>
</section>`;
}

function assertNever(x: never): never {
  throw new Error(`unhandled proposal ${JSON.stringify(x)}`);
}
