import * as z from 'zod/v4';
import type { Proposal } from '../../core/index.js';
import { defineTool } from '../tool.js';
import { agentView, looksLikeId, proposalNotFound, ProposalIdArg, ProposalOut, renderProposal } from './proposal-view.js';

type Args = { proposal_id: string };
const input = z.strictObject({ proposal_id: ProposalIdArg });

export const proposalStatus = defineTool<Args, Proposal | undefined, ProposalOut>({
  name: 'proposal_status',
  access: 'read',
  agentSurface: true,
  pathMode: 'all',
  description:
    'The status of a proposal this perimeter made (push_files where approval is required): pending, approved, applying, applied (with its commit), failed or rejected (with the reason), cancelled or expired. Poll it after proposing.',
  annotations: { title: 'Proposal status', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  agentInput: input,
  rootInput: input,
  output: ProposalOut,
  render: renderProposal,
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  run: async (a, ctx) => {
    if (ctx.binding.surface !== 'agent' || ctx.proposals === undefined || !looksLikeId(a.proposal_id)) return { ok: true, value: undefined };
    return { ok: true, value: await ctx.proposals.getFor(ctx.binding.perimeterId, a.proposal_id) };
  },
  filter: (p) => (p === undefined ? { kind: 'not_found' } : { kind: 'ok', value: agentView(p) }),
  notFound: proposalNotFound,
});
