import type { Request, Response as ServerResponse } from 'express';
import { toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';

/** Open `subscriptions/listen` streams one owner (an agent key) may hold, like its cap of 2025 sessions. */
export const MAX_LISTENS_PER_OWNER = 32;

/** Handlers kept for owners with nothing in flight (the most recently used), so a steady client reuses its own. */
export const MAX_IDLE_HANDLERS = 256;

/** What one admitted request is served with: decided by the route before the SDK sees the request. */
export interface ModernHandler<A> {
  /**
   * Serves a 2026-07-28 request with the admission `a` and resolves to 'served'; resolves to 'legacy' without
   * answering when the request belongs to the 2025 era (the caller serves it with a session).
   */
  serve(req: Request, res: ServerResponse, a: A): Promise<'served' | 'legacy'>;
  close(): Promise<void>;
  /** Owners holding a handler now (diagnostics and tests). */
  owners(): string[];
}

/**
 * One SDK handler per owner for every 2026-07-28 request of an app (its event bus, listen router and in-flight set
 * are built once, not per request). The factory still builds a fresh server per request, from the admission the route resolved
 * when it admitted that request: the admission is handed over keyed by the very web `Request` object the SDK gives back
 * to the factory, never re-derived from it (the SDK rebuilds the request URL from the Host header). A request whose
 * admission cannot be found is refused by the factory (a 500), never served with another.
 *
 * The request is converted to a web `Request` once and that one object is both classified (era) and served.
 */
export function modernHandler<A>(
  serverOf: (a: A) => Server,
  ownerOf: (a: A) => string,
  opts: { readonly maxIdle?: number } = {},
): ModernHandler<A> {
  const maxIdle = opts.maxIdle ?? MAX_IDLE_HANDLERS;
  const admitted = new WeakMap<globalThis.Request, A>();
  const factory = ({ requestInfo }: { requestInfo?: globalThis.Request | undefined }): Server => {
    const a = requestInfo === undefined ? undefined : admitted.get(requestInfo);
    if (a === undefined) throw new Error('modern MCP request reached the server factory without its admission');
    return serverOf(a);
  };
  // One handler per owner (an agent key, an open perimeter, the operator): a handler's listen router caps the open
  // `subscriptions/listen` streams and its event bus reaches every listener, so sharing one across owners would let
  // one agent's streams refuse another's (a refusal that depends on other perimeters) and one day carry one
  // perimeter's notification to all.
  //
  // Keys come and go (an orchestrator may issue one per agent run), so handlers must not live as long as the process:
  // an owner's handler is in use while any of its requests runs (a listen stream is a request that stays open), and
  // only the `maxIdle` most recently used idle ones are kept. An idle handler holds nothing: its listeners and in-flight
  // set are empty, so dropping it changes no answer, cap or refusal; a later request of that owner gets a fresh one.
  type Held = { readonly handler: ReturnType<typeof createMcpHandler>; active: number };
  // Map order is recency of use: an owner is moved to the end each time it takes its handler.
  const handlers = new Map<string, Held>();
  let busyOwners = 0;
  const take = (owner: string): Held => {
    let held = handlers.get(owner);
    if (held === undefined) {
      held = {
        handler: createMcpHandler(factory, { legacy: 'reject', maxSubscriptions: MAX_LISTENS_PER_OWNER }),
        active: 0,
      };
    } else {
      handlers.delete(owner);
    }
    handlers.set(owner, held);
    if (held.active++ === 0) busyOwners++;
    return held;
  };
  const give = (held: Held): void => {
    if (--held.active > 0) return;
    busyOwners--;
    let over = handlers.size - busyOwners - maxIdle;
    for (const [owner, h] of handlers) {
      if (over <= 0) break;
      if (h.active > 0) continue;
      handlers.delete(owner);
      over--;
      void h.handler.close().catch(() => undefined);
    }
  };
  return {
    async serve(req, res, a) {
      // Aborted when the client goes away before the answer is written (a listen stream's usual end).
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableEnded) abort.abort();
      });
      if (res.destroyed) abort.abort();
      const parsedBody: unknown = req.body;
      const request =
        parsedBody === undefined
          ? await toWebRequest(req, undefined, { signal: abort.signal })
          : parsedRequest(req, abort.signal);
      if (await isLegacyRequest(request, parsedBody)) return 'legacy';
      admitted.set(request, a);
      const held = take(ownerOf(a));
      try {
        const response = await held.handler.fetch(request, parsedBody === undefined ? {} : { parsedBody });
        await writeResponse(response, res, abort.signal);
      } finally {
        give(held);
      }
      return 'served';
    },
    close: async () => {
      await Promise.all([...handlers.values()].map((h) => h.handler.close()));
      handlers.clear();
      busyOwners = 0;
    },
    owners: () => [...handlers.keys()],
  };
}

/**
 * The web `Request` of a request whose body express has already parsed: method, headers and signal, no body. The SDK
 * is always handed the parsed body with it and reads nothing from the request's own (re-serialising the body into a
 * stream that nothing reads cost a few per cent of a call: bench/findings.md). Its URL is the SDK's own rebuild from the Host header,
 * kept for fidelity: nothing routes on it.
 */
function parsedRequest(req: Request, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
    method: req.method,
    headers,
    signal,
  });
}

/**
 * Writes a web `Response` to a Node response. A JSON answer (every call answered without notifications) goes out in
 * one write with its length, headers and body together; an event stream is written as it comes, waiting for `drain`
 * when the socket is full, and stops when the client has gone.
 */
async function writeResponse(response: globalThis.Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    delete headers['transfer-encoding'];
    headers['content-length'] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  let drained: (() => void) | undefined;
  const release = () => {
    drained?.();
    drained = undefined;
  };
  res.on('drain', release);
  const closed = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of response.body) {
      if (signal.aborted) break;
      if (!res.write(chunk)) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), closed]);
    }
  } catch {
    // The body stream failed or was cancelled: the client gets what was written, then the end.
  } finally {
    res.off('drain', release);
  }
  res.end();
}
