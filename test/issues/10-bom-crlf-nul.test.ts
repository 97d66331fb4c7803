// Issue 10 (seam "text decoding differs between upstreams"): a file starting with a byte-order mark read with it
// through local git and without it through GitHub, so a read-then-push round trip on GitHub silently changed the
// file. Adapters now return bytes and one core function decides what is served; both upstreams answer alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

const BOM = Buffer.from('\ufeffname,value\r\nx,1\r\n', 'utf8');
const NUL = Buffer.from([0x61, 0x00, 0x62, 0x0d, 0x0a]);

const answers = new Map<string, unknown>();

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: { 'app/data.csv': BOM, 'app/blob.bin': NUL } }], {
      limits: true,
    });
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**'], write: ['app/**'] });
    await s.srv.perimeter({ id: 'bin', repo: s.repo, read: ['app/**'], write: [], allow_binary: true });
  }, 60_000);
  afterAll(async () => s?.close());

  it('serves the BOM and CRLF as they are, and a read-then-push round trip changes nothing', async () => {
    const a = await s.srv.connect('/mcp/p');
    const r = await a.call('get_file', { path: 'app/data.csv' });
    expect(r.structured.encoding).toBe('utf-8');
    expect(Buffer.from(r.structured.content as string, 'utf8').equals(BOM)).toBe(true);
    answers.set(`${kind}:bom`, r.structured);
    const before = (await s.git.git('rev-parse', 'main:app/data.csv')).trim();
    const w = await a.call('push_files', {
      message: 'round trip',
      files: [{ path: 'app/data.csv', content: r.structured.content }],
    });
    expect(w.isError, w.text).toBeUndefined();
    expect((await s.git.git('rev-parse', 'main:app/data.csv')).trim()).toBe(before);
  });

  it('a NUL byte makes the file binary: refused without allow_binary, exact base64 with it', async () => {
    const a = await s.srv.connect('/mcp/p');
    const refused = await a.call('get_file', { path: 'app/blob.bin' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/binary/);
    const b = await s.srv.connect('/mcp/bin');
    const r = await b.call('get_file', { path: 'app/blob.bin' });
    expect(r.structured).toMatchObject({ encoding: 'base64', size: NUL.length });
    expect(Buffer.from(r.structured.content as string, 'base64').equals(NUL)).toBe(true);
    answers.set(`${kind}:nul`, r.structured);
  });
});

describe('both upstreams', () => {
  it('answer the same bytes', () => {
    expect([...answers.keys()].sort()).toEqual(['github:bom', 'github:nul', 'local:bom', 'local:nul']);
    expect(answers.get('github:bom')).toEqual(answers.get('local:bom'));
    expect(answers.get('github:nul')).toEqual(answers.get('local:nul'));
  });
});
