import express, { type Request, type Response, type Router } from 'express';
import { agentOf, AgentName, describeIssues, type Binding, type Perimeter } from '../core/index.js';
import { invoke, type InvokeDeps } from '../mcp/index.js';
import { toolNamed } from '../registry/index.js';
import { Output as CommitOutput } from '../registry/tools/get_commit.js';
import { Output as CommitPage } from '../registry/tools/list_commits.js';
import type { PerimeterService } from '../registry/perimeters.js';
import type { AgentUse, PerimeterStore } from '../state/types.js';
import type { RepoInfo, Upstream, UpstreamError, UpstreamFor } from '../upstream/types.js';
import { bearerOf } from './auth.js';
import type { OpsGate } from './ops-gate.js';
import type { Endpoint } from './endpoint.js';
import { worktreeRoutes } from './api-worktrees.js';
import { issueKey, publicKeys } from './keys.js';
import { proposalRoutes } from './api/proposals.js';
import { auditRoutes, type AuditReader } from './api/audit.js';
import { reply } from './api/reply.js';
import type { Health, PerimeterView } from './api/schema.js';
import { outcomeFailure, statusFor, upstreamStatus, type HttpFailure } from './status.js';

export interface ApiDeps {
  /** The one check of the ops token (per-source back-off; /api's own requests are its audit entries). */
  readonly gate: OpsGate;
  readonly store: PerimeterStore;
  readonly service: PerimeterService;
  readonly upstreamFor: UpstreamFor;
  readonly upstreams: readonly Upstream[];
  readonly resolve: (ep: Endpoint) => Binding | undefined;
  readonly invoke: InvokeDeps;
  readonly publicUrl: () => string;
  /** Operator status (health route). */
  readonly status: () => Promise<Health>;
  /** When each agent last used its key (absent: never recorded). */
  readonly agentUse?: AgentUse;
  /** This instance's open sessions per agent. */
  readonly sessionsOf: (perimeter: string) => ReadonlyMap<string, number>;
  /** Every instance's audit events (`GET /api/audit`); absent when the ledger is off. */
  readonly auditRead?: AuditReader | undefined;
}

/** The agent URLs of a perimeter: its default branch, then every other allowlisted branch. */
export function agentUrls(base: string, p: Perimeter): string[] {
  const enc = (b: string) => b.split('/').map(encodeURIComponent).join('/');
  return [
    `${base}/mcp/${p.id}`,
    ...p.branches.filter((b) => b !== p.default_branch).map((b) => `${base}/mcp/${p.id}/${enc(b)}`),
  ];
}

const fail = (res: Response, code: Parameters<typeof statusFor>[0], message: string) => {
  res.status(statusFor(code)).json({ error: { code, message } });
};

/** Sends a failure whose status was chosen in status.ts, with `Retry-After` when waiting helps. */
const send = (res: Response, f: HttpFailure) => {
  if (f.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(f.retryAfterSeconds));
  res.status(f.status).json({ error: { code: f.code, message: f.message } });
};

/** An upstream failure on an operator route (not through a tool call). */
const upstreamFailure = (res: Response, e: UpstreamError) =>
  send(res, {
    status: upstreamStatus(e.code),
    code: e.code,
    message: e.message,
    ...(e.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: e.retryAfterSeconds }),
  });

/** `/api/*`: every route needs the ops Bearer, compared in constant time. */
export function apiRouter(deps: ApiDeps): Router {
  const r = express.Router();
  const view = (p: Perimeter): PerimeterView => {
    const { keys: _hashes, ...rest } = p;
    return { ...rest, keys: publicKeys(p), urls: agentUrls(deps.publicUrl(), p) };
  };

  r.use((req, res, next) => {
    const route = `${req.method} ${req.originalUrl.split('?')[0] ?? req.originalUrl}`;
    const checked = deps.gate.check(bearerOf(req.headers.authorization), {
      surface: 'api',
      route,
      address: req.socket.remoteAddress,
      audit: false,
    });
    switch (checked.kind) {
      case 'ok':
        next();
        return;
      case 'wrong':
        res.setHeader('WWW-Authenticate', 'Bearer realm="git-blinder"');
        fail(res, 'unauthorized', 'Send the ops token as "Authorization: Bearer <token>".');
        return;
      case 'wait':
        send(res, {
          status: 429,
          code: 'rate_limited',
          message: `Too many wrong ops tokens from this address: retry in ${checked.retryAfterSeconds} s.`,
          retryAfterSeconds: checked.retryAfterSeconds,
        });
        return;
      default: {
        const never: never = checked;
        throw new Error(`unhandled ops check ${String(never)}`);
      }
    }
  });

  r.use(worktreeRoutes({ store: deps.store, workspace: deps.invoke.workspace }));

  r.get('/health', async (_req, res) => {
    reply(res, 'GET /health', await deps.status());
  });

  r.get('/perimeters', (_req, res) => {
    reply(res, 'GET /perimeters', { perimeters: deps.store.list().map(view) });
  });

  r.post('/perimeters', async (req, res) => {
    const out = await deps.service.create(req.body);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(res, 'POST /perimeters', { perimeter: view(out.value) }, 201);
  });

  r.get('/perimeters/:id', (req, res) => {
    const p = deps.store.get(req.params.id);
    if (!p) return fail(res, 'not_found', `No perimeter "${req.params.id}".`);
    reply(res, 'GET /perimeters/:id', { perimeter: view(p) });
  });

  r.delete('/perimeters/:id', async (req, res) => {
    const out = await deps.service.remove(req.params.id);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(res, 'DELETE /perimeters/:id', { deleted: req.params.id });
  });

  r.get('/perimeters/:id/branches', (req, res) => {
    const p = deps.store.get(req.params.id);
    if (!p) return fail(res, 'not_found', `No perimeter "${req.params.id}".`);
    reply(res, 'GET /perimeters/:id/branches', {
      default_branch: p.default_branch,
      branches: p.branches,
      urls: agentUrls(deps.publicUrl(), p),
    });
  });

  r.post('/perimeters/:id/branches', async (req, res) => {
    const name = (req.body as { name?: unknown } | undefined)?.name;
    const out = await deps.service.addBranch(req.params.id, name);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(res, 'POST /perimeters/:id/branches', { perimeter: view(out.value) }, 201);
  });

  r.delete('/perimeters/:id/branches/*name', async (req: Request, res: Response) => {
    const name = ([] as string[]).concat(req.params.name ?? []).join('/');
    const out = await deps.service.removeBranch(String(req.params.id), name);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(res, 'DELETE /perimeters/:id/branches/*name', { perimeter: view(out.value) });
  });

  r.get('/perimeters/:id/keys', (req, res) => {
    const p = deps.store.get(req.params.id);
    if (!p) return fail(res, 'not_found', `No perimeter "${req.params.id}".`);
    reply(res, 'GET /perimeters/:id/keys', { keys: publicKeys(p) });
  });

  // The key is in this answer and nowhere else: only its hash is stored.
  r.post('/perimeters/:id/keys', async (req, res) => {
    const given = (req.body as { agent?: unknown } | undefined)?.agent;
    const name = given === undefined ? undefined : AgentName.safeParse(given);
    if (name !== undefined && !name.success) return fail(res, 'invalid', `agent: ${describeIssues(name.error)}`);
    const issued = issueKey(new Date(), name?.data);
    const out = await deps.service.addKey(req.params.id, issued.record);
    if (!out.ok) return fail(res, out.code, out.message);
    reply(
      res,
      'POST /perimeters/:id/keys',
      {
        id: issued.record.id,
        agent: agentOf(issued.record),
        key: issued.key,
        urls: agentUrls(deps.publicUrl(), out.value),
      },
      201,
    );
  });

  // One row per agent: its key, when it last used it (any instance), its open sessions on this instance.
  r.get('/perimeters/:id/agents', async (req, res) => {
    const p = deps.store.get(req.params.id);
    if (!p) return fail(res, 'not_found', `No perimeter "${req.params.id}".`);
    const used = (await deps.agentUse?.lastUse(p.id)) ?? {};
    const open = deps.sessionsOf(p.id);
    const agents = (p.keys ?? []).map((k) => {
      const agent = agentOf(k);
      return {
        agent,
        key_id: k.id,
        created_at: k.created_at,
        last_used: used[agent] ?? null,
        sessions: open.get(agent) ?? 0,
      };
    });
    reply(res, 'GET /perimeters/:id/agents', { agents: agents.sort((a, b) => a.agent.localeCompare(b.agent)) });
  });

  r.delete('/perimeters/:id/keys/:keyId', async (req, res) => {
    const out = await deps.service.revokeKey(req.params.id, req.params.keyId);
    if (!out.ok) return fail(res, out.code, out.message);
    // Its leases end with it (issue 23); a lease the store fails to drop already stops binding (`liveAgent`).
    await deps.invoke.presence?.drop(req.params.id, agentOf(out.value.key)).catch(() => undefined);
    reply(res, 'DELETE /perimeters/:id/keys/:keyId', { revoked: out.value.key.id, agent: agentOf(out.value.key) });
  });

  // Filtered history for the operator: the very pipeline an agent bound to that branch goes through. Gives the tool's
  // value and what it was read as, or undefined once a failure is sent.
  type Read = { readonly as: { perimeter: string; branch?: string | undefined }; readonly value: unknown };
  const history = async (
    req: Request,
    res: Response,
    toolName: 'list_commits' | 'get_commit',
    args: Record<string, unknown>,
  ): Promise<Read | undefined> => {
    const id = String(req.params.id);
    const p = deps.store.get(id);
    if (!p) return void fail(res, 'not_found', `No perimeter "${id}".`);
    const branch = typeof req.query.branch === 'string' ? req.query.branch : undefined;
    const binding = deps.resolve({ kind: 'perimeter', id, branch });
    if (!binding) return void fail(res, 'not_found', `Branch "${branch}" is not in the allowlist of ${id}.`);
    const tool = toolNamed(toolName);
    if (!tool) throw new Error(`tool ${toolName} missing from the registry`);
    const parsed = tool.agentInput.safeParse(args);
    if (!parsed.success) return void fail(res, 'invalid', parsed.error.issues.map((i) => i.message).join('; '));
    // The operator asks as the perimeter would, whatever tools it grants.
    const asAgent: Binding = binding.surface === 'agent' ? { ...binding, granted: undefined } : binding;
    const out = await invoke(
      tool,
      asAgent,
      parsed.data,
      { upstreamFor: deps.invoke.upstreamFor, log: deps.invoke.log },
      { client: 'git-blinder-api' },
    );
    // History tools are reads: a proposal cannot come out of them, and would be a broken invariant here.
    if (out.kind === 'propose') throw new Error(`${toolName} answered with a proposal`);
    if (out.kind !== 'allow') return void send(res, outcomeFailure(out));
    return {
      as: { perimeter: id, branch: binding.surface === 'agent' ? binding.branch : undefined },
      value: out.value,
    };
  };

  r.get('/perimeters/:id/commits', async (req, res) => {
    const q = req.query;
    const num = (v: unknown) => (typeof v === 'string' && v !== '' ? Number(v) : undefined);
    const args: Record<string, unknown> = {};
    if (typeof q.path === 'string') args.path = q.path;
    if (num(q.per_page) !== undefined) args.per_page = num(q.per_page);
    if (num(q.page) !== undefined) args.page = num(q.page);
    const read = await history(req, res, 'list_commits', args);
    if (read) reply(res, 'GET /perimeters/:id/commits', { ...read.as, ...CommitPage.parse(read.value) });
  });

  r.get('/perimeters/:id/commits/:sha', async (req, res) => {
    const read = await history(req, res, 'get_commit', { sha: req.params.sha });
    if (read) reply(res, 'GET /perimeters/:id/commits/:sha', { ...read.as, ...CommitOutput.parse(read.value) });
  });

  r.get('/repos', async (_req, res) => {
    const repos: RepoInfo[] = [];
    for (const u of deps.upstreams) {
      const out = await u.listRepos();
      if (!out.ok) return upstreamFailure(res, out.error);
      repos.push(...out.value);
    }
    reply(res, 'GET /repos', { repos });
  });

  const branches = async (repo: string, res: Response, route: 'GET /repos/:owner/:repo/branches' | 'GET /branches') => {
    const u = deps.upstreamFor(repo);
    if (!u) return fail(res, 'not_found', `Repository "${repo}" is not served by this process.`);
    const out = await u.listBranches(repo);
    if (!out.ok) return upstreamFailure(res, out.error);
    reply(res, route, { repo, branches: [...out.value] });
  };
  r.get('/repos/:owner/:repo/branches', (req, res) =>
    branches(`${req.params.owner}/${req.params.repo}`, res, 'GET /repos/:owner/:repo/branches'),
  );
  r.get('/branches', (req, res) => {
    if (typeof req.query.repo !== 'string') return fail(res, 'bad_request', 'Give ?repo=<owner/name or local path>.');
    return branches(req.query.repo, res, 'GET /branches');
  });

  r.use(
    proposalRoutes({
      proposals: deps.invoke.proposals,
      perimeters: () => deps.store.list(),
      upstreamFor: deps.upstreamFor,
      workspace: deps.invoke.workspace,
      writers: deps.invoke.writers,
    }),
  );

  r.use(auditRoutes(deps.auditRead));

  r.use((_req, res) => fail(res, 'not_found', 'No such API route.'));
  return r;
}
