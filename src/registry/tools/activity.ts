import * as z from 'zod/v4';
import { normalizePath, type PresenceView } from '../../core/index.js';
import { presenceFor, presenceLines } from '../presence.js';
import { Path } from '../schemas.js';
import { defineTool } from '../tool.js';

type Args = { path?: string | undefined };
const input = z.strictObject({
  path: Path.optional().describe('A file or directory to ask about (default: your whole window).'),
});

const Mention = z.object({ agent: z.string(), at: z.string(), paths: z.array(z.string()) });
const Output = z.object({
  agents: z
    .array(z.object({ agent: z.string(), last_seen: z.string() }))
    .describe('Agents of your perimeter active on this branch in the last 15 minutes.'),
  other_agents: z.number().describe('Agents of other perimeters active on this branch (never named).'),
  writes: z.array(Mention).describe('Their recent commits, on paths you can read.'),
  proposals: z.array(Mention).describe('Their pending proposals, on paths you can read.'),
  leases: z
    .array(z.object({ agent: z.string(), until: z.string(), paths: z.array(z.string()) }))
    .describe('Leases that refuse your writes until they end.'),
});

/** A prefix the view is cut to; a path that does not normalise asks about nothing (the same as a missing one). */
const prefixOf = (a: Args): string => {
  if (a.path === undefined) return '';
  const n = normalizePath(a.path);
  return n.ok ? n.value : '\u0000';
};

export const activity = defineTool<Args, PresenceView, PresenceView>({
  name: 'activity',
  access: 'read',
  surfaces: ['agent'],
  requires: 'write',
  pathMode: 'all',
  description:
    'Who else is working here: other agents active on this branch, their recent commits, pending proposals and leases on paths you can read. Check before a large edit; a lease refuses writes on its paths.',
  annotations: {
    title: 'Other agents here',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: Output,
  // The path is not judged by the policy: a hidden or missing one is simply a prefix with nothing readable below it.
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  run: async (a, ctx) => ({ ok: true, value: await presenceFor(ctx, prefixOf(a)) }),
  filter: (v) => ({ kind: 'ok', value: v }),
  notFound: () => 'Not found.',
  render: (v) => {
    const lines = presenceLines(v);
    return lines.length === 0 ? 'No other agent is active on paths you can read.' : lines.join('\n');
  },
});
