// /api/proposals and /api/restore: the operator's side of approval. Mounted inside the /api router, so every route
// here is behind the ops Bearer already. Response shapes are zod schemas the CLI reads with.
import express, { type Response, type Router } from 'express';
import * as z from 'zod/v4';
import { Proposal, ProposalStatus, type Perimeter } from '../../core/index.js';
import type { ProposalError, ProposalService } from '../../registry/proposals.js';
import type { UpstreamFor } from '../../upstream/types.js';
import type { WorkTreeWriters } from '../../workspace/writes.js';
import { statusFor } from '../status.js';
import { restoreCatalog, type CatalogFailure } from './restore-points.js';

/** A list row: the record without the change's content (which `show` gives in full). */
export const ProposalRow = z.object({
  id: z.string(),
  perimeter: z.string(),
  branch: z.string(),
  agent: z.string(),
  kind: z.string(),
  status: ProposalStatus,
  summary: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  protected_paths: z.array(z.string()),
});
export type ProposalRow = z.infer<typeof ProposalRow>;
export const ProposalList = z.object({ proposals: z.array(ProposalRow) });
export const ProposalShow = z.object({ proposal: Proposal });
export { RestoreApplied, RestoreList, RestoreRow } from './restore-points.js';

/** The list row of a proposal. */
export function proposalRow(p: Proposal): ProposalRow {
  return {
    id: p.id,
    perimeter: p.perimeter,
    branch: p.branch,
    agent: p.agent,
    kind: p.change.kind,
    status: p.status,
    summary: p.summary,
    created_at: p.created_at,
    expires_at: p.expires_at,
    protected_paths: p.facts.protected_paths,
  };
}

export interface ProposalRouteDeps {
  readonly proposals: ProposalService | undefined;
  readonly perimeters: () => readonly Perimeter[];
  readonly upstreamFor: UpstreamFor;
  /** Working-tree writers: their restore points are listed and applied with the others. */
  readonly writers?: WorkTreeWriters | undefined;
}

const fail = (res: Response, code: ProposalError | 'bad_request' | 'upstream', message: string): void => {
  res.status(statusFor(code)).json({ error: { code, message } });
};
const catalogFail = (res: Response, e: CatalogFailure): void => fail(res, e.code, e.message);

/** The operator's proposal and restore-point routes. */
export function proposalRoutes(deps: ProposalRouteDeps): Router {
  const r = express.Router();
  const service = (res: Response): ProposalService | undefined => {
    if (deps.proposals === undefined) fail(res, 'not_found', 'This server keeps no proposals.');
    return deps.proposals;
  };

  r.get('/proposals', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const status = req.query.status === undefined ? undefined : ProposalStatus.safeParse(req.query.status);
    if (status && !status.success) return fail(res, 'bad_request', `status: one of ${ProposalStatus.options.join(', ')}.`);
    const perimeter = typeof req.query.perimeter === 'string' ? req.query.perimeter : undefined;
    const list = await s.list({ ...(perimeter ? { perimeter } : {}), ...(status?.success ? { status: status.data } : {}) });
    res.json({ proposals: list.map(proposalRow) });
  });

  r.get('/proposals/:id', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const p = await s.get(req.params.id);
    if (!p) return fail(res, 'not_found', `No proposal "${req.params.id}".`);
    res.json({ proposal: p });
  });

  r.post('/proposals/:id/approve', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const body = z.object({ hash: z.string().optional() }).safeParse(req.body ?? {});
    if (!body.success) return fail(res, 'bad_request', 'Body: {"hash": "<the hash you reviewed>"} (optional).');
    const out = await s.approve(req.params.id, 'operator', body.data.hash);
    if (!out.ok) return fail(res, out.code, out.message);
    res.json({ proposal: out.value });
  });

  r.post('/proposals/:id/reject', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const body = z.object({ reason: z.string().min(1).max(2000) }).safeParse(req.body ?? {});
    if (!body.success) return fail(res, 'bad_request', 'A rejection needs a reason: {"reason": "..."} (1–2000 characters).');
    const out = await s.reject(req.params.id, 'operator', body.data.reason);
    if (!out.ok) return fail(res, out.code, out.message);
    res.json({ proposal: out.value });
  });

  const catalog = restoreCatalog({ perimeters: deps.perimeters, upstreamFor: deps.upstreamFor, writers: deps.writers, proposals: deps.proposals });

  r.get('/restore', async (_req, res) => {
    const out = await catalog.list();
    if (!out.ok) return catalogFail(res, out.error);
    res.json({ restore_points: out.value, retention: catalog.retention });
  });

  r.post('/restore/:id/apply', async (req, res) => {
    const out = await catalog.apply(req.params.id);
    if (!out.ok) return catalogFail(res, out.error);
    res.json(out.value);
  });

  return r;
}
