// Baseline (b) of the overhead section: the same SDK, transport and express serving as git-blinder, with the same
// tool names and input schemas, calling the same upstream adapter directly: no binding, no decide, no filter, no
// output schema, no audit record.
import { McpServer } from '@modelcontextprotocol/server';
import { toolNamed } from '../src/registry/index.js';
import type { UpResult, Upstream } from '../src/upstream/types.js';
import { startSdkServer, type SdkServer } from './sdk-server.js';

type Handler = (a: any) => Promise<UpResult<unknown>>;

function handlers(up: Upstream, repo: string, ref: string): Record<string, Handler> {
  return {
    get_tree: (a) => up.getTree(repo, ref, a.path ?? ''),
    // The same answer shape as git-blinder's get_file (UTF-8 text), not the raw bytes: JSON of a Uint8Array is an
    // object of numbered keys several times the file's size, which would make this baseline slower than it is.
    get_file: async (a) => {
      const r = await up.readFiles(repo, ref, [a.path]);
      if (!r.ok) return r;
      const f = r.value[0];
      if (!f?.ok)
        return { ok: false, error: f?.error ?? { code: 'not_found', message: 'not found' } } as UpResult<unknown>;
      return {
        ok: true,
        value: {
          path: f.path,
          sha: f.sha,
          size: f.size,
          encoding: 'utf-8',
          content: Buffer.from(f.bytes).toString('utf8'),
        },
      };
    },
    list_commits: (a) =>
      up.listCommits(repo, ref, {
        paths: [a.path ?? ''],
        skip: ((a.page ?? 1) - 1) * (a.per_page ?? 30),
        limit: a.per_page ?? 30,
      }),
    get_commit: (a) => up.getCommit(repo, a.sha, ref),
  };
}

function sessionServer(up: Upstream, repo: string, ref: string): McpServer {
  const server = new McpServer({ name: 'minimal', version: '0.0.0' });
  for (const [name, run] of Object.entries(handlers(up, repo, ref))) {
    const tool = toolNamed(name);
    if (!tool) throw new Error(`no tool ${name}`);
    server.registerTool(
      name,
      { description: tool.description, inputSchema: tool.agentInput },
      async (args: unknown) => {
        const r = await run(args);
        if (!r.ok) return { content: [{ type: 'text' as const, text: r.error.message }], isError: true };
        const value = r.value as Record<string, unknown>;
        return { content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value };
      },
    );
  }
  return server;
}

/** Starts the minimal server on an ephemeral port (2025-era sessions); its MCP URL is `${url}/mcp`. */
export function startMinimalServer(up: Upstream, repo: string, ref: string): Promise<SdkServer> {
  return startSdkServer(() => sessionServer(up, repo, ref));
}
