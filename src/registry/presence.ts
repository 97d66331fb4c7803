// Gathers what presence is built from (notes, pending proposals, leases of the bound branch) and has the core cut it
// for the asking agent. Shared by `activity` and `workspace_brief`.
import {
  ANONYMOUS_AGENT,
  PRESENCE_RECENT_MS,
  presenceView,
  type PresenceView,
  type ProposalIn,
} from '../core/index.js';
import type { AgentProposals } from './proposals.js';
import type { ToolContext } from './tool.js';

export const NOBODY: PresenceView = { agents: [], other_agents: 0, writes: [], proposals: [], leases: [] };

/** Pending proposals on one repository branch, as presence reads them (who, which paths, since when). */
export async function pendingOn(
  proposals: Pick<AgentProposals, 'list'> | undefined,
  repo: string,
  branch: string,
): Promise<ProposalIn[]> {
  if (proposals === undefined) return [];
  // The store filters: only this branch's pending proposals are read, however many other branches hold.
  return (await proposals.list({ status: 'pending', repo, branch })).map((p) => ({
    perimeter: p.perimeter,
    agent: p.agent,
    paths: p.facts.paths,
    created_at: p.created_at,
  }));
}

/** Other agents' activity on the bound branch below `prefix`, as the calling agent may see it. */
export async function presenceFor(ctx: ToolContext, prefix: string): Promise<PresenceView> {
  const b = ctx.binding;
  if (b.surface !== 'agent' || ctx.presence === undefined) return NOBODY;
  const [notes, leases, pending] = await Promise.all([
    ctx.presence.recent(b.repo, b.branch, PRESENCE_RECENT_MS),
    ctx.presence.leases(b.repo, b.branch),
    pendingOn(ctx.proposals, b.repo, b.branch),
  ]);
  return presenceView(
    { perimeter: b.perimeterId, agent: ctx.agent ?? ANONYMOUS_AGENT, scope: ctx.scope },
    prefix,
    notes,
    pending,
    leases,
  );
}

/** The text lines of a presence view (empty when there is nobody to report). */
export function presenceLines(v: PresenceView): string[] {
  const out: string[] = [];
  for (const a of v.agents) out.push(`${a.agent} active here (last seen ${a.last_seen})`);
  if (v.other_agents > 0) out.push(`${v.other_agents} agent(s) of other perimeters active on this branch`);
  for (const w of v.writes) out.push(`${w.agent} wrote ${w.paths.join(', ')} at ${w.at}`);
  for (const p of v.proposals) out.push(`${p.agent} proposed changes to ${p.paths.join(', ')} (${p.at})`);
  for (const l of v.leases) out.push(`${l.agent} holds a lease on ${l.paths.join(', ')} until ${l.until}`);
  return out;
}
