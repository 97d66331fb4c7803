// Agent identity (issue 23): every agent key names one agent, and the agent id of a call comes from the key alone. The
// client's self-declared name travels beside it as an unverified label, never in its place.
import * as z from 'zod/v4';

/** The agent of a keyless call on a perimeter served without keys (`--open-perimeters`): no credential, no identity. */
export const ANONYMOUS_AGENT = 'anonymous';

/** Agent ids: lowercase letters, digits and "-", unique within a perimeter. */
export const AgentName = z
  .string()
  .regex(/^[a-z0-9-]+$/, 'Agent names use lowercase letters, digits and "-" only.')
  .min(1, 'An agent name is required.')
  .max(48, 'Agent names are at most 48 characters.')
  .refine((n) => n !== ANONYMOUS_AGENT, { message: `The agent name "${ANONYMOUS_AGENT}" is reserved.` });
export type AgentName = z.infer<typeof AgentName>;

/** The agent a key without a recorded name stands for (keys issued before agents had names, and generated names). */
export function defaultAgentName(keyId: string): string {
  return `key-${keyId}`;
}

/** The agent id of a stored key: its recorded name, else `key-<keyId>`. */
export function agentOf(k: { readonly id: string; readonly agent?: string | undefined }): string {
  return k.agent ?? defaultAgentName(k.id);
}

/** True when `s` has the shape of an agent id (proposals stored before issue 23 hold a client label instead). */
export function isAgentName(s: string): boolean {
  return /^[a-z0-9-]{1,48}$/.test(s);
}

/** The agent a stored proposal was made for; records from before agent ids hold a client label and count as anonymous. */
export function proposalAgent(agentField: string): string {
  return isAgentName(agentField) ? agentField : ANONYMOUS_AGENT;
}

/**
 * Who a call comes from: `agent` is the key's agent id (absent on the operator surface), `client` what the MCP client
 * declared about itself (a label, never authorization).
 */
export interface Caller {
  readonly agent?: string;
  readonly client?: string;
}

/** A commit identity. */
export interface CommitIdentity {
  readonly name: string;
  readonly email: string;
}

/**
 * The one author form of every commit made for an agent (a direct push, an approved push, a workspace commit): the
 * agent id and its perimeter, never the client's label. Both are `[a-z0-9-]`, so the email is well formed.
 */
export function agentAuthor(agent: string, perimeter: string): CommitIdentity {
  return { name: `${agent}@${perimeter} via git-blinder`, email: `${agent}@${perimeter}.git-blinder.invalid` };
}

/** The author of commits made on the operator surface. */
export const OPERATOR_AUTHOR: CommitIdentity = { name: 'git-blinder operator', email: 'root@git-blinder.invalid' };

/** The trailer naming the agent a commit was made for (beside the proposal trailer where there is one). */
export const AGENT_TRAILER = 'Agent-Id';

/**
 * `message` with the `Agent-Id:` trailer appended, in the trailer block a proposal trailer may already open. An
 * `Agent-Id:` line the message's own trailer block already holds (written by the agent) is dropped: the one trailer
 * a reader finds is the server's.
 */
export function withAgentTrailer(message: string, agent: string): string {
  const lines = message.replace(/\s+$/, '').split('\n');
  const start = trailerStart(lines);
  const kept =
    start === undefined
      ? lines
      : [...lines.slice(0, start), ...lines.slice(start).filter((l) => !/^agent-id\s*:/i.test(l))];
  while (kept.length > 0 && (kept[kept.length - 1] ?? '').trim() === '') kept.pop();
  const joins = start !== undefined && kept.length > start;
  return `${kept.join('\n')}${joins ? '\n' : '\n\n'}${AGENT_TRAILER}: ${agent}\n`;
}

/** Where the last paragraph starts when it consists of `Key: value` trailers only (and is not the whole message). */
function trailerStart(lines: readonly string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i] ?? '';
    if (l.trim() === '') return i > 0 && i < lines.length - 1 ? i + 1 : undefined;
    if (!/^[A-Za-z0-9-]+\s*: /.test(l)) return undefined;
  }
  return undefined;
}

/** How stale a recorded key use may be: uses within this long of the last recorded one are not written again. */
export const USE_GRANULARITY_MS = 10_000;

/** True when a use at `now` should be recorded, given the last one recorded (coalescing, see `AgentUse`). */
export function useDue(last: number | undefined, now: number): boolean {
  return last === undefined || now - last >= USE_GRANULARITY_MS;
}
