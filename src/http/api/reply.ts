// The one way an `/api` route answers: through its schema (schema.ts), so a body is checked against the contract the
// CLI parses with, and a field the contract does not name never leaves the server.
import type { Response } from 'express';
import * as z from 'zod/v4';
import { schemaOf, type ApiBody, type ApiRoute } from './schema.js';

/** Sends `body` as the answer of `route`; a body that does not fit its schema is a broken invariant (a 500). */
export function reply<R extends ApiRoute>(res: Response, route: R, body: ApiBody<R>, status = 200): void {
  const checked = schemaOf(route).safeParse(body);
  if (!checked.success)
    throw new Error(`/api ${route}: the answer does not fit its schema: ${z.prettifyError(checked.error)}`);
  res.status(status).json(checked.data);
}
