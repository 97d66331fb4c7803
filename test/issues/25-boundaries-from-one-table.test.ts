// Issue 25: the import boundaries were a per-room list of what is forbidden, written before the newer rooms existed; a
// review planted 18 imports ARCHITECTURE.md forbids and lint caught 3. The rules are now generated from one table
// (eslint/rooms.js) as an allow-list. For every row of the table: forbidden imports planted in the room are reported,
// allowed ones pass; a folder of src/ the table does not name fails whatever it contains.
//
// The probes are linted as text under a path in the room (`lintText`, nothing is written into src/). Type-aware
// parsing needs a file the project knows, so it is switched off for these probes: the rules under test are the
// import and syntax rules, which need no types (issue 10's test covers the type-aware ones).
import { dirname, posix } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

interface Room {
  readonly room: string;
  readonly may: readonly string[];
}
const roomsUrl = new URL('../../eslint/rooms.js', import.meta.url).href;
const { ROOMS } = (await import(roomsUrl)) as { ROOMS: readonly Room[] };

const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/switch-exhaustiveness-check': 'off' },
    },
  ],
});

/** What lint reports for `code` linted as the file `filePath`, as `rule: message` lines. */
async function lint(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

/** The import text naming `target` (a src/test path, or a package) from the file `from`. */
function spec(from: string, target: string): string {
  if (!/^(src|test|features)\//.test(target)) return target;
  const rel = posix.relative(dirname(from), target).replace(/\.ts$/, '.js');
  return rel.startsWith('..') ? rel : `./${rel}`;
}

async function importReport(from: string, target: string): Promise<string[]> {
  return lint(from, `import '${spec(from, target)}';\n`);
}

interface Probe {
  /** A file in the room (a file room is linted under its own name; its text on disk is never touched). */
  readonly at: readonly string[];
  readonly forbidden: readonly string[];
  readonly allowed: readonly string[];
}

// One entry per row of the table (a test below fails when a row has none). Forbidden imports include the ones the
// review planted: adapters from the registry, mcp from the HTML room, child_process outside gitcli, test/ from src.
const PROBES: Record<string, Probe> = {
  'src/core': {
    at: ['src/core/probe.ts'],
    forbidden: [
      'node:fs',
      'fs',
      'minimatch',
      'express',
      '@modelcontextprotocol/server',
      'src/upstream/types.ts',
      'src/mcp/index.ts',
      'test/support/gitdir.ts',
    ],
    allowed: ['zod/v4', 'src/core/path.ts'],
  },
  'src/core/glob.ts': {
    at: ['src/core/glob.ts'],
    forbidden: ['node:path', 'src/registry/index.ts'],
    allowed: ['minimatch', 'src/core/path.ts'],
  },
  'src/gitcli': {
    at: ['src/gitcli/probe.ts'],
    forbidden: ['src/upstream/types.ts', 'src/workspace/types.ts', 'express'],
    allowed: ['node:child_process', 'node:stream', 'src/core/index.ts', 'src/gitcli/run.ts'],
  },
  'src/upstream/types.ts': {
    at: ['src/upstream/types.ts'],
    forbidden: ['src/upstream/localgit/index.ts', 'src/upstream/github/index.ts', 'node:fs', 'src/registry/index.ts'],
    allowed: ['src/core/model.ts'],
  },
  'src/upstream/localgit': {
    at: ['src/upstream/localgit/probe.ts'],
    forbidden: [
      'src/upstream/github/index.ts',
      'node:child_process',
      'src/registry/index.ts',
      '@octokit/rest',
      'src/workspace/localfs/index.ts',
    ],
    allowed: ['src/gitcli/run.ts', 'node:fs/promises', 'src/upstream/types.ts', 'src/core/model.ts'],
  },
  'src/upstream/github': {
    at: ['src/upstream/github/probe.ts'],
    forbidden: [
      'src/upstream/localgit/index.ts',
      'src/gitcli/run.ts',
      'express',
      'node:child_process',
      'src/mcp/index.ts',
    ],
    allowed: ['@octokit/rest', '@octokit/plugin-retry', 'src/upstream/types.ts', 'node:worker_threads'],
  },
  'src/workspace/types.ts': {
    at: ['src/workspace/types.ts'],
    forbidden: ['src/workspace/localfs/index.ts', 'src/gitcli/run.ts', 'node:fs'],
    allowed: ['src/core/index.ts'],
  },
  'src/workspace/writes.ts': {
    at: ['src/workspace/writes.ts'],
    forbidden: ['src/workspace/localfs/writes/index.ts', 'src/upstream/types.ts'],
    allowed: ['src/workspace/types.ts'],
  },
  'src/workspace/localfs': {
    at: ['src/workspace/localfs/probe.ts', 'src/workspace/localfs/writes/probe.ts'],
    forbidden: [
      'src/upstream/types.ts',
      'src/registry/index.ts',
      'node:child_process',
      'src/upstream/localgit/index.ts',
    ],
    allowed: ['src/gitcli/run.ts', 'src/workspace/writes.ts', 'src/workspace/localfs/index.ts', 'node:fs'],
  },
  'src/state/types.ts': {
    at: ['src/state/types.ts'],
    forbidden: ['pg', 'src/state/file/index.ts', 'node:fs', 'src/registry/index.ts'],
    allowed: ['src/state/proposals.ts', 'src/core/index.ts'],
  },
  'src/state/presence.ts': {
    at: ['src/state/presence.ts'],
    forbidden: ['src/core/index.ts', 'pg', 'src/state/file/index.ts'],
    allowed: [],
  },
  'src/state/proposals.ts': {
    at: ['src/state/proposals.ts'],
    forbidden: ['src/registry/proposals.ts', 'src/state/postgres/index.ts'],
    allowed: ['src/core/index.ts'],
  },
  'src/state/file': {
    at: ['src/state/file/probe.ts'],
    forbidden: ['pg', 'src/state/postgres/index.ts', 'src/registry/index.ts'],
    allowed: ['src/state/types.ts', 'node:fs/promises', 'zod/v4'],
  },
  'src/state/postgres': {
    at: ['src/state/postgres/probe.ts'],
    forbidden: ['src/state/file/index.ts', 'src/upstream/types.ts', 'zod/v4'],
    allowed: ['pg', 'src/state/proposals.ts', 'node:crypto'],
  },
  'src/registry': {
    at: ['src/registry/probe.ts', 'src/registry/tools/probe.ts'],
    forbidden: [
      'src/upstream/localgit/index.ts',
      'src/upstream/github/index.ts',
      'src/workspace/localfs/index.ts',
      'src/state/file/index.ts',
      'src/state/postgres/index.ts',
      'src/gitcli/run.ts',
      'src/mcp/index.ts',
      'src/http/app.ts',
      'node:fs',
      'express',
    ],
    allowed: [
      'src/upstream/types.ts',
      'src/workspace/writes.ts',
      'src/state/types.ts',
      'src/registry/tool.ts',
      'zod/v4',
      'node:crypto',
    ],
  },
  'src/mcp': {
    at: ['src/mcp/probe.ts'],
    forbidden: [
      'express',
      '@modelcontextprotocol/express',
      'src/http/app.ts',
      'src/upstream/localgit/index.ts',
      'src/cli/main.ts',
      'src/state/file/index.ts',
    ],
    allowed: ['@modelcontextprotocol/server', 'src/registry/index.ts', 'src/workspace/types.ts'],
  },
  'src/http': {
    at: ['src/http/probe.ts'],
    forbidden: [
      '@octokit/rest',
      'src/upstream/github/index.ts',
      'src/cli/main.ts',
      'src/state/postgres/index.ts',
      'node:child_process',
      'src/audit/index.ts',
    ],
    allowed: ['express', 'src/mcp/index.ts', '@modelcontextprotocol/node', 'src/http/web/router.ts'],
  },
  'src/http/api': {
    at: ['src/http/api/probe.ts'],
    forbidden: ['src/mcp/index.ts', 'src/http/web/router.ts', 'src/cli/client.ts', 'src/upstream/localgit/index.ts'],
    allowed: ['zod/v4', 'src/http/status.ts', 'src/registry/proposals.ts', 'express'],
  },
  'src/http/web': {
    at: ['src/http/web/probe.ts', 'src/http/web/pages/probe.ts'],
    forbidden: [
      'src/mcp/index.ts',
      '@modelcontextprotocol/server',
      'src/http/api.ts',
      'src/audit/index.ts',
      'src/upstream/localgit/index.ts',
      'src/cli/client.ts',
    ],
    allowed: ['express', 'src/http/auth.ts', 'src/registry/proposals.ts', 'src/http/web/escape.ts'],
  },
  'src/audit': {
    at: ['src/audit/probe.ts'],
    forbidden: [
      'src/registry/index.ts',
      'src/upstream/types.ts',
      'express',
      'src/http/app.ts',
      'src/state/postgres/index.ts',
    ],
    allowed: ['node:fs', 'src/core/index.ts', 'zod/v4', 'src/state/types.ts'],
  },
  'src/cli': {
    at: ['src/cli/probe.ts', 'src/cli/commands/probe.ts'],
    forbidden: ['node:child_process', 'minimatch', 'test/support/gitdir.ts', 'features/support/world.ts', 'express'],
    allowed: [
      'src/upstream/localgit/index.ts',
      'src/http/api/proposals.ts',
      'commander',
      'node:fs',
      'src/cli/client.ts',
    ],
  },
};

describe('issue 25: the import boundaries are an allow-list generated from one table', () => {
  it('every row of the table has probes, and every probe names a row', () => {
    expect(Object.keys(PROBES).sort()).toEqual(ROOMS.map((r) => r.room).sort());
  });

  for (const [room, probe] of Object.entries(PROBES)) {
    for (const at of probe.at) {
      it(`${at}: ${probe.forbidden.length} forbidden imports are reported, ${probe.allowed.length} allowed pass`, async () => {
        for (const target of probe.forbidden) {
          const report = await importReport(at, target);
          expect(report, `${target} from ${at}`).toHaveLength(1);
          expect(report[0], `${target} from ${at}`).toMatch(/^no-restricted-imports: .*eslint\/rooms\.js/);
          expect(report[0]).toContain(`${room} may import only`);
        }
        for (const target of probe.allowed) expect(await importReport(at, target), `${target} from ${at}`).toEqual([]);
      }, 60_000);
    }
  }

  it('a folder of src/ that no row names fails, even with nothing in it; so does a new file beside a port', async () => {
    for (const at of ['src/search/types.ts', 'src/newroom/deep/x.ts', 'src/upstream/extra.ts', 'src/state/extra.ts']) {
      const report = await lint(at, `/** probe */\nexport const x = 1;\n`);
      expect(report, at).toEqual([
        expect.stringMatching(/^no-restricted-syntax: This folder of src\/ is in no room of eslint\/rooms\.js/),
      ]);
    }
  });

  it('a relative path that is not in its normal form is refused, even when it lands somewhere allowed', async () => {
    for (const text of [
      './../core/index.js',
      '../core/../core/index.js',
      '../upstream/./types.js',
      '.././core/index.js',
    ]) {
      expect(await lint('src/registry/probe.ts', `import '${text}';\n`), text).toEqual([
        expect.stringMatching(/^no-restricted-imports/),
      ]);
    }
    // The plain form of the last one passes: the refusal is about the form.
    expect(await lint('src/registry/probe.ts', `import '../core/index.js';\n`)).toEqual([]);
  });

  it('dynamic and type-position imports, which the import rule cannot see, are refused outside src/cli', async () => {
    const dynamic = `/** probe */\nexport const m = () => import('../upstream/localgit/index.js');\n`;
    const typeImport = `/** probe */\nexport type T = import('../upstream/localgit/index.js').LocalGit;\n`;
    expect(await lint('src/registry/probe.ts', dynamic)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: No dynamic import/),
    ]);
    expect(await lint('src/registry/probe.ts', typeImport)).toEqual([
      expect.stringMatching(/^@typescript-eslint\/consistent-type-imports: `import\(\)` type/),
    ]);
    expect(await lint('src/cli/probe.ts', dynamic)).toEqual([]);
  });

  it('the console, the environment and the exit code: src/cli only (src/gitcli reads PATH), one list per row', async () => {
    const env = `/** probe */\nexport const p = process.env['PATH'];\n`;
    const out = `/** probe */\nexport const f = (): void => console.log('x');\n`;
    expect(await lint('src/gitcli/probe.ts', env)).toEqual([]);
    expect(await lint('src/gitcli/probe.ts', out)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: Only src\/cli writes/),
    ]);
    expect(await lint('src/http/web/probe.ts', env)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: Only src\/cli reads/),
    ]);
    expect(await lint('src/cli/commands/probe.ts', env + out.replace('/** probe */\n', ''))).toEqual([]);
    // The enum ban is kept by every generated block.
    expect(await lint('src/http/api/probe.ts', `/** probe */\nexport enum E { A }\n`)).toEqual([
      expect.stringMatching(/^no-restricted-syntax: No enums/),
    ]);
  });
});
