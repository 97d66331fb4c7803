// An agent behind `git-blinder stdio`: a real stdio MCP client spawning the real bridge, which forwards to the server.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { asAgent, type Agent } from './agents.js';
import { BIN, childEnv } from './processes.js';

export interface StdioAgent extends Agent {
  /** Resolves with the bridge's exit code once it has exited. */
  readonly exited: Promise<number | null>;
}

/** Spawns the bridge for a perimeter (and branch) with the agent key in GIT_BLINDER_AGENT_KEY. */
export async function connectStdioAgent(
  name: string,
  url: string,
  perimeter: string,
  branch: string | undefined,
  key: string,
): Promise<StdioAgent> {
  const args = [BIN, 'stdio', '--perimeter', perimeter, '--url', url, ...(branch ? ['--branch', branch] : [])];
  const env = childEnv({ GIT_BLINDER_AGENT_KEY: key });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string')),
    stderr: 'pipe',
  });
  const client = new Client({ name: `stdio-agent-${name}`, version: '1.0.0' });
  let exit!: (code: number | null) => void;
  const exited = new Promise<number | null>((r) => (exit = r));
  transport.onclose = () => exit(0);
  await client.connect(transport);
  const path = `/mcp/${perimeter}${branch ? `/${branch}` : ''}`;
  const agent = asAgent(name, path, 'legacy', client, undefined, () => client.close().catch(() => undefined));
  return { ...agent, exited };
}
