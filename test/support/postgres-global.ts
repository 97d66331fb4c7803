// vitest globalSetup: one PostgreSQL server for the whole run, started on first demand. Test files ask for it through
// `sharedPostgres()` (shared-postgres.ts), which calls the tiny loopback endpoint below; the first call starts the
// server (initdb + postgres, seconds on a loaded 2-core machine), later calls get the same URL. A run that needs no
// PostgreSQL never starts one. Each file then works in databases of its own (CREATE DATABASE), so files stay apart.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startPostgres, type TestPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint that answers the shared server's admin URL (starting it on the first request). */
    sharedPostgres: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: Promise<TestPostgres> | undefined;
  const endpoint = createServer((_req, res) => {
    server ??= startPostgres();
    server.then(
      (pg) => res.writeHead(200, { 'content-type': 'text/plain' }).end(pg.url),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end((e as Error).message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    endpoint.once('error', reject);
    endpoint.listen(0, '127.0.0.1', () => resolve());
  });
  project.provide('sharedPostgres', `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`);
  return async () => {
    await new Promise<void>((r) => {
      endpoint.closeAllConnections();
      endpoint.close(() => r());
    });
    const pg = await server?.catch(() => undefined);
    await pg?.destroy();
  };
}
