import * as z from 'zod/v4';
import { ANONYMOUS_AGENT } from '../../core/index.js';
import { defineTool } from '../tool.js';

type Args = { lease_id: string };
const input = z.strictObject({ lease_id: z.string().min(1).max(64).describe('The id lease_acquire answered.') });
const Output = z.object({ lease_id: z.string(), released: z.literal(true) });
type Out = z.infer<typeof Output>;

const notFound = (a: Args): string =>
  `Not found: lease ${JSON.stringify(a.lease_id)} (it ended, or it was never yours).`;

export const leaseRelease = defineTool<Args, boolean, Out>({
  name: 'lease_release',
  access: 'write',
  surfaces: ['agent'],
  requires: 'write',
  pathMode: 'all',
  description: 'Ends a lease you hold, so other agents may write its paths again.',
  annotations: {
    title: 'Release a lease',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: Output,
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  run: async (a, ctx) => {
    const b = ctx.binding;
    if (b.surface !== 'agent' || ctx.presence === undefined) return { ok: true, value: false };
    return { ok: true, value: await ctx.presence.release(a.lease_id, b.perimeterId, ctx.agent ?? ANONYMOUS_AGENT) };
  },
  filter: (released, a) =>
    released ? { kind: 'ok', value: { lease_id: a.lease_id, released: true } } : { kind: 'not_found' },
  notFound,
  render: (v) => `lease ${v.lease_id} released`,
});
