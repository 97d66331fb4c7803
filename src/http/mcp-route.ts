import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import type { Binding } from '../core/index.js';
import { createSessionServer, createToolsets, withWorktree, worktreeLookup, type InvokeDeps } from '../mcp/index.js';
import { endpointKey, parseEndpoint, type Endpoint } from './endpoint.js';
import { modernHandler } from './modern-handler.js';
import type { SessionTable } from './sessions.js';
import { NOT_FOUND_BODY, rpcError } from './status.js';

export interface McpRouteDeps {
  readonly resolve: (ep: Endpoint) => Binding | undefined;
  /**
   * Who the request's credentials make it, if they open this endpoint: 'root' for the ops token on root, an agent
   * key's identity on a perimeter; undefined when they do not open it. Session caps are counted per owner.
   */
  readonly admits: (ep: Endpoint, req: Request) => Admitted | undefined;
  readonly invoke: InvokeDeps;
  /** The invoke dependencies of the operator surface (its upstream lookup opens registered repositories only). */
  readonly rootInvoke: InvokeDeps;
  readonly sessions: SessionTable;
  readonly version: string;
  /** Extra status fields for GET on an endpoint. */
  readonly describe: (ep: Endpoint, binding: Binding) => Record<string, unknown>;
}

/**
 * A request's credential, once checked: `owner` is what session caps count (one key, the ops token, an open
 * perimeter), `agent` the agent id the key names (absent on the operator surface).
 */
export interface Admitted {
  readonly owner: string;
  readonly agent?: string;
}

/**
 * What a refused `initialize` reads. A full perimeter and a full server read alike: which one is full would tell an
 * agent about sessions outside its perimeter.
 */
const FULL_TEXT: Record<'key' | 'perimeter' | 'server', string> = {
  key: 'Too many sessions for this key: each is being initialized or answering a call; retry after the time given.',
  perimeter: 'Too many open sessions; close idle ones or retry later.',
  server: 'Too many open sessions; close idle ones or retry later.',
};

/** What a 2026-07-28 request is served with, fixed when the route admitted it. */
interface ModernAdmission {
  readonly ep: Endpoint;
  readonly binding: Binding;
  readonly worktree: boolean;
  readonly who: Admitted;
}

const wantsEventStream = (req: Request) => (req.headers.accept ?? '').includes('text/event-stream');

/**
 * Serves `/mcp/<id>[/<branch>]` and `/mcp/root` in both protocol eras:
 * 2025 clients get a real session (one server + transport each, bound to this URL, reaped when idle);
 * 2026-07-28 clients are served statelessly by one shared SDK handler, with a fresh server per request.
 */
export function mcpRoute(deps: McpRouteDeps): {
  handle: (req: Request, res: Response) => Promise<void>;
  close: () => Promise<void>;
} {
  // Workspace tools are listed where the bound branch has a working tree; decided once per session (or request).
  const lookup = deps.invoke.workspace ? worktreeLookup(deps.invoke.workspace) : undefined;
  const checkedOut = async (b: Binding | undefined): Promise<boolean> =>
    b?.surface === 'agent' && lookup !== undefined ? lookup(b.repo, b.branch) : false;
  // One toolset per surface and grant set for the whole app: sessions and stateless requests share it.
  const toolsetOf = createToolsets();
  const serverFor = (
    ep: Endpoint,
    worktree: boolean,
    who: Admitted,
    resolve: () => Binding | undefined = () => deps.resolve(ep),
  ) =>
    createSessionServer({
      resolve: () => withWorktree(resolve(), worktree),
      deps: ep.kind === 'root' ? deps.rootInvoke : deps.invoke,
      version: deps.version,
      toolsetOf,
      ...(who.agent === undefined ? {} : { agent: who.agent }),
    });
  // One SDK handler for every 2026-07-28 request; each request's server is built from the endpoint, binding and
  // identity admitted below (the SDK's view of the request URL is rebuilt from the Host header, so nothing may be
  // routed from it). One request, one binding: the one resolved when it was admitted (a session resolves again at
  // each call).
  const modern = modernHandler<ModernAdmission>(
    (a) => serverFor(a.ep, a.worktree, a.who, () => a.binding),
    (a) => a.who.owner,
  );

  const handle = async (req: Request, res: Response): Promise<void> => {
    // The one place the endpoint is read: from the request path, which the guard has checked is origin-form.
    const ep = parseEndpoint(req.path);
    const binding = ep ? deps.resolve(ep) : undefined;
    // A missing or wrong credential reads exactly like an unknown endpoint, so ids cannot be probed.
    const who = ep && binding ? deps.admits(ep, req) : undefined;
    if (!ep || !binding || who === undefined) {
      res.status(404).json(NOT_FOUND_BODY);
      return;
    }
    if (req.method === 'GET' && !wantsEventStream(req)) {
      res.json({ status: 'ok', ...deps.describe(ep, withWorktree(binding, await checkedOut(binding)) ?? binding) });
      return;
    }
    const key = endpointKey(ep);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      // A session acts for the agent whose key opened it: under another key (even a valid one) it does not exist.
      const session = deps.sessions.lookup(sid, key, who.owner);
      if (!session) {
        res.status(404).json(rpcError(-32001, 'Session not found'));
        return;
      }
      if (req.method === 'GET') {
        session.openStreams += 1;
        res.on('close', () => {
          session.openStreams -= 1;
          session.lastSeen = Date.now();
        });
      } else {
        // Held until the answer is handed off (finish) or the client went away (close), whichever comes first.
        const answered = deps.sessions.answer(session);
        res.once('finish', answered).once('close', answered);
      }
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    const worktree = await checkedOut(binding);
    if ((await modern.serve(req, res, { ep, binding, worktree, who })) === 'served') return;
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      res.status(400).json(rpcError(-32000, 'Bad Request: no valid session id; send initialize first.'));
      return;
    }
    const perimeter = ep.kind === 'root' ? 'root' : ep.id;
    // Claim and add with no await between them: concurrent initializes of one key cannot overshoot its cap.
    const claim = deps.sessions.claim(who.owner, perimeter);
    switch (claim.kind) {
      case 'room':
        break;
      case 'full':
        // A client told when to come back retries instead of failing: a burst at the cap is served as room frees up.
        res.status(503).set('Retry-After', String(claim.retryAfterS)).json(rpcError(-32000, FULL_TEXT[claim.room]));
        return;
      default: {
        const never: never = claim;
        throw new Error(`unhandled claim ${String(never)}`);
      }
    }
    const id = randomUUID();
    const server = serverFor(ep, worktree, who);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: (closed) => deps.sessions.forget(closed),
    });
    transport.onclose = () => deps.sessions.forget(id);
    deps.sessions.add({
      id,
      key,
      perimeter,
      owner: who.owner,
      ...(who.agent === undefined ? {} : { agent: who.agent }),
      ...(binding.surface === 'agent' ? { branch: binding.branch } : {}),
      transport,
      server,
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } finally {
      // An initialize the transport refused never became a session: give its slot back.
      if (transport.sessionId === undefined) await deps.sessions.drop(id);
    }
  };

  return {
    handle,
    close: () => modern.close(),
  };
}
