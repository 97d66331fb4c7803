// The MCP room: one invoke pipeline, one session-server factory.
export { invoke, type CallRecord, type InvokeDeps } from './invoke.js';
export { auditOf, type CallOutcome, type DenyClass, type ErrorClass } from './outcome.js';
export { toCallResult, type CallResult } from './result.js';
export { createSessionServer, SERVER_NAME, type SessionServerOptions } from './server.js';
export { createToolsets, type ServedTool, type Toolset } from './toolset.js';
export { agentMessage } from './messages.js';
export { DEFAULT_LIMITS, Gate, RateLimiter } from './limits.js';
export { AnswerCache } from './answer-cache.js';
export { cursorSeal } from './cursor.js';
export { worktreeLookup, withWorktree, WORKTREE_TTL_MS, type WorktreeLookup } from './worktrees.js';
