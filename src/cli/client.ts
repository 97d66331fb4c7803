import { clean } from './table.js';

/** A failure talking to the operator API, with the exit code the CLI should use. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    // Messages quote names an agent chose (branches, paths): cleaned here, so every error reaches the terminal safe.
    super(clean(message, { lines: true }));
    this.exitCode = exitCode;
  }
}

export interface ApiClient {
  call<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

/** Talks to a running server's /api with the ops Bearer. Errors become CliError with a message a person can act on. */
export function apiClient(baseUrl: string, token: string | undefined): ApiClient {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async call(method, path, body) {
      let res: Response;
      try {
        res = await fetch(`${base}/api${path}`, {
          method,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch {
        throw new CliError(`Cannot reach git-blinder at ${base}. Is "git-blinder serve" running there? (use --url to point elsewhere)`);
      }
      const text = await res.text();
      let json: unknown;
      try {
        json = text === '' ? {} : JSON.parse(text);
      } catch {
        throw new CliError(`Unexpected answer from ${base} (HTTP ${res.status}); is that a git-blinder server?`);
      }
      if (res.status === 401) {
        throw new CliError('The server refused the ops token (401). Pass --token, set GIT_BLINDER_OPS_TOKEN, or run on the server machine so the stored token is found.');
      }
      if (!res.ok) {
        const message = (json as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`;
        throw new CliError(message);
      }
      return json as never;
    },
  };
}
