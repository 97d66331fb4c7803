// Issue 9 item 11: the secret scanner skipped content with a NUL (a token in UTF-16 passed) and compressed content;
// protected paths missed .lfsconfig, .github/dependabot.yml, .husky/**, .gitconfig and .mailmap. Both upstreams.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue9ScannerEncodingsToken0123456789';
const ghp = ['ghp', '_', 'Tq4Lw8Nz2Vb6Xc1Mk9Pj3Rd7Fh5Gs0YaUeWiOo'].join('');
const body = `# settings\nowner: ci\ngithub: ${ghp}\n`;
const b64 = (b: Buffer) => b.toString('base64');

let local: GitDir;
let bare: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
const agents: Record<string, { strict: Agent; binary: Agent; srv: TestServer; heads: () => Promise<string> }> = {};

beforeAll(async () => {
  const commits = [{ message: 'init', files: { 'README.md': '# r\n' } }];
  local = await makeRepo(commits);
  bare = await makeRepo(commits, { bare: true });
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/r': bare.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const up = github;
  for (const [kind, repo, opts] of [
    ['local', local.dir, {}],
    ['github', 'acme/r', { upstream: up, upstreamFor: () => up }],
  ] as const) {
    const srv = await startTestServer(opts);
    await srv.perimeter({ id: 'strict', repo, read: ['**'], write: ['**'] });
    await srv.perimeter({ id: 'binary', repo, read: ['**'], write: ['**'], allow_binary: true });
    const g = kind === 'local' ? local : bare;
    agents[kind] = {
      srv,
      strict: await srv.connect('/mcp/strict'),
      binary: await srv.connect('/mcp/binary'),
      heads: () => g.git('for-each-ref', '--format=%(objectname)'),
    };
  }
}, 60_000);

afterAll(async () => {
  for (const a of Object.values(agents)) await a.srv.close();
  await github?.close();
  await emulator?.close();
  await local?.cleanup();
  await bare?.cleanup();
});

describe.each(['local', 'github'] as const)('%s upstream', (kind) => {
  const push = (who: 'strict' | 'binary', path: string, content: string, encoding?: 'base64') =>
    agents[kind]![who].call('push_files', {
      message: 'x',
      files: [{ path, content, ...(encoding ? { encoding } : {}) }],
    });

  it.each([
    ['UTF-16LE', b64(Buffer.from(body, 'utf16le'))],
    ['UTF-16LE with BOM', b64(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]))],
    ['UTF-16BE', b64(Buffer.from(body, 'utf16le').swap16())],
  ])('a token in %s is refused, naming the line, and nothing moves', async (_n, content) => {
    const before = await agents[kind]!.heads();
    const r = await push('strict', 'conf/settings.reg', content, 'base64');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /Possible secrets in the content: "conf\/settings.reg" line 3 \(GitHub token, starts "ghp_"\)/,
    );
    expect(r.text).not.toContain(ghp);
    expect(await agents[kind]!.heads()).toBe(before);
  });

  it('compressed content is refused unless the perimeter allows binary content', async () => {
    const gz = b64(gzipSync(body));
    const refused = await push('strict', 'conf/settings.gz', gz, 'base64');
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/Compressed content cannot be checked for secrets: "conf\/settings.gz" \(gzip\)/);
    const accepted = await push('binary', 'conf/settings.gz', gz, 'base64');
    expect(accepted.isError, accepted.text).toBeUndefined();
  });

  it.each([
    '.lfsconfig',
    '.github/dependabot.yml',
    '.husky/pre-commit',
    '.gitconfig',
    '.mailmap',
    '.pre-commit-config.yaml',
    '.devcontainer/devcontainer.json',
  ])('writing %s is refused as protected', async (path) => {
    const r = await push('strict', path, 'x = 1\n');
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`"${path}" is a protected file`);
  });
});
