// /api/proposals and /api/restore: the operator's side of approval. Mounted inside the /api router, so every route
// here is behind the ops Bearer already. Every answer goes through its schema (schema.ts), which the CLI parses with.
import express, { type Response, type Router } from 'express';
import * as z from 'zod/v4';
import { ProposalStatus, type Perimeter, type Proposal } from '../../core/index.js';
import type { ProposalError, ProposalService } from '../../registry/proposals.js';
import type { UpstreamFor } from '../../upstream/types.js';
import type { Workspace } from '../../workspace/types.js';
import type { WorkTreeWriters } from '../../workspace/writes.js';
import { statusFor } from '../status.js';
import { reply } from './reply.js';
import { restoreCatalog, type CatalogFailure } from './restore-points.js';
import type { ProposalFileView, ProposalRow } from './schema.js';
import { fileDiffs, type FileDiff } from '../web/filediffs.js';
import { riskFlags } from '../web/risk.js';

/** Lines of one file's diff an /api answer carries (the page pages the rest). */
export const API_FILE_LINES = 400;

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
  /** Working trees, for the content of commit and plan proposals. */
  readonly workspace?: Workspace | undefined;
  /** Working-tree writers: their restore points are listed and applied with the others. */
  readonly writers?: WorkTreeWriters | undefined;
}

const fileView = (f: FileDiff): ProposalFileView => ({
  path: f.path,
  ...(f.from === undefined ? {} : { from: f.from }),
  change: f.change,
  added: f.added,
  removed: f.removed,
  notes: [...f.notes],
  ...(f.flag === undefined ? {} : { flag: f.flag }),
  ...(f.lines === undefined
    ? {}
    : { lines: f.lines.slice(0, API_FILE_LINES).map((l) => ({ kind: l.kind, text: l.text })) }),
  lines_total: f.lines?.length ?? 0,
});

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
    if (status && !status.success)
      return fail(res, 'bad_request', `status: one of ${ProposalStatus.options.join(', ')}.`);
    const perimeter = typeof req.query.perimeter === 'string' ? req.query.perimeter : undefined;
    const list = await s.list({
      ...(perimeter ? { perimeter } : {}),
      ...(status?.success ? { status: status.data } : {}),
    });
    reply(res, 'GET /proposals', { proposals: list.map(proposalRow) });
  });

  r.get('/proposals/:id', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const p = await s.get(req.params.id);
    if (!p) return fail(res, 'not_found', `No proposal "${req.params.id}".`);
    // The same per-file view the page draws, so `proposal show` and the page cannot disagree.
    const files = await fileDiffs(p, deps.upstreamFor, deps.workspace);
    const flags = riskFlags(p, await s.list({ perimeter: p.perimeter })).map((f) => ({ label: f.label, bad: f.bad }));
    reply(res, 'GET /proposals/:id', { proposal: p, files: files.map(fileView), flags });
  });

  r.post('/proposals/:id/approve', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const body = z.object({ hash: z.string().optional() }).safeParse(req.body ?? {});
    if (!body.success) return fail(res, 'bad_request', 'Body: {"hash": "<the hash you reviewed>"} (optional).');
    const out = await s.approve(req.params.id, 'operator', body.data.hash);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(res, 'POST /proposals/:id/approve', { proposal: out.value });
  });

  r.post('/proposals/:id/reject', async (req, res) => {
    const s = service(res);
    if (!s) return;
    const body = z.object({ reason: z.string().min(1).max(2000) }).safeParse(req.body ?? {});
    if (!body.success)
      return fail(res, 'bad_request', 'A rejection needs a reason: {"reason": "..."} (1–2000 characters).');
    const out = await s.reject(req.params.id, 'operator', body.data.reason);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(res, 'POST /proposals/:id/reject', { proposal: out.value });
  });

  const catalog = restoreCatalog({
    perimeters: deps.perimeters,
    upstreamFor: deps.upstreamFor,
    writers: deps.writers,
    proposals: deps.proposals,
  });

  r.get('/restore', async (_req, res) => {
    const out = await catalog.list();
    if (!out.ok) return catalogFail(res, out.error);
    reply(res, 'GET /restore', { restore_points: out.value, retention: catalog.retention });
  });

  r.post('/restore/:id/apply', async (req, res) => {
    const out = await catalog.apply(req.params.id);
    if (!out.ok) return catalogFail(res, out.error);
    reply(res, 'POST /restore/:id/apply', out.value);
  });

  return r;
}
