// Our logger, shaped as Octokit's `log`. Octokit hands its logger whole request options (headers included) and
// URLs; we keep only a scrubbed message, so neither the token nor an Authorization header can reach a log line.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFn = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** Octokit's logger interface. */
export interface OctokitLog {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

/** Returns a function that removes the token, credential headers and URL userinfo/secrets from a string. */
export function makeRedactor(token: string): (s: string) => string {
  return (s: string): string => {
    let out = s;
    if (token.length > 0) out = out.split(token).join('[REDACTED]');
    return out
      .replace(/\b(authorization)(["']?\s*[:=]\s*["']?)[^"',}\n]+/gi, '$1$2[REDACTED]')
      .replace(/\b(bearer|token)\s+[\w.-]{20,}/gi, '$1 [REDACTED]')
      .replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, '//[REDACTED]@')
      .replace(/\b(access_token|client_secret)=[^&\s]+/gi, '$1=[REDACTED]');
  };
}

/** Our log function wrapped so every message is scrubbed. */
export function safeLog(log: LogFn | undefined, redact: (s: string) => string): LogFn {
  if (!log) return () => undefined;
  return (level, msg, fields) => {
    const clean: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields ?? {})) {
      clean[k] =
        typeof v === 'string'
          ? redact(v)
          : typeof v === 'number' || typeof v === 'boolean'
            ? v
            : redact(JSON.stringify(v) ?? '');
    }
    log(level, redact(msg), clean);
  };
}

// plugin-request-log's lines look like "GET /repos/o/r/git/ref/heads%2Fmain - 304 with id X in 4ms".
const REQUEST_LINE = /^[A-Z]+ \S+ - (\d{3}|undefined) with id /;

/**
 * Octokit's `log` backed by ours. Extra arguments (request options, errors) are dropped except an error's message:
 * they can carry the Authorization header. Expected 304/4xx answers are debug noise, 5xx are warnings.
 */
export function octokitLog(log: LogFn): OctokitLog {
  const errorText = (rest: unknown[]): Record<string, unknown> | undefined => {
    const e = rest.find((r): r is Error => r instanceof Error);
    return e ? { error: e.message } : undefined;
  };
  return {
    debug: (message) => {
      // "request" + the full options object (headers!) on every call: skip, the info line follows.
      if (message === 'request') return;
      log('debug', String(message));
    },
    info: (message) => log('debug', String(message)),
    warn: (message, ...rest) => log('warn', String(message), errorText(rest)),
    error: (message, ...rest) => {
      const m = REQUEST_LINE.exec(String(message));
      if (m) {
        const status = Number(m[1]);
        log(Number.isFinite(status) && status >= 500 ? 'warn' : 'debug', String(message));
        return;
      }
      log('error', String(message), errorText(rest));
    },
  };
}
