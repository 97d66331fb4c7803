import * as z from 'zod/v4';
import type { Proposal } from '../../core/index.js';
import { defineTool } from '../tool.js';
import {
  agentView,
  looksLikeId,
  proposalNotFound,
  ProposalIdArg,
  ProposalOut,
  renderProposal,
} from './proposal-view.js';

type Args = { proposal_id: string };
const input = z.strictObject({ proposal_id: ProposalIdArg });

export const proposalStatus = defineTool<Args, Proposal | undefined, ProposalOut>({
  name: 'proposal_status',
  access: 'read',
  surfaces: ['agent'],
  requires: 'proposals',
  pathMode: 'all',
  description:
    'Status of a proposal push_files made here: pending, applied (with its commit), rejected or failed (with the reason), cancelled, expired. Poll it after proposing.',
  annotations: {
    title: 'Proposal status',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: ProposalOut,
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  run: async (a, ctx) => {
    if (ctx.binding.surface !== 'agent' || ctx.proposals === undefined || !looksLikeId(a.proposal_id))
      return { ok: true, value: undefined };
    return { ok: true, value: await ctx.proposals.getFor(ctx.binding.perimeterId, a.proposal_id) };
  },
  filter: (p) => (p === undefined ? { kind: 'not_found' } : { kind: 'ok', value: agentView(p) }),
  notFound: proposalNotFound,
  render: renderProposal,
});
