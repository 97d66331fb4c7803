import { afterAll, beforeAll } from 'vitest';
import { openPostgresState } from '../../src/state/postgres/index.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';
import { stateContract } from './state.contract.js';

let server: SharedPostgres;
beforeAll(async () => {
  server = await sharedPostgres();
}, 60_000);
afterAll(async () => {
  await server?.destroy();
});

let n = 0;
stateContract('postgres', (bounds) => {
  let url: string | undefined;
  const openOn = async () => {
    url ??= await server.database(`contract_${++n}`);
    const s = await openPostgresState({
      url,
      instance: { id: `i${Math.random().toString(36).slice(2, 8)}`, version: 'contract' },
      log: () => undefined,
      beatMs: 200,
      ...(bounds ? { proposalBounds: bounds } : {}),
    });
    if (!s.ok) throw new Error(s.message);
    return s.value;
  };
  return { open: openOn, reopen: openOn, shared: true };
});
