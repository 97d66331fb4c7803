import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { materialize } from '../../src/core/index.js';
import { openStore } from '../../src/state/file/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gb-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const infra = materialize(
  { id: 'infra', repo: 'acme/platform', read: ['infra/**'], write: [], branches: ['feat'] },
  'main',
);

describe('perimeter store', () => {
  it('survives a restart with every change, written 0600', async () => {
    const s1 = await openStore(dir);
    if (!s1.ok) throw new Error(s1.message);
    await s1.value.put(infra);
    await s1.value.put({ ...infra, id: 'other' });
    await s1.value.delete('other');
    const s2 = await openStore(dir);
    if (!s2.ok) throw new Error(s2.message);
    expect(s2.value.list()).toEqual([infra]);
    expect((await stat(join(dir, 'perimeters.json'))).mode & 0o777).toBe(0o600);
  });

  it('refuses to start from a corrupt or invalid state file instead of starting empty', async () => {
    await writeFile(join(dir, 'perimeters.json'), '{"version":1,"perimeters":[{"id":"x"');
    const bad = await openStore(dir);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/not valid JSON/);
    await writeFile(
      join(dir, 'perimeters.json'),
      JSON.stringify({ version: 1, perimeters: [{ ...infra, id: 'ROOT' }] }),
    );
    const invalid = await openStore(dir);
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) expect(invalid.message).toMatch(/perimeters\.0\.id/);
  });

  it('leaves memory and disk unchanged when a write fails', async () => {
    const s = await openStore(dir);
    if (!s.ok) throw new Error(s.message);
    await s.value.put(infra);
    const before = await readFile(join(dir, 'perimeters.json'), 'utf8');
    await rm(dir, { recursive: true, force: true }); // the next write cannot land
    await expect(s.value.put({ ...infra, id: 'lost' })).rejects.toThrow();
    expect(s.value.get('lost')).toBeUndefined();
    expect(s.value.list()).toEqual([infra]);
    expect(before).toContain('"infra"');
  });

  it('serializes concurrent changes without losing one', async () => {
    const s = await openStore(dir);
    if (!s.ok) throw new Error(s.message);
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.value.put({ ...infra, id: `p-${i}` })));
    const again = await openStore(dir);
    if (!again.ok) throw new Error(again.message);
    expect(again.value.list()).toHaveLength(20);
  });

  it('modify reads the current value under the queue and a refusal writes nothing', async () => {
    const s = await openStore(dir);
    if (!s.ok) throw new Error(s.message);
    await s.value.put({ ...infra, branches: ['main'] });
    // Twenty read-modify-writes at once, each adding one branch to what it reads: none may be lost.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.value.modify((draft) => {
          const p = draft.get('infra')!;
          draft.set('infra', { ...p, branches: [...p.branches, `b${i}`] });
          return { ok: true as const, value: undefined };
        }),
      ),
    );
    expect(s.value.get('infra')?.branches).toHaveLength(21);
    const file = await readFile(join(dir, 'perimeters.json'), 'utf8');
    const rev = s.value.revision();
    const refused = await s.value.modify((draft) => {
      draft.delete('infra');
      return { ok: false as const, code: 'no', message: 'refused' };
    });
    expect(refused.ok).toBe(false);
    expect(s.value.get('infra')).toBeDefined();
    expect(s.value.revision()).toBe(rev);
    expect(await readFile(join(dir, 'perimeters.json'), 'utf8')).toBe(file);
  });
});
