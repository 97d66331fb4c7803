import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/cli/client.js';
import { schemaOf } from '../../src/http/api/schema.js';
import { buildProgram, type ServeFlags } from '../../src/cli/program.js';

function harness(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const calls: { method: string; path: string; body?: unknown; url: string }[] = [];
  const served: ServeFlags[] = [];
  const program = buildProgram({
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
    version: '9.9.9',
    serve: async (f) => {
      served.push(f);
    },
    stdio: async () => undefined,
    // Answers go through the route's schema, as the real client reads them: the canned answers must fit the contract.
    client: async (o): Promise<ApiClient> => ({
      call: async (route, path, body) => {
        calls.push({ method: route.split(' ')[0] ?? '', path, body, url: o.url });
        const perimeter = {
          id: 'infra',
          repo: 'a/b',
          read: ['x/**'],
          write: [],
          default_branch: 'main',
          branches: ['main'],
          keys: [],
          urls: ['http://h/mcp/infra'],
        };
        const answer =
          route === 'POST /perimeters'
            ? { perimeter }
            : route === 'DELETE /perimeters/:id/branches/*name'
              ? { perimeter }
              : { perimeters: [] };
        return schemaOf(route).parse(answer);
      },
    }),
  });
  return { program, out, err, calls, served };
}

describe('cli program', () => {
  it('serve takes its flags with the documented defaults', async () => {
    const h = harness();
    await h.program.parseAsync(['node', 'gb', 'serve', '--port', '7411', '--no-root', '--state-dir', '/tmp/s']);
    expect(h.served[0]).toMatchObject({
      port: 7411,
      host: '127.0.0.1',
      root: false,
      stateDir: '/tmp/s',
      sessionIdle: 1800,
      logLevel: 'info',
    });
  });

  it('serve takes its secrets from the environment it is given, checks them, and refuses them as flag values', async () => {
    const ops = 'ops-token-from-the-environment-0123456789';
    const h = harness({
      GIT_BLINDER_OPS_TOKEN: ops,
      GITHUB_TOKEN: 'ghp_0123456789abcdef0123456789abcdef0123',
      GIT_BLINDER_STORE: 'postgres://gb:pw@db/x',
    });
    await h.program.parseAsync(['node', 'gb', 'serve', '--state-dir', '/tmp/s']);
    expect(h.served[0]).toMatchObject({
      opsToken: ops,
      token: 'ghp_0123456789abcdef0123456789abcdef0123',
      store: 'postgres://gb:pw@db/x',
    });
    await expect(harness().program.parseAsync(['node', 'gb', 'serve', '--ops-token', ops])).rejects.toThrow(
      /GIT_BLINDER_OPS_TOKEN/,
    );
    await expect(
      harness({ GIT_BLINDER_OPS_TOKEN: 'short' }).program.parseAsync(['node', 'gb', 'serve']),
    ).rejects.toThrow(/at least 32/);
    await expect(
      harness().program.parseAsync(['node', 'gb', 'serve', '--store', 'postgres://gb:pw@db/x']),
    ).rejects.toThrow(/--store-file/);
    await harness().program.parseAsync(['node', 'gb', 'serve', '--store', 'postgres://gb@db/x']);
  });

  it('perimeter create sends the spec and prints the agent URL', async () => {
    const h = harness();
    await h.program.parseAsync([
      'node',
      'gb',
      'perimeter',
      'create',
      'infra',
      '--repo',
      'a/b',
      '--read',
      'x/**',
      '--read',
      'y/**',
      '--tools',
      'get_file, get_tree',
    ]);
    expect(h.calls[0]).toEqual({
      method: 'POST',
      path: '/perimeters',
      body: { id: 'infra', repo: 'a/b', read: ['x/**', 'y/**'], write: [], tools: ['get_file', 'get_tree'] },
      url: 'http://127.0.0.1:7400',
    });
    expect(h.out.join('\n')).toContain('http://h/mcp/infra');
  });

  it('branch names with slashes stay one path', async () => {
    const h = harness();
    await h.program.parseAsync([
      'node',
      'gb',
      'perimeter',
      'branch',
      'remove',
      'infra',
      'feature/x',
      '--url',
      'http://o:1',
    ]);
    expect(h.calls[0]).toMatchObject({
      method: 'DELETE',
      path: '/perimeters/infra/branches/feature/x',
      url: 'http://o:1',
    });
  });

  it('rejects bad usage with a CommanderError', async () => {
    const h = harness();
    await expect(h.program.parseAsync(['node', 'gb', 'serve', '--port', 'abc'])).rejects.toThrow(/whole number/);
    await expect(h.program.parseAsync(['node', 'gb', 'perimeter', 'create', 'x'])).rejects.toThrow(/--repo/);
  });

  it('tools works without a server', async () => {
    const h = harness();
    await h.program.parseAsync(['node', 'gb', 'tools', '--json']);
    expect(JSON.parse(h.out.join('\n')).tools).toHaveLength(42);
  });
});
