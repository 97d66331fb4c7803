import type { Proposal } from '../../../core/index.js';
import { html, segment, type Html } from '../escape.js';
import { riskFlags } from '../risk.js';
import { age, flags } from './common.js';

const link = (p: Proposal) => html`<a href="/ui/proposals/${segment(p.id)}">${p.summary}</a>`;

/** Pending proposals, newest first, and the last decided ones under them. */
export function listPage(pending: readonly Proposal[], decided: readonly Proposal[], now: number): Html {
  const rows = pending.map(
    (
      p,
    ) => html`<tr data-id="${p.id}"><td>${age(p.created_at, now)}</td><td>${p.perimeter}</td><td><code>${p.branch}</code></td><td class="agent">${p.agent}</td>
<td>${link(p)}</td><td>${flags(riskFlags(p, pending))}</td></tr>`,
  );
  return html`<h1>Pending proposals <span class="muted">(${pending.length})</span></h1>
${
  pending.length === 0
    ? html`<p class="muted">Nothing is waiting for a decision.</p>`
    : html`<table class="proposals"><thead><tr><th>Age</th><th>Perimeter</th><th>Branch</th><th>Agent</th><th>Change</th><th>Risk</th></tr></thead><tbody>${rows}</tbody></table>`
}
<h2>Recently decided</h2>
${
  decided.length === 0
    ? html`<p class="muted">No decisions yet.</p>`
    : html`<table class="decided"><thead><tr><th>Updated</th><th>Perimeter</th><th>Branch</th><th>Agent</th><th>Status</th><th>Change</th></tr></thead><tbody>
${decided.map((p) => html`<tr data-id="${p.id}"><td>${age(p.updated_at, now)} ago</td><td>${p.perimeter}</td><td><code>${p.branch}</code></td><td class="agent">${p.agent}</td><td>${p.status}</td><td>${link(p)}</td></tr>`)}
</tbody></table>`
}`;
}
