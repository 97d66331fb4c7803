import type { Perimeter } from '../../../core/index.js';
import type { UpstreamHealth } from '../../../upstream/types.js';
import { html, type Html } from '../escape.js';

/** One audit ledger entry as the console lists it (no paths or arguments: those are hashed in the ledger anyway). */
export interface AuditLine {
  readonly ts: string;
  readonly surface: string;
  readonly perimeter?: string;
  readonly branch?: string;
  readonly tool: string;
  /** The agent id of the call's key (absent on operator surfaces and on entries older than agent ids). */
  readonly agent?: string;
  readonly verdict: string;
  readonly result: string;
}

/** What the console shows. */
export interface ConsoleModel {
  readonly perimeters: readonly Perimeter[];
  /** Open MCP sessions by perimeter id ('root' for the operator surface). */
  readonly sessions: Readonly<Record<string, number>>;
  readonly webSessions: number;
  readonly upstreams: readonly ({ kind: string } & UpstreamHealth)[];
  /** Newest first; undefined when the audit ledger is off. */
  readonly audit: readonly AuditLine[] | undefined;
  /** The ledger's own health: `degraded` with its reasons when an entry was lost or retention is held. */
  readonly auditHealth?: AuditHealth | undefined;
  readonly pending: number;
}

/** The ledger's state as the console shows it. */
export interface AuditHealth {
  readonly status: string;
  readonly warnings: readonly string[];
}

/** The operator console: perimeters and their branches, sessions, upstream health, recent audit entries. */
export function consolePage(m: ConsoleModel): Html {
  const total = Object.values(m.sessions).reduce((a, b) => a + b, 0);
  return html`<h1>Console</h1>
<p><a href="/ui/proposals">${m.pending} pending proposals</a> · ${total} open MCP sessions · ${m.webSessions} signed-in browsers</p>
<h2>Perimeters</h2>
<table class="perimeters"><thead><tr><th>Perimeter</th><th>Repository</th><th>Branches</th><th>Sessions</th></tr></thead><tbody>
${m.perimeters.map(
  (p) =>
    html`<tr><td>${p.id}</td><td><code>${p.repo}</code></td><td>${p.branches.map((b, i) => html`${i > 0 ? ', ' : ''}<code>${b}</code>${b === p.default_branch ? html` <span class="muted">(default)</span>` : undefined}`)}</td><td>${m.sessions[p.id] ?? 0}</td></tr>`,
)}
${m.sessions.root ? html`<tr><td class="muted">operator (/mcp/root)</td><td></td><td></td><td>${m.sessions.root}</td></tr>` : undefined}
</tbody></table>
<h2>Upstreams</h2>
<table class="upstreams"><thead><tr><th>Kind</th><th>Health</th><th>Detail</th><th>Rate limit</th></tr></thead><tbody>
${m.upstreams.map(
  (u) =>
    html`<tr><td>${u.kind}</td><td class="${u.ok ? 'ok' : 'bad'}">${u.ok ? 'ok' : 'failing'}</td><td>${u.detail}</td><td>${u.rateLimit ? `${u.rateLimit.remaining}/${u.rateLimit.limit} until ${u.rateLimit.resetAt}` : ''}</td></tr>`,
)}
</tbody></table>
<h2>Recent audit entries</h2>
${
  m.auditHealth === undefined
    ? undefined
    : html`<p class="audit-health">Ledger: <span class="${m.auditHealth.status === 'ok' ? 'ok' : 'bad'}">${m.auditHealth.status}</span></p>
${m.auditHealth.warnings.length > 0 ? html`<ul class="audit-warnings">${m.auditHealth.warnings.map((w) => html`<li class="bad">${w}</li>`)}</ul>` : undefined}`
}
${
  m.audit === undefined
    ? html`<p class="muted">The audit ledger is off in this process.</p>`
    : m.audit.length === 0
      ? html`<p class="muted">No entries yet.</p>`
      : html`<table class="audit"><thead><tr><th>Time</th><th>Surface</th><th>Perimeter</th><th>Branch</th><th>Tool</th><th>Agent</th><th>Verdict</th><th>Result</th></tr></thead><tbody>
${m.audit.map((e) => html`<tr><td>${e.ts}</td><td>${e.surface}</td><td>${e.perimeter ?? ''}</td><td>${e.branch ?? ''}</td><td>${e.tool}</td><td class="agent">${e.agent ?? ''}</td><td>${e.verdict}</td><td>${e.result}</td></tr>`)}
</tbody></table>`
}`;
}
