// `GET /api/audit` (issue 21): one audit answer for every instance, through any instance. The composition root gives
// the reader (the store's copy on PostgreSQL, this instance's ledger on the file store); this room parses the query
// and picks the status.
import express, { type Router } from 'express';
import * as z from 'zod/v4';
import { statusFor } from '../status.js';
import { reply } from './reply.js';
import type { AuditAnswer } from './schema.js';

/** The filters of `audit query`, plus `until`; `limit` newest events (returned oldest first). */
export interface AuditRead {
  readonly perimeter?: string | undefined;
  readonly client?: string | undefined;
  readonly tool?: string | undefined;
  readonly verdict?: 'allow' | 'deny' | 'invisible' | 'error' | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly limit: number;
}

/** `unavailable`: the store did not answer (the entries are safe on each instance's disk). */
export type AuditReader = (
  q: AuditRead,
) => Promise<{ ok: true; value: AuditAnswer } | { ok: false; code: 'unavailable'; message: string }>;

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;

const Time = z.iso.datetime({ offset: true });
const Query = z.strictObject({
  perimeter: z.string().min(1).optional(),
  client: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  verdict: z.enum(['allow', 'deny', 'invisible', 'error']).optional(),
  since: Time.optional(),
  until: Time.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_LIMIT).optional(),
});

/** The route; without a reader (the ledger is off) it answers 404 saying so. */
export function auditRoutes(read: AuditReader | undefined): Router {
  const r = express.Router();
  r.get('/audit', async (req, res) => {
    if (read === undefined) {
      res
        .status(statusFor('not_found'))
        .json({ error: { code: 'not_found', message: 'The audit ledger is off on this instance (--no-audit).' } });
      return;
    }
    const q = Query.safeParse(req.query);
    if (!q.success) {
      const issue = q.error.issues[0];
      res.status(statusFor('bad_request')).json({
        error: {
          code: 'bad_request',
          message: `Query parameter ${issue?.path.join('.') || '?'}: ${issue?.message ?? 'invalid'} (perimeter, client, tool, verdict, since, until as ISO 8601, limit 1-${MAX_AUDIT_LIMIT}).`,
        },
      });
      return;
    }
    const out = await read({ ...q.data, limit: q.data.limit ?? DEFAULT_AUDIT_LIMIT });
    if (!out.ok) {
      res.setHeader('Retry-After', '5');
      res.status(statusFor(out.code)).json({ error: { code: out.code, message: out.message } });
      return;
    }
    reply(res, 'GET /audit', out.value);
  });
  return r;
}
