import * as z from 'zod/v4';
import { assertNever, ProposalId, ProposalStatus, type Proposal } from '../../core/index.js';
import { field } from '../render.js';

/** The proposal id argument of the agent's proposal tools. */
export const ProposalIdArg = z.string().min(1).max(64).describe('The proposal_id push_files answered.');

/** What an agent sees of its own proposal: never the restore point, the approver's identity or the stored hash. */
export const ProposalOut = z.object({
  proposal_id: z.string(),
  status: ProposalStatus,
  summary: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  commit: z.string().optional().describe('The commit, once applied.'),
  reason: z.string().optional().describe('Why it was rejected or failed.'),
});
export type ProposalOut = z.infer<typeof ProposalOut>;

/** The agent's view of a proposal. */
export function agentView(p: Proposal): ProposalOut {
  const base = {
    proposal_id: p.id,
    status: p.status,
    summary: p.summary,
    created_at: p.created_at,
    expires_at: p.expires_at,
  };
  switch (p.status) {
    case 'applied':
      return { ...base, commit: p.commit };
    case 'failed':
    case 'rejected':
      return { ...base, reason: p.reason };
    case 'pending':
    case 'approved':
    case 'applying':
    case 'cancelled':
    case 'expired':
      return base;
    default:
      return assertNever(p, 'proposal');
  }
}

/** The text block of a proposal answer: one line, plus the commit or the reason once there is one. */
export function renderProposal(o: ProposalOut): string {
  const tail =
    o.commit !== undefined ? `\ncommit ${o.commit}` : o.reason !== undefined ? `\nreason: ${field(o.reason)}` : '';
  return `proposal ${o.proposal_id} ${o.status}: ${field(o.summary)} (expires ${o.expires_at})${tail}\n`;
}

/** The one not-found answer for a proposal id, from the argument alone: another perimeter's reads exactly the same. */
export const proposalNotFound = (a: { proposal_id: string }): string => `Not found: proposal "${a.proposal_id}".`;

/** True for strings shaped like our ids; anything else cannot name a proposal and is answered as not found. */
export const looksLikeId = (s: string): boolean => ProposalId.safeParse(s).success;
