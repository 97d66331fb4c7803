import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { loadOrCreateSalt } from '../../src/audit/salt.js';
import { openFileState } from '../../src/state/file/index.js';
import { stateContract } from './state.contract.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

stateContract('file', (bounds) => {
  let dir: string | undefined;
  const openIn = async () => {
    dir ??= await mkdtemp(join(tmpdir(), 'gb-state-contract-'));
    dirs.push(dir);
    const d = dir;
    const s = await openFileState(d, { id: 'self', version: 'contract' }, (name) => loadOrCreateSalt(d, name), bounds);
    if (!s.ok) throw new Error(s.message);
    return s.value;
  };
  return { open: openIn, reopen: openIn, shared: false };
});
