// An in-process git-blinder over real repositories: createApp + a listening socket on port 0 + real MCP clients.
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { App, AppDeps } from '../../src/http/app.js';
import { compose } from '../../src/cli/compose.js';
import type { SessionLimits } from '../../src/http/sessions.js';
import type { ServerPolicy } from '../../src/core/index.js';
import { cursorSeal, type AnswerCache, type CallRecord, type Gate, type RateLimiter } from '../../src/mcp/index.js';
import { randomBytes } from 'node:crypto';
import { perimeterService } from '../../src/registry/perimeters.js';
import { openFileState } from '../../src/state/file/index.js';
import type { PerimeterStore, StoreHealth } from '../../src/state/types.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream, UpstreamFor } from '../../src/upstream/types.js';
import type { Workspace } from '../../src/workspace/types.js';
import type { ProposalEvent, ProposalService } from '../../src/registry/proposals.js';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';

export const OPS_TOKEN = 'test-ops-token-0123456789abcdef0123';

export interface TestServer {
  readonly url: string;
  readonly app: App;
  readonly store: PerimeterStore;
  readonly stateDir: string;
  readonly records: CallRecord[];
  /** How the server picks an upstream for a repository (to build a second service over the same parts). */
  readonly upstreamFor: UpstreamFor;
  /** The proposal service, when the server was started with `proposals`. */
  readonly proposals?: ProposalService;
  /** Creates a perimeter through the same service the API uses. */
  perimeter(spec: Record<string, unknown>): Promise<void>;
  /** Connects a real MCP client to a path such as `/mcp/infra`. */
  connect(
    path: string,
    mode?: 'legacy' | 'auto',
    headers?: Record<string, string>,
    clientName?: string,
  ): Promise<Agent>;
  api(method: string, path: string, body?: unknown, token?: string | null): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export interface Agent {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  call(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; text: string; structured: any }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  upstream?: Upstream;
  upstreamFor?: UpstreamFor;
  rootEnabled?: boolean;
  sessionIdleMs?: number;
  sessionLimits?: Partial<SessionLimits>;
  /** Also hand call records and /api requests to these (the audit ledger, in the ledger tests). */
  record?: (r: CallRecord) => void;
  recordApi?: AppDeps['recordApi'];
  /** Checks of the ops token outside /api (issue 20). */
  recordAuth?: AppDeps['recordAuth'];
  /** The ops-token back-off (default: the server's own); a suite that guesses by design may widen it. */
  opsBackoff?: AppDeps['opsBackoff'];
  /** Default true here; the key tests turn it off. */
  openPerimeters?: boolean;
  limiter?: RateLimiter;
  gate?: Gate;
  /** Answers reused per binding and commit (default: on, as `serve` runs; null turns it off). */
  answers?: AnswerCache | null;
  /** The shared store's health as invoke sees it (the fail-closed tests make it silent). */
  health?: () => StoreHealth;
  policy?: ServerPolicy;
  /** Change-cursor sealer; default a fresh random key per server. */
  cursors?: ReturnType<typeof cursorSeal>;
  /** Working trees for the workspace tools (issue 13); absent = those tools are never listed. */
  workspace?: Workspace;
  /** `GET /api/audit`'s reader (issue 21); absent = the route answers that the ledger is off. */
  auditRead?: AppDeps['auditRead'];
  /** Keeps proposals (file store in the state dir) so approval-mode perimeters work; the service is `srv.proposals`. */
  proposals?: { ttlMs?: number; now?: () => number; audit?: (e: ProposalEvent) => void };
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const stateDir = await mkdtemp(join(tmpdir(), 'gb-state-'));
  const opened = await openFileState(stateDir, { id: 'test', version: 'test' });
  if (!opened.ok) throw new Error(opened.message);
  const state = opened.value;
  const store = state.perimeters;
  const local = opts.upstream ?? createLocalGitUpstream();
  const upstreamFor: UpstreamFor = opts.upstreamFor ?? (() => local);
  const records: CallRecord[] = [];
  let url = '';
  const policy = opts.policy ?? {};
  // What serve composes (src/cli/compose.ts), with this harness's upstreams and sinks. Budgets are the test's choice:
  // counted by `limiter` when given, else unlimited (serve counts them in the store).
  const { app, proposals } = await compose({
    state,
    upstreams: { all: [local], upstreamFor, ...(opts.workspace ? { workspace: opts.workspace } : {}) },
    log: () => undefined,
    policy,
    cursors: opts.cursors ?? cursorSeal(randomBytes(32)),
    // Working-tree writers come with proposals: previews for propose_*, writes only on approval.
    writers: opts.proposals ? createWorkTreeWriters({ timeoutMs: 30_000 }) : undefined,
    proposals: opts.proposals ? { ttlMs: opts.proposals.ttlMs, now: opts.proposals.now } : undefined,
    limiter: opts.limiter,
    gate: opts.gate,
    answers: opts.answers,
    health: opts.health,
    record: (r: CallRecord) => {
      records.push(r);
      opts.record?.(r);
    },
    proposalEvent: opts.proposals?.audit,
    recordApi: opts.recordApi,
    recordAuth: opts.recordAuth,
    app: {
      opsToken: OPS_TOKEN,
      version: 'test',
      publicUrl: () => url,
      host: '127.0.0.1',
      rootEnabled: opts.rootEnabled ?? true,
      openPerimeters: opts.openPerimeters ?? true,
      ...(opts.sessionIdleMs ? { sessionIdleMs: opts.sessionIdleMs } : {}),
      ...(opts.sessionLimits ? { sessionLimits: opts.sessionLimits } : {}),
      ...(opts.opsBackoff ? { opsBackoff: opts.opsBackoff } : {}),
      ...(opts.auditRead ? { auditRead: opts.auditRead } : {}),
      stateDir,
    },
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const addr = server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const agents: Agent[] = [];
  const service = perimeterService(store, upstreamFor);

  return {
    url,
    app,
    store,
    stateDir,
    records,
    upstreamFor,
    ...(proposals ? { proposals } : {}),
    async perimeter(spec) {
      const out = await service.create(spec);
      if (!out.ok) throw new Error(out.message);
    },
    async connect(path, mode = 'legacy', headers = {}, clientName = 'test-agent') {
      const client = new Client({ name: clientName, version: '1.0.0' }, { versionNegotiation: { mode } });
      const transport = new StreamableHTTPClientTransport(new URL(url + path), { requestInit: { headers } });
      await client.connect(transport);
      const agent: Agent = {
        client,
        transport,
        async call(name, args) {
          const r = (await client.callTool({ name, arguments: args })) as {
            isError?: boolean;
            content: { text: string }[];
            structuredContent?: unknown;
          };
          return {
            ...(r.isError ? { isError: true } : {}),
            text: r.content.map((c) => c.text).join('\n'),
            structured: r.structuredContent,
          };
        },
        async close() {
          if (transport.sessionId) await transport.terminateSession().catch(() => undefined);
          await client.close();
        },
      };
      agents.push(agent);
      return agent;
    },
    async api(method, path, body, token = OPS_TOKEN) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, json };
    },
    async close() {
      await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      // The file state writes its record of key uses a moment after a use: written now, it cannot land in the
      // directory while it is being removed (an ENOTEMPTY under load).
      await state.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** The header an agent presents its key with. */
export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** Adds a read-only perimeter (`spec` as `perimeter()` takes it) and issues one key for `agent`; resolves to the key. */
export async function perimeterWithKey(srv: TestServer, spec: Record<string, unknown>, agent: string): Promise<string> {
  await srv.perimeter({ write: [], ...spec });
  const issued = await srv.api('POST', `/api/perimeters/${String(spec.id)}/keys`, { agent });
  if (issued.status !== 201) throw new Error(`key for ${String(spec.id)} answered ${issued.status}`);
  return issued.json.key as string;
}
