// What every route receives about the request it answers.
import { GitHubError } from './reply.js';
import type { EmulatorState } from './state.js';

/** One request, already authenticated. */
export interface Ctx {
  s: EmulatorState;
  method: string;
  /** Raw path as received, without the query string. */
  rawPath: string;
  query: URLSearchParams;
  token: string;
  accept: string;
  rawBody: Buffer;
}

/** The JSON object body of a write, or GitHub's 400s for unparsable or non-object bodies. */
export function jsonBody(ctx: Ctx, docs: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = ctx.rawBody.length ? JSON.parse(ctx.rawBody.toString('utf8')) : {};
  } catch {
    throw new GitHubError(400, 'Problems parsing JSON', docs);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GitHubError(400, 'Body should be a JSON object', docs);
  }
  return parsed as Record<string, unknown>;
}

/** GitHub's 422 for a missing required body field. */
export function missing(field: string, docs: string): GitHubError {
  return new GitHubError(422, `Invalid request.\n\n"${field}" wasn't supplied.`, docs);
}

/** GitHub's 422 for a body field of the wrong type. */
export function wrongType(field: string, value: unknown, type: string, docs: string): GitHubError {
  return new GitHubError(
    422,
    `Invalid request.\n\nFor 'properties/${field}', ${JSON.stringify(value)} is not ${type}.`,
    docs,
  );
}

/** A required string field of a body. */
export function requireString(body: Record<string, unknown>, field: string, docs: string): string {
  const v = body[field];
  if (v === undefined) throw missing(field, docs);
  if (typeof v !== 'string') throw wrongType(field, v, 'a string', docs);
  return v;
}
