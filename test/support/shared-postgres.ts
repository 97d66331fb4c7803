// The run's shared PostgreSQL server (started once by the globalSetup in postgres-global.ts) as a test file sees it:
// fresh databases of its own, dropped again when the file is done. A file that takes the database away (stop/start)
// needs a server of its own: `startPostgres()` in postgres.ts.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { startPostgres } from './postgres.js';

export interface SharedPostgres {
  /** A fresh database `<name>_<random>` (unique across the run's files); its connection URL. */
  database(name: string): Promise<string>;
  /** Drops this file's databases, ending any connection still open to them; the server stays up for other files. */
  destroy(): Promise<void>;
}

/** The shared server, or (outside a vitest run with the globalSetup) a server of this file's own. */
export async function sharedPostgres(): Promise<SharedPostgres> {
  const endpoint = inject('sharedPostgres') as string | undefined;
  if (!endpoint) return startPostgres();
  const res = await fetch(endpoint);
  const body = await res.text();
  if (!res.ok) throw new Error(`the shared PostgreSQL server did not start: ${body}`);
  const admin = new URL(body);
  const mine: string[] = [];
  const asAdmin = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin.href });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  return {
    async database(name) {
      const db = `${name}_${randomBytes(4).toString('hex')}`;
      await asAdmin(`CREATE DATABASE "${db}"`);
      mine.push(db);
      const url = new URL(admin.href);
      url.pathname = `/${db}`;
      return url.href;
    },
    async destroy() {
      for (const db of mine.splice(0)) await asAdmin(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    },
  };
}
