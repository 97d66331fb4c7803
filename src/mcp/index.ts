// The MCP room: one invoke pipeline, one session-server factory.
export { invoke, type CallRecord, type CallResult, type InvokeDeps } from './invoke.js';
export { createSessionServer, SERVER_NAME, type SessionServerOptions } from './server.js';
export { agentMessage } from './messages.js';
export { DEFAULT_LIMITS, Gate, RateLimiter } from './limits.js';
export { cursorSeal } from './cursor.js';
