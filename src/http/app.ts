import express, { type Express, type Request, type Response } from 'express';
import { agentOf, ANONYMOUS_AGENT, isExposed, type Binding, type Perimeter, type ServerPolicy } from '../core/index.js';
import { bearerOf } from './auth.js';
import { matchingKey } from './keys.js';
import { ALL_TOOLS } from '../registry/index.js';
import { withWorktree, worktreeLookup, type InvokeDeps } from '../mcp/index.js';
import { perimeterService } from '../registry/perimeters.js';
import type { AgentUse, InstanceInfo, PerimeterStore, StoreHealth, WebSessionStore } from '../state/types.js';
import type { Upstream, UpstreamFor } from '../upstream/types.js';
import { apiRouter } from './api.js';
import type { AuditReader } from './api/audit.js';
import type { Health } from './api/schema.js';
import { bindingResolver } from './bindings.js';
import { guardPolicy, requestGuard } from './guard.js';
import { registeredOnly } from './root-repos.js';
import { parseEndpoint, type Endpoint } from './endpoint.js';
import { OpsGate, type OpsCheck, type OpsCheckEvent } from './ops-gate.js';
import { mcpRoute, type Admitted } from './mcp-route.js';
import { SessionTable, type SessionLimits } from './sessions.js';
import { rpcError } from './status.js';
import type { AuditHealth, AuditLine } from './web/pages/console.js';
import { securityHeaders } from './web/respond.js';
import { webRouter } from './web/router.js';
import { WebSessions } from './web/sessions.js';

export interface AppDeps {
  readonly store: PerimeterStore;
  /** Where each agent's last key use is recorded (absent: not recorded). */
  readonly agentUse?: AgentUse;
  readonly upstreamFor: UpstreamFor;
  readonly upstreams: readonly Upstream[];
  readonly opsToken: string;
  readonly invoke: InvokeDeps;
  readonly version: string;
  /** Base URL agents use, e.g. http://127.0.0.1:7400 (printed in agent URLs). */
  readonly publicUrl: () => string;
  /** Interface the server binds to (Host/Origin checks follow it). */
  readonly host: string;
  readonly allowedHosts?: readonly string[];
  readonly rootEnabled?: boolean;
  /** Repositories the operator surface may open besides those of registered perimeters (the configured ones). */
  readonly rootRepos?: readonly string[];
  /** Serve perimeter URLs without agent keys (the founding spec's V0). */
  readonly openPerimeters?: boolean;
  readonly allowedOrigins?: readonly string[];
  /** Server-wide policy additions (privacy patterns, protected paths, default limits). */
  readonly policy?: ServerPolicy;
  readonly sessionIdleMs?: number;
  /** Session caps per key, per perimeter, for the operator and in all (defaults: DEFAULT_SESSION_LIMITS). */
  readonly sessionLimits?: Partial<SessionLimits>;
  readonly jsonLimit?: string;
  readonly stateDir?: string;
  /** Called once per /api request after the answer is sent (the audit ledger). */
  readonly recordApi?: (r: {
    method: string;
    route: string;
    status: number;
    durationMs: number;
    bytes: number;
    source: string;
    at: string;
  }) => void;
  /** Called for each check of the ops token outside /api (whose checks are its requests, recorded by `recordApi`). */
  readonly recordAuth?: (e: OpsCheckEvent) => void;
  /** Back-off of sources that send wrong ops tokens (tests shorten it). */
  readonly opsBackoff?: { freeFailures?: number; baseDelayMs?: number; maxDelayMs?: number; windowMs?: number };
  /** Where the approval page keeps signed-in browsers, and the key of its CSRF tokens: both shared by every instance. */
  readonly web: { readonly sessions: WebSessionStore; readonly key: () => Promise<Uint8Array> };
  /** The shared state store as the operator status shows it: adapter, health, instances alive. */
  readonly storeStatus?: () => Promise<{ kind: string; health: StoreHealth; instances: readonly InstanceInfo[] }>;
  /** Extra fields for the operator status (audit ledger state). */
  readonly statusExtra?: () => Pick<Health, 'audit'>;
  /** The newest audit ledger entries, newest first, for the web console (absent when the ledger is off). */
  readonly recentAudit?: (limit: number) => Promise<readonly AuditLine[]>;
  /** The ledger's status and warnings for the console (absent when the ledger is off). */
  readonly auditHealth?: () => AuditHealth;
  /** Every instance's audit events for `GET /api/audit` (absent when the ledger is off). */
  readonly auditRead?: AuditReader;
}

export interface App {
  readonly app: Express;
  readonly sessions: SessionTable;
  /** Closes every session and the modern handler; the caller closes the listening socket. */
  close(): Promise<void>;
}

/** Builds the HTTP app (routes, Bearer checks, Host/Origin checks). It does not listen. */
export function createApp(deps: AppDeps): App {
  const started = Date.now();
  const app = express();
  app.disable('x-powered-by');
  // Before anything else, on every route: a bare Host from the allowed names, an origin-form target, our own Origin.
  // The page's headers go on before any check, so a refusal under /ui (Host, Origin, a body that does not parse) has them too.
  app.use('/ui', (_req: Request, res: Response, next: () => void) => {
    securityHeaders(res);
    next();
  });
  app.use(
    requestGuard(
      guardPolicy({ host: deps.host, allowedHosts: deps.allowedHosts, allowedOrigins: deps.allowedOrigins }),
    ),
  );
  app.use(express.json({ limit: deps.jsonLimit ?? '8mb' }));
  app.set('query parser', 'simple');

  const resolve = bindingResolver(deps.store, { rootEnabled: deps.rootEnabled ?? true, policy: deps.policy ?? {} });
  // One gate for every check of the ops token: failures counted per source across surfaces, each check audited.
  const gate = new OpsGate({
    token: deps.opsToken,
    ...deps.opsBackoff,
    ...(deps.recordAuth ? { record: deps.recordAuth } : {}),
  });
  const routeOf = (req: Request) => `${req.method} ${req.originalUrl.split('?')[0] ?? req.originalUrl}`;
  // /mcp/root is checked once per request, before the MCP route (which only asks whether the check passed).
  const rootChecks = new WeakMap<Request, OpsCheck>();
  // The agent id comes from the key the request presents, and from nothing else the request says.
  const admits = (ep: Endpoint, req: Request): Admitted | undefined => {
    if (ep.kind === 'root') return rootChecks.get(req)?.kind === 'ok' ? { owner: 'root' } : undefined;
    const p = deps.store.get(ep.id);
    const key = p ? matchingKey(p, bearerOf(req.headers.authorization)) : undefined;
    if (key !== undefined) {
      const agent = agentOf(key);
      deps.agentUse?.touch(ep.id, agent);
      return { owner: `key:${ep.id}:${key.id}`, agent };
    }
    // Open perimeters have no keys to tell callers apart: the perimeter is the owner, and the agent is anonymous.
    return deps.openPerimeters ? { owner: `open:${ep.id}`, agent: ANONYMOUS_AGENT } : undefined;
  };
  const ownerLive = (owner: string): boolean => {
    if (owner === 'root') return true;
    const [kind, id, keyId] = owner.split(':');
    const p = id === undefined ? undefined : deps.store.get(id);
    if (kind === 'open') return p !== undefined;
    return (p?.keys ?? []).some((k) => k.id === keyId);
  };
  const sessions = new SessionTable({
    idleMs: deps.sessionIdleMs ?? 30 * 60_000,
    ownerLive,
    ...(deps.sessionLimits ? { limits: deps.sessionLimits } : {}),
  });

  // What tools/list gives a binding: the one exposure rule, never a second list.
  const exposed = (binding: Binding) => ALL_TOOLS.filter((t) => isExposed(binding, t)).map((t) => t.name);
  const describe = (ep: Endpoint, binding: Binding): Record<string, unknown> => {
    const tools = exposed(binding);
    if (binding.surface === 'root') return { surface: 'root', tools };
    return { surface: 'agent', perimeter: binding.perimeterId, branch: binding.branch, tools, endpoint: ep.kind };
  };

  // The operator's status lists, per perimeter and allowlisted branch, exactly what an agent's tools/list gives: the
  // binding as a session gets it (with its working tree, when the branch is checked out), filtered by isExposed.
  const lookup = deps.invoke.workspace ? worktreeLookup(deps.invoke.workspace) : undefined;
  const toolsOf = async (p: Perimeter): Promise<Record<string, string[]>> => {
    const out: Record<string, string[]> = {};
    for (const branch of p.branches) {
      const b = resolve({ kind: 'perimeter', id: p.id, branch });
      if (b?.surface !== 'agent') continue;
      out[branch] = exposed(withWorktree(b, lookup ? await lookup(b.repo, b.branch) : false) ?? b);
    }
    return out;
  };

  const status = async (): Promise<Health> => {
    const counts = sessions.counts();
    return {
      name: 'git-blinder',
      version: deps.version,
      uptime_s: Math.round((Date.now() - started) / 1000),
      state_dir: deps.stateDir ?? null,
      // Most clients never send DELETE: a session quiet for a minute is reported idle until the reaper closes it.
      sessions: {
        open: sessions.size,
        ...sessions.activity(60_000),
        by_perimeter: counts,
        by_agent: sessions.agents().map((a) => ({
          perimeter: a.perimeter,
          agent: a.agent,
          sessions: a.sessions,
          branches: [...a.branches],
          last_seen: new Date(a.lastSeen).toISOString(),
        })),
        ...sessions.stats(),
      },
      perimeters: await Promise.all(
        deps.store.list().map(async (p) => ({
          id: p.id,
          repo: p.repo,
          branches: p.branches,
          sessions: counts[p.id] ?? 0,
          tools: await toolsOf(p),
        })),
      ),
      upstreams: await Promise.all(deps.upstreams.map(async (u) => ({ kind: u.kind, ...(await u.health()) }))),
      ...(deps.storeStatus
        ? {
            store: await deps
              .storeStatus()
              .then((st) => ({ ...st, instances: [...st.instances] }))
              // Silent for an unknown time: the store could not even be asked.
              .catch((e: Error) => ({
                kind: 'unknown',
                health: { kind: 'silent' as const },
                instances: [],
                error: e.message,
              })),
          }
        : {}),
      ...deps.statusExtra?.(),
    };
  };

  const rootInvoke: InvokeDeps = {
    ...deps.invoke,
    upstreamFor: registeredOnly(deps.invoke.upstreamFor, () => [
      ...(deps.rootRepos ?? []),
      ...deps.store.list().map((p) => p.repo),
    ]),
  };
  const mcp = mcpRoute({ resolve, admits, invoke: deps.invoke, rootInvoke, sessions, version: deps.version, describe });

  // Perimeter ids are shown to the operator only: an id plus a key is what opens a perimeter.
  // A request without a Bearer is a visitor, not a guess: only a presented token is checked (and counted).
  app.get('/mcp', (req: Request, res: Response) => {
    const bearer = bearerOf(req.headers.authorization);
    const ops =
      bearer !== undefined &&
      gate.check(bearer, { surface: 'root', route: routeOf(req), address: req.socket.remoteAddress }).kind === 'ok';
    res.json({
      name: 'git-blinder',
      version: deps.version,
      status: 'ok',
      ...(ops ? { perimeters: deps.store.list().map((p) => p.id) } : {}),
    });
  });
  app.all('/mcp', (_req: Request, res: Response) => {
    res
      .status(405)
      .setHeader('Allow', 'GET')
      .json(
        rpcError(
          -32000,
          'Method not allowed: /mcp serves no tools. Connect to /mcp/<perimeter>[/<branch>] (agents) or /mcp/root (operator).',
        ),
      );
  });
  app.all('/mcp/{*rest}', (req: Request, res: Response) => {
    const ep = parseEndpoint(req.path);
    // A disabled root surface is an unknown endpoint (404 from the route), and no token is checked for it.
    if (ep?.kind === 'root' && resolve(ep)) {
      const checked = gate.check(bearerOf(req.headers.authorization), {
        surface: 'root',
        route: routeOf(req),
        address: req.socket.remoteAddress,
      });
      if (checked.kind === 'wait') {
        res.status(429).setHeader('Retry-After', String(checked.retryAfterSeconds));
        res.json(
          rpcError(-32000, `Too many wrong ops tokens from this address: retry in ${checked.retryAfterSeconds} s.`),
        );
        return;
      }
      rootChecks.set(req, checked);
    }
    mcp.handle(req, res).catch((err: unknown) => {
      deps.invoke.log('error', 'mcp request failed', { error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) res.status(500).json(rpcError(-32603, 'Internal error'));
    });
  });

  if (deps.recordApi) {
    const recordApi = deps.recordApi;
    app.use('/api', (req: Request, res: Response, next: () => void) => {
      const started = performance.now();
      const at = new Date().toISOString();
      res.on('finish', () => {
        recordApi({
          at,
          source: req.socket.remoteAddress ?? 'unknown',
          method: req.method,
          route: req.originalUrl.split('?')[0] ?? req.originalUrl,
          status: res.statusCode,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          bytes: Number(res.getHeader('content-length') ?? 0),
        });
      });
      next();
    });
  }

  app.use(
    '/api',
    apiRouter({
      gate,
      store: deps.store,
      service: perimeterService(deps.store, deps.upstreamFor),
      upstreamFor: deps.upstreamFor,
      upstreams: deps.upstreams,
      resolve,
      invoke: deps.invoke,
      publicUrl: deps.publicUrl,
      status,
      ...(deps.agentUse ? { agentUse: deps.agentUse } : {}),
      sessionsOf: (perimeter) =>
        new Map(sessions.agents().flatMap((a) => (a.perimeter === perimeter ? [[a.agent, a.sessions]] : []))),
      auditRead: deps.auditRead,
    }),
  );

  // The operator's web page needs the proposal service the tools use (the one list of proposals).
  const proposals = deps.invoke.proposals;
  if (proposals) {
    app.use(
      '/ui',
      webRouter({
        gate,
        proposals,
        perimeters: () => deps.store.list(),
        upstreamFor: deps.upstreamFor,
        upstreams: deps.upstreams,
        ...(deps.invoke.workspace ? { workspace: deps.invoke.workspace } : {}),
        sessionCounts: () => sessions.counts(),
        sessions: new WebSessions(deps.web.sessions, deps.web.key),
        ...(deps.recentAudit ? { recentAudit: deps.recentAudit } : {}),
        ...(deps.auditHealth ? { auditHealth: deps.auditHealth } : {}),
        log: deps.invoke.log,
      }),
    );
  }

  app.use((_req: Request, res: Response) => {
    res.status(404).json({
      error: {
        code: 'not_found',
        message: 'Not found. MCP lives under /mcp/<perimeter>, the operator API under /api.',
      },
    });
  });

  // Body-parser and other middleware errors: a JSON answer with the right status, never an HTML stack trace.
  app.use((err: { status?: number; type?: string }, _req: Request, res: Response, _next: (e?: unknown) => void) => {
    const status = typeof err.status === 'number' && err.status >= 400 && err.status < 600 ? err.status : 500;
    const message =
      err.type === 'entity.parse.failed'
        ? 'Parse error: the body is not valid JSON.'
        : err.type === 'entity.too.large'
          ? 'Request body too large.'
          : 'Request failed.';
    res.status(status).json(rpcError(err.type === 'entity.parse.failed' ? -32700 : -32600, message));
  });

  return {
    app,
    sessions,
    close: async () => {
      await sessions.closeAll();
      await mcp.close();
    },
  };
}
