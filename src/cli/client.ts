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

/** Checks `--url`: an http(s) URL with a host (`localhost:7400` parses as the scheme "localhost:", so say so). */
export function checkServerUrl(raw: string): string {
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') {
    throw new CliError(`invalid URL: ${raw} (expected http://HOST:PORT, e.g. http://127.0.0.1:7400)`, 2);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * Talks to a running server's /api with the ops Bearer. Errors become CliError with a message a person can act on;
 * `noToken` is the 401 explanation when the caller found no token at all.
 */
export function apiClient(baseUrl: string, token: string | undefined, noToken?: string): ApiClient {
  const base = checkServerUrl(baseUrl);
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
        if (noToken !== undefined) throw new CliError(noToken);
        throw new CliError('The server refused the ops token (401). Set GIT_BLINDER_OPS_TOKEN, pass --token-file, or run on the server machine so the stored token is found.');
      }
      if (!res.ok) {
        const message = (json as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`;
        throw new CliError(message);
      }
      return json as never;
    },
  };
}
