import type * as z from 'zod/v4';
import { ApiErrorBody, schemaOf, type ApiBody, type ApiRoute } from '../http/api/schema.js';
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
  /**
   * Calls `route` (`METHOD /pattern`, a key of the /api schema table) at `path`, which must fit its pattern, and
   * answers the body parsed with the route's schema.
   */
  call<R extends ApiRoute>(route: R, path: string, body?: unknown): Promise<ApiBody<R>>;
}

/** Whether `path` (query string aside) fits the route's pattern: `:x` is one segment, `*x` one or more. */
function fits(route: ApiRoute, path: string): boolean {
  const pattern = route.slice(route.indexOf(' ') + 1);
  const re = pattern
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/:\w+/g, '[^/]+')
    .replace(/\*\w+/g, '.+');
  return new RegExp(`^${re}$`).test(path.split('?')[0] ?? '');
}

/** What failed in a body that does not fit its schema, in a few words. */
function issuesOf(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
  return shown.join('; ') + (error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : '');
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
    async call(route, path, body) {
      // A call site naming one route and sending another is a bug here, not a server's answer.
      if (!fits(route, path)) throw new Error(`${path} is not a path of ${route}`);
      const method = route.slice(0, route.indexOf(' '));
      const where = `${method} /api${path.split('?')[0] ?? ''}`;
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
        throw new CliError(
          `Cannot reach git-blinder at ${base}. Is "git-blinder serve" running there? (use --url to point elsewhere)`,
        );
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
        throw new CliError(
          'The server refused the ops token (401). Set GIT_BLINDER_OPS_TOKEN, pass --token-file, or run on the server machine so the stored token is found.',
        );
      }
      if (!res.ok) {
        const failure = ApiErrorBody.safeParse(json);
        throw new CliError(failure.success ? failure.data.error.message : `${where}: HTTP ${res.status}`);
      }
      // The answer is read through the route's schema, the one the server built it with: never taken on trust.
      const parsed = schemaOf(route).safeParse(json);
      if (!parsed.success) {
        throw new CliError(
          `Unexpected answer from ${base} to ${where} (${route}): ${issuesOf(parsed.error)}. Is the server the same git-blinder version as this command?`,
        );
      }
      return parsed.data;
    },
  };
}
