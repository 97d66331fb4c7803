// The rooms of src/ and what each may import: the table of ARCHITECTURE.md ("Layout", "Rooms added by the second
// wave", the third wave's rows that exist in code), written once as data. eslint/boundaries.js turns it into the lint
// rules: whatever a row does not list is forbidden, and a file of src/ that no row names fails lint until it is listed.
//
// `room` is a folder (everything below it, subfolders included) or one file; a file belongs to the most specific
// row that names it. A folder row may always import its own folder; a file row only what it lists.
// `may` entries:
//   'src/x' or 'src/x/y.ts'  a folder of src (anything below it) or one file (imported as `.js`)
//   'node:*'                 every Node built-in except node:child_process (only src/gitcli spawns)
//   'node:crypto'            one built-in
//   'zod', '@octokit/*'      a package (and its subpaths) or every package of a scope
//   'console', 'process.env', 'process.exit', 'import()'   globals and dynamic import (all refused unless listed)

/** Ports every consumer of a port may import: types only, never an adapter. */
const PORTS = [
  'src/upstream/types.ts',
  'src/workspace/types.ts',
  'src/workspace/writes.ts',
  'src/state/types.ts',
  'src/state/proposals.ts',
  'src/state/presence.ts',
];

/** @type {ReadonlyArray<{ room: string; holds: string; may: readonly string[] }>} */
export const ROOMS = [
  { room: 'src/core', holds: 'the pure decisions: paths, globs, verdicts, filters, schemas', may: ['zod'] },
  {
    room: 'src/core/glob.ts',
    holds: 'the only minimatch user (its pinned options)',
    may: ['src/core', 'zod', 'minimatch'],
  },

  // The git runner forwards the parent's PATH (and nothing else) so git can be found.
  {
    room: 'src/gitcli',
    holds: 'the one place that spawns git',
    may: ['src/core', 'node:*', 'node:child_process', 'process.env'],
  },

  { room: 'src/upstream/types.ts', holds: 'the upstream port (types only)', may: ['src/core'] },
  {
    room: 'src/upstream/localgit',
    holds: 'the git adapter',
    may: ['src/core', 'src/upstream/types.ts', 'src/gitcli', 'node:*'],
  },
  // node:* for the search index's cache files and its regex worker.
  {
    room: 'src/upstream/github',
    holds: 'the Octokit adapter',
    may: ['src/core', 'src/upstream/types.ts', '@octokit/*', 'node:*'],
  },

  { room: 'src/workspace/types.ts', holds: 'the working-tree port (types only)', may: ['src/core'] },
  {
    room: 'src/workspace/writes.ts',
    holds: 'the working-tree write port (types only)',
    may: ['src/core', 'src/workspace/types.ts'],
  },
  {
    room: 'src/workspace/localfs',
    holds: 'the working-tree adapter (reads and writes)',
    may: ['src/core', 'src/gitcli', 'src/workspace/types.ts', 'src/workspace/writes.ts', 'node:*'],
  },

  {
    room: 'src/state/types.ts',
    holds: 'the state port (types only)',
    may: ['src/core', 'src/state/proposals.ts', 'src/state/presence.ts'],
  },
  { room: 'src/state/presence.ts', holds: 'the presence port (types only)', may: [] },
  { room: 'src/state/proposals.ts', holds: 'the proposal store port (types only)', may: ['src/core'] },
  {
    room: 'src/state/file',
    holds: 'the file state adapter',
    may: ['src/core', 'src/state/types.ts', 'src/state/proposals.ts', 'src/state/presence.ts', 'zod', 'node:*'],
  },
  {
    room: 'src/state/postgres',
    holds: 'the PostgreSQL state adapter',
    may: ['src/core', 'src/state/types.ts', 'src/state/proposals.ts', 'src/state/presence.ts', 'pg', 'node:*'],
  },

  // node:crypto for proposal ids; the perimeter store moved to src/state, so no node:fs here any more.
  {
    room: 'src/registry',
    holds: 'the tool table, perimeters, the proposal service',
    may: ['src/core', ...PORTS, 'zod', 'node:crypto'],
  },
  {
    room: 'src/mcp',
    holds: 'the session server: paths → decide → upstream → filter',
    may: ['src/registry', 'src/core', ...PORTS, '@modelcontextprotocol/server', 'node:crypto'],
  },
  {
    room: 'src/http',
    holds: 'createApp: routes, Bearer and key checks, Host/Origin checks, status codes',
    may: [
      'src/mcp',
      'src/registry',
      'src/core',
      ...PORTS,
      'express',
      'zod',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
      'node:crypto',
      'node:path',
      // node:net: the ops-token gate groups IPv6 sources by /64 (isIP).
      'node:net',
    ],
  },
  {
    room: 'src/http/api',
    holds: 'the /api routes and every /api response schema (shared with the CLI)',
    // web/filediffs.ts and web/risk.ts: `proposal show` prints the per-file view and the risk flags the page draws,
    // from the one computation.
    may: [
      'src/http/status.ts',
      'src/http/web/filediffs.ts',
      'src/http/web/risk.ts',
      'src/registry',
      'src/core',
      ...PORTS,
      'express',
      'zod',
    ],
  },
  // The HTML room: a browser is not an agent, so the page never reaches tools through src/mcp.
  {
    room: 'src/http/web',
    holds: 'the only HTML room: approval page, console, sign-in',
    // ops-gate.ts: the sign-in form checks the ops token through the one audited, throttled gate; the workspace port
    // reads what a commit proposal will record, to show it.
    may: [
      'src/http/auth.ts',
      'src/http/ops-gate.ts',
      'src/registry',
      'src/core',
      'src/upstream/types.ts',
      'src/workspace/types.ts',
      // The state port: signed-in browsers live in the store, so any instance behind a balancer knows them.
      'src/state/types.ts',
      'express',
      'node:crypto',
    ],
  },

  // The state port: the ledger ships its chain to the store's copy through it (issue 21), never through an adapter.
  { room: 'src/audit', holds: 'the signed ledger', may: ['src/core', 'src/state/types.ts', 'zod', 'node:*'] },

  // The composition root: everything in src, its own packages, the console, the environment and the exit code.
  {
    room: 'src/cli',
    holds: 'commander program, composition root, operator commands',
    may: [
      'src',
      'node:*',
      'commander',
      'yaml',
      'zod',
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/server',
      'console',
      'process.env',
      'process.exit',
      'import()',
    ],
  },
];
