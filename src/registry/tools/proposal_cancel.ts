import * as z from 'zod/v4';
import type { Proposal, Result } from '../../core/index.js';
import type { ProposalError } from '../proposals.js';
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

export const proposalCancel = defineTool<Args, Result<Proposal, ProposalError>, ProposalOut>({
  name: 'proposal_cancel',
  // A state change (of the proposal, never of the repository): it names no path, so it spends no commit.
  access: 'write',
  surfaces: ['agent'],
  requires: 'proposals',
  pathMode: 'all',
  description:
    'Withdraws a pending proposal this perimeter made; it will never be applied. A decided proposal cannot be cancelled.',
  annotations: {
    title: 'Cancel a proposal',
    readOnlyHint: false,
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
    if (ctx.binding.surface !== 'agent' || ctx.proposals === undefined || !looksLikeId(a.proposal_id)) {
      return { ok: true, value: { ok: false, code: 'not_found', message: '' } };
    }
    return { ok: true, value: await ctx.proposals.cancel(ctx.binding.perimeterId, a.proposal_id) };
  },
  filter: (r) => {
    if (r.ok) return { kind: 'ok', value: agentView(r.value) };
    switch (r.code) {
      case 'not_found':
        return { kind: 'not_found' };
      case 'conflict':
      case 'invalid':
        return { kind: 'refused', message: r.message };
      default:
        return r.code satisfies never;
    }
  },
  notFound: proposalNotFound,
  render: renderProposal,
});
