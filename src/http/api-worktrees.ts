// `/api/perimeters/:id/worktrees`: the operator lists the working trees of a perimeter's repository and adds one for
// an allowlisted branch (an agent bound to that branch then gets the workspace tools). Operator only: paths on disk
// are shown here and nowhere on an agent surface.
import express, { type Router } from 'express';
import * as z from 'zod/v4';
import type { PerimeterStore } from '../state/types.js';
import type { Workspace, WorktreeInfo, WsErrorCode } from '../workspace/types.js';
import { reply } from './api/reply.js';
import type { WorktreeRow } from './api/schema.js';
import { statusFor } from './status.js';

const AddBody = z.strictObject({ branch: z.string().min(1).max(255), path: z.string().min(1).max(4096) });

/** HTTP status of a working-tree failure, chosen with the rest in status.ts's vocabulary. */
function wsStatus(code: WsErrorCode): number {
  switch (code) {
    case 'not_found':
      return statusFor('not_found');
    case 'invalid':
      return statusFor('invalid');
    case 'conflict':
      return statusFor('conflict');
    case 'too_large':
    case 'timeout':
    case 'refused':
    case 'unavailable':
      return statusFor('upstream');
    default: {
      const never: never = code;
      throw new Error(`unknown workspace error ${String(never)}`);
    }
  }
}

const row = (w: WorktreeInfo, allowlisted: readonly string[]): WorktreeRow => ({
  branch: w.branch,
  path: w.path,
  head: w.head,
  main: w.main,
  locked: w.locked,
  prunable: w.prunable,
  workspace_tools: !w.bare && w.branch !== null && allowlisted.includes(w.branch),
});

/** The worktree routes; mounted behind the ops Bearer check of the API router. */
export function worktreeRoutes(deps: { store: PerimeterStore; workspace: Workspace | undefined }): Router {
  const r = express.Router();
  const fail = (res: express.Response, status: number, code: string, message: string) =>
    res.status(status).json({ error: { code, message } });

  r.get('/perimeters/:id/worktrees', async (req, res) => {
    const p = deps.store.get(req.params.id);
    if (!p) return fail(res, 404, 'not_found', `No perimeter "${req.params.id}".`);
    if (!deps.workspace) return fail(res, 404, 'not_found', 'This server reads no working trees.');
    const list = await deps.workspace.worktrees(p.repo);
    if (!list.ok) return fail(res, wsStatus(list.error.code), list.error.code, list.error.message);
    return reply(res, 'GET /perimeters/:id/worktrees', {
      worktrees: list.value.filter((w) => !w.bare).map((w) => row(w, p.branches)),
    });
  });

  r.post('/perimeters/:id/worktrees', async (req, res) => {
    const p = deps.store.get(req.params.id);
    if (!p) return fail(res, 404, 'not_found', `No perimeter "${req.params.id}".`);
    const body = AddBody.safeParse(req.body);
    if (!body.success)
      return fail(res, 400, 'invalid', 'Send {"branch": "<allowlisted branch>", "path": "<absolute path>"}.');
    const { branch, path } = body.data;
    if (!p.branches.includes(branch)) {
      return fail(
        res,
        400,
        'invalid',
        `Branch "${branch}" is not allowlisted on "${p.id}"; allowlist it first (git-blinder perimeter branch add).`,
      );
    }
    if (!path.startsWith('/')) return fail(res, 400, 'invalid', 'The worktree path must be absolute.');
    if (!deps.workspace) return fail(res, 404, 'not_found', 'This server reads no working trees.');
    const made = await deps.workspace.addWorktree(p.repo, branch, path);
    if (!made.ok) return fail(res, wsStatus(made.error.code), made.error.code, made.error.message);
    return reply(res, 'POST /perimeters/:id/worktrees', { worktree: row(made.value, p.branches) }, 201);
  });
  return r;
}
