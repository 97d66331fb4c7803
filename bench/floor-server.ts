// The protocol floor (issue 24): the official SDK's own server answering git-blinder's tools with texts computed
// beforehand (the same bytes git-blinder answered), so what it costs per call is the SDK, express and HTTP alone.
// Both eras on one URL, wired the way the SDK documents (bench/sdk-server.ts): 2025 clients get a hand-wired session,
// 2026-07-28 requests a fresh McpServer per request through createMcpHandler.
// `node --import tsx bench/floor-server.ts <answers.json>` prints its MCP URL and serves until it is killed.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { toolNamed } from '../src/registry/index.js';
import { startSdkServer, type SdkServer } from './sdk-server.js';
import { startListening, type ServerProcess } from './server-process.js';

/** One precomputed answer: the call and the result git-blinder gave it. */
export interface FloorAnswer {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly result: { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown> };
}

type Result = FloorAnswer['result'];

/** The tool's validated arguments as the key: the handler sees them after the SDK parsed them (defaults filled in). */
function keyOf(tool: string, parsed: unknown): string {
  return `${tool}\u0000${JSON.stringify(parsed)}`;
}

function answerTable(answers: readonly FloorAnswer[]): Map<string, Result> {
  const table = new Map<string, Result>();
  for (const a of answers) {
    const tool = toolNamed(a.tool);
    if (!tool) throw new Error(`no tool ${a.tool}`);
    table.set(keyOf(a.tool, tool.agentInput.parse(a.args)), a.result);
  }
  return table;
}

function serverOf(table: ReadonlyMap<string, Result>, tools: readonly string[]): McpServer {
  const server = new McpServer({ name: 'floor', version: '0.0.0' });
  for (const name of tools) {
    const tool = toolNamed(name)!;
    server.registerTool(name, { description: tool.description, inputSchema: tool.agentInput }, (args: unknown) => {
      const r = table.get(keyOf(name, args));
      return r ?? { content: [{ type: 'text' as const, text: 'not precomputed' }], isError: true };
    });
  }
  return server;
}

/** Starts the floor server on an ephemeral port, answering both eras; its MCP URL is `${url}/mcp`. */
export async function startFloorServer(answers: readonly FloorAnswer[]): Promise<SdkServer> {
  const table = answerTable(answers);
  const tools = [...new Set(answers.map((a) => a.tool))];
  return startSdkServer(() => serverOf(table, tools), { modern: true });
}

/** git-blinder's answer to `call` at the MCP URL `url`, as a modern-era client gets it: the texts the floor repeats. */
export async function answerOf(
  url: string,
  call: { readonly tool: string; readonly args: Record<string, unknown> },
): Promise<FloorAnswer['result']> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': call.tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: call.tool,
        arguments: call.args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
  const msg = JSON.parse(json) as { result?: FloorAnswer['result'] & { isError?: boolean } };
  if (!msg.result || msg.result.isError) throw new Error(`${call.tool} answered: ${text.slice(0, 300)}`);
  const out: FloorAnswer['result'] = { content: msg.result.content };
  if (msg.result.structuredContent) out.structuredContent = msg.result.structuredContent;
  return out;
}

const TSX = new URL('../node_modules/tsx/dist/esm/index.mjs', import.meta.url).pathname;

/** The floor server as a process of its own (through tsx), answering `answers` (written to `<work>/answers.json`). */
export async function startFloorProcess(work: string, answers: readonly FloorAnswer[]): Promise<ServerProcess> {
  const file = join(work, 'answers.json');
  await writeFile(file, JSON.stringify(answers));
  return startListening(
    process.execPath,
    ['--import', TSX, new URL('./floor-server.ts', import.meta.url).pathname, file],
    {},
    /floor listening on (http:\/\/\S+)/,
  );
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: floor-server.ts <answers.json>');
  const srv = await startFloorServer(JSON.parse(readFileSync(file, 'utf8')) as FloorAnswer[]);
  process.stdout.write(`floor listening on ${srv.url}/mcp\n`);
  process.on('SIGTERM', () => void srv.close().then(() => process.exit(0)));
}
