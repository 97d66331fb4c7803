// The official SDK's server wired the way its documentation shows, shared by the two SDK baselines (the minimal
// server and the protocol floor), so they differ only in the tools they answer: express from createMcpExpressApp,
// 2025-era sessions hand-wired (McpServer + NodeStreamableHTTPServerTransport, one per session), and, when `modern`
// is set, 2026-07-28 requests answered by a fresh McpServer per request through createMcpHandler.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Request, Response } from 'express';
import { createMcpExpressApp } from '@modelcontextprotocol/express';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type McpServer } from '@modelcontextprotocol/server';

/** A running SDK server; its MCP URL is `${url}/mcp`. */
export interface SdkServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts an SDK server on an ephemeral loopback port. `serverFor` builds the McpServer (with its tools) that answers
 * one 2025-era session, or one 2026-07-28 request when `modern`; without `modern` only 2025-era sessions are served.
 */
export async function startSdkServer(serverFor: () => McpServer, opts: { modern?: boolean } = {}): Promise<SdkServer> {
  const app = createMcpExpressApp({ host: '127.0.0.1', jsonLimit: '8mb' });
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  app.all('/mcp', (req: Request, res: Response) => {
    void (async () => {
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string') {
        const t = sessions.get(sid);
        if (!t) {
          res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
          return;
        }
        await t.handleRequest(req, res, req.body);
        return;
      }
      if (opts.modern && !(await isLegacyRequest(await toWebRequest(req, req.body), req.body))) {
        const modern = createMcpHandler(serverFor, { legacy: 'reject' });
        res.on('close', () => void modern.close().catch(() => undefined));
        await toNodeHandler(modern)(req, res, req.body);
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'initialize first' }, id: null });
        return;
      }
      const server = serverFor();
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    })();
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return {
    url,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
