import * as z from 'zod/v4';
import { ANONYMOUS_AGENT, compileGlobs, insideWrite, validateGlob } from '../../core/index.js';
import type { Lease } from '../../state/types.js';
import { defineTool } from '../tool.js';

/** Leases one agent may hold at once. */
export const MAX_LEASES_PER_AGENT = 16;
/** The longest lease when the perimeter sets no `limits.lease_max_ttl` (seconds). */
export const DEFAULT_LEASE_MAX_TTL = 3600;

type Args = { paths: string[]; ttl: number };
const input = z.strictObject({
  paths: z
    .array(z.string().min(1).max(1024))
    .min(1)
    .max(16)
    .describe('Files or globs inside your write scope that other agents may not write while you hold the lease.'),
  ttl: z.number().int().min(1).max(86_400).describe('Seconds the lease lasts (at most the perimeter maximum).'),
});

type Out = { lease_id: string; expires_at: string; paths: string[] };
const Output = z.object({ lease_id: z.string(), expires_at: z.string(), paths: z.array(z.string()) });

type Raw = { kind: 'lease'; lease: Lease } | { kind: 'refused'; message: string };

export const leaseAcquire = defineTool<Args, Raw, Out>({
  name: 'lease_acquire',
  access: 'write',
  surfaces: ['agent'],
  requires: 'write',
  pathMode: 'all',
  description:
    'Reserves paths of this branch for you: while the lease lasts, other agents’ writes there (pushes, edits, proposals) are refused. Release it with lease_release when done.',
  annotations: {
    title: 'Lease paths',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: Output,
  // Globs are the agent's own words, judged against its write scope below (which it is told at initialize).
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  guard: (a, ctx) => {
    const b = ctx.binding;
    if (b.surface !== 'agent') return 'Leases are taken by agents.';
    const max = b.limits.lease_max_ttl ?? DEFAULT_LEASE_MAX_TTL;
    if (a.ttl > max) return `Invalid argument: ttl is at most ${max} seconds on this perimeter.`;
    const write = compileGlobs(b.writeGlobs);
    for (const p of a.paths) {
      const v = validateGlob(p);
      if (!v.ok) return `Invalid argument: ${JSON.stringify(p)}: ${v.message}`;
      if (!insideWrite(p, ctx.scope, write))
        return `Refused: ${JSON.stringify(p)} is not inside your write scope; a lease covers only paths you may write.`;
    }
    return undefined;
  },
  run: async (a, ctx) => {
    const b = ctx.binding;
    if (b.surface !== 'agent' || ctx.presence === undefined)
      return { ok: true, value: { kind: 'refused', message: 'Refused: this server keeps no leases.' } };
    const got = await ctx.presence.acquire({
      perimeter: b.perimeterId,
      agent: ctx.agent ?? ANONYMOUS_AGENT,
      repo: b.repo,
      branch: b.branch,
      patterns: a.paths,
      write: b.writeGlobs,
      ttlSeconds: a.ttl,
      maxPerAgent: MAX_LEASES_PER_AGENT,
    });
    switch (got.kind) {
      case 'acquired':
        return { ok: true, value: { kind: 'lease', lease: got.lease } };
      case 'limit':
        return {
          ok: true,
          value: {
            kind: 'refused',
            message: `Refused: you already hold ${got.held} leases (at most ${MAX_LEASES_PER_AGENT}); release one first.`,
          },
        };
      default:
        return got satisfies never;
    }
  },
  filter: (r) =>
    r.kind === 'refused'
      ? { kind: 'refused', message: r.message }
      : {
          kind: 'ok',
          value: { lease_id: r.lease.id, expires_at: r.lease.expiresAt, paths: [...r.lease.patterns] },
        },
  notFound: () => 'Not found.',
  render: (v) => `lease ${v.lease_id} on ${v.paths.join(', ')} until ${v.expires_at}`,
});
