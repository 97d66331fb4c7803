import type { Pool, PoolClient } from 'pg';

/**
 * Runs `fn` on a client checked out of `pool` and always gives it back. While checked out, a client the server drops
 * (a restart, an operator's pg_terminate_backend) emits `error` with no pool listener attached; unheard, that would end
 * the process. The failure still reaches `fn` as its query's rejection.
 */
export async function withClient<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    return await fn(client);
  } catch (e) {
    broken = e as Error;
    throw e;
  } finally {
    client.off('error', ignore);
    // A client that failed mid-transaction may be unusable: destroy it rather than hand it to the next caller.
    client.release(broken);
  }
}
