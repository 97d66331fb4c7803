// Issue 10 (agents and the bridge): at initialize an agent was told only its branch, so it learnt its write scope by
// being refused. The instructions now carry its own window (branch, read and write globs, privacy zones, limits) and
// nothing of any other perimeter, in both protocol eras. Real server, real repository, real MCP clients.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'app/main.ts': '1\n', 'docs/a.md': 'a\n', 'infra/x.tf': 'x\n' } },
    { message: 'feature', branch: 'feature/x', files: { 'app/f.ts': 'f\n' } },
  ]);
  srv = await startTestServer();
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['app/**', 'docs/*.md'],
    write: ['app/**'],
    branches: ['feature/x'],
    limits: { calls_per_minute: 60, files_per_commit: 20 },
  });
  await srv.perimeter({ id: 'reader', repo: repo.dir, read: ['docs/**'], write: [] });
  await srv.perimeter({ id: 'infra', repo: repo.dir, read: ['infra/**'], write: ['infra/secret-plan/**'] });
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

for (const mode of ['legacy', 'auto'] as const) {
  it(`tells a ${mode} agent its branch, read and write globs, privacy zones and limits`, async () => {
    const a = await srv.connect('/mcp/app/feature%2Fx', mode);
    const text = a.client.getInstructions() ?? '';
    expect(text).toContain('branch "feature/x"');
    expect(text).toContain('"app/**", "docs/*.md"');
    expect(text).toMatch(/write \(push_files\): "app\/\*\*"/);
    expect(text).toMatch(/Privacy zones .* always hidden/);
    expect(text).toContain('60 calls per minute');
    expect(text).toContain('20 files per commit');
    for (const other of ['infra', 'secret-plan', 'reader', 'docs/**']) expect(text).not.toContain(other);
  });
}

it('says a read-only perimeter cannot write, and the operator surface says nothing of perimeters', async () => {
  const r = await srv.connect('/mcp/reader');
  const text = r.client.getInstructions() ?? '';
  expect(text).toContain('branch "main"');
  expect(text).toContain('You cannot write');
  expect(text).not.toContain('app/**');
  const root = await srv.connect('/mcp/root', 'legacy', { authorization: `Bearer ${OPS_TOKEN}` });
  const rootText = root.client.getInstructions() ?? '';
  expect(rootText).toContain('Operator surface');
  for (const glob of ['app/**', 'infra/**', 'docs/**']) expect(rootText).not.toContain(glob);
});
