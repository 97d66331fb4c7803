// What every commit made for an agent carries, whichever path makes it (a direct push, an approved push, a workspace
// commit, an edit): the author `agentAuthor(agent, perimeter)` (in the ToolContext) and the `Agent-Id:` trailer here.
import { withAgentTrailer } from '../core/index.js';
import type { ToolContext } from './tool.js';

/** The commit message a tool writes for this call: the agent's message plus `Agent-Id: <agent>` on agent surfaces. */
export function commitMessage(ctx: Pick<ToolContext, 'agent'>, message: string): string {
  return ctx.agent === undefined ? message : withAgentTrailer(message, ctx.agent);
}
