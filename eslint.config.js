// Lint = type-aware basics + the import boundaries of ARCHITECTURE.md.
// A boundary failure is a design conversation: move the code, do not silence the rule.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = { group: ['node:*'], message: 'src/core is pure: no node:* imports.' };
const frameworks = (room) => [
  { group: ['express', 'express/*'], message: `${room} must not import express.` },
  { group: ['@octokit/*', 'octokit'], message: `${room} must not import Octokit.` },
  { group: ['@modelcontextprotocol/*'], message: `${room} must not import the MCP SDK.` },
];
const notFrom = (room, ...folders) =>
  folders.map((f) => ({ group: [`**/${f}/*`, `**/${f}`], message: `${room} must not import src/${f}.` }));

// Only the composition root talks to the console, reads the environment or ends the process (ARCHITECTURE habit 6).
const cliOnly = [
  { selector: "MemberExpression[object.name='console']", message: 'Only src/cli writes to the console: take a log function.' },
  { selector: "MemberExpression[object.name='process'][property.name='exit']", message: 'Only src/cli exits the process.' },
  { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Only src/cli reads the environment: take the value as an argument.' },
];
const noEnums = { selector: 'TSEnumDeclaration', message: 'No enums: use closed unions of string literals.' };
const minimatchOnlyInGlob = { group: ['minimatch'], message: 'Only src/core/glob.ts uses minimatch (its pinned options live there).' };

const noTests = { group: ['**/test/**', '**/features/**'], message: 'src never imports test/ or features/.' };
// Flat config: the last block that matches a file wins for a rule, so every room repeats the common pattern.
const restrict = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [noTests, ...(files.includes('src/core/glob.ts') ? [] : [minimatchOnlyInGlob]), ...patterns] }] },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/.cache/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware: the exhaustiveness rule needs the checker to know which unions a switch covers. A `default` does not
    // count for a union, so a new member (a `propose` verdict, say) fails lint wherever a switch does not name it.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: true },
      ],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', noEnums],
    },
  },
  // Tests read wire JSON: `any` there is the honest type of an answer under inspection.
  { files: ['test/**/*.ts', 'features/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  restrict(['src/**/*.ts'], []),
  { files: ['src/**/*.ts'], ignores: ['src/cli/**'], rules: { 'no-restricted-syntax': ['error', noEnums, ...cliOnly] } },
  // The git runner forwards the parent's PATH (and nothing else) so git can be found; no other variable is read.
  { files: ['src/gitcli/**/*.ts'], rules: { 'no-restricted-syntax': ['error', noEnums, ...cliOnly.slice(0, 2)] } },
  restrict(['src/core/**/*.ts'], [
    nodeBuiltins,
    ...frameworks('src/core'),
    ...notFrom('src/core', 'upstream', 'workspace', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  // Last block matching a file wins: glob.ts repeats the core rules without the minimatch ban.
  restrict(['src/core/glob.ts'], [
    nodeBuiltins,
    ...frameworks('src/core'),
    ...notFrom('src/core', 'upstream', 'workspace', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  restrict(['src/upstream/types.ts'], [
    nodeBuiltins,
    ...frameworks('the upstream port'),
    ...notFrom('the upstream port', 'localgit', 'github', 'registry', 'mcp', 'http', 'cli'),
  ]),
  restrict(['src/gitcli/**/*.ts'], [
    ...frameworks('src/gitcli'),
    ...notFrom('src/gitcli', 'upstream', 'workspace', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  // The working-tree port is types only; its adapter imports the port, core and gitcli, never another adapter.
  restrict(['src/workspace/types.ts'], [
    nodeBuiltins,
    ...frameworks('the workspace port'),
    ...notFrom('the workspace port', 'localfs', 'gitcli', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  restrict(['src/workspace/localfs/**/*.ts'], [
    ...frameworks('the workspace adapter'),
    ...notFrom('the workspace adapter', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  restrict(['src/upstream/localgit/**/*.ts'], [
    ...frameworks('the local git adapter'),
    ...notFrom('the local git adapter', 'github', 'registry', 'mcp', 'http', 'cli'),
  ]),
  restrict(['src/upstream/github/**/*.ts'], [
    { group: ['express', '@modelcontextprotocol/*'], message: 'the GitHub adapter talks to Octokit only.' },
    ...notFrom('the GitHub adapter', 'localgit', 'registry', 'mcp', 'http', 'cli'),
  ]),
  restrict(['src/registry/**/*.ts'], [
    ...frameworks('src/registry'),
    ...notFrom('src/registry', 'localgit', 'github', 'localfs', 'mcp', 'http', 'cli', 'file', 'postgres'),
  ]),
  restrict(['src/mcp/**/*.ts'], [
    { group: ['express', 'express/*', '@modelcontextprotocol/express'], message: 'src/mcp must not import express.' },
    { group: ['@octokit/*'], message: 'src/mcp must not import Octokit.' },
    ...notFrom('src/mcp', 'localgit', 'github', 'localfs', 'http', 'cli', 'file', 'postgres'),
  ]),
  restrict(['src/http/**/*.ts'], [
    { group: ['@octokit/*'], message: 'src/http receives upstream factories; it never imports Octokit.' },
    ...notFrom('src/http', 'localgit', 'github', 'localfs', 'cli', 'file', 'postgres'),
  ]),
  // The state port is types only; each adapter imports its port, core and its own driver, never another adapter.
  restrict(['src/state/**/*.ts'], [
    ...frameworks('src/state'),
    ...notFrom('src/state', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  restrict(['src/state/types.ts'], [
    nodeBuiltins,
    { group: ['pg', 'pg/*'], message: 'the state port is types only: no driver.' },
    ...frameworks('the state port'),
    ...notFrom('the state port', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit', 'file', 'postgres'),
  ]),
  restrict(['src/state/file/**/*.ts'], [
    { group: ['pg', 'pg/*'], message: 'the file adapter needs no database driver.' },
    ...frameworks('the file state adapter'),
    ...notFrom('the file state adapter', 'postgres', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  restrict(['src/state/postgres/**/*.ts'], [
    ...frameworks('the PostgreSQL state adapter'),
    ...notFrom('the PostgreSQL state adapter', 'file', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  // The write port is types only, like the read port (its adapter, localfs/writes, falls under the block above).
  restrict(['src/workspace/writes.ts'], [
    nodeBuiltins,
    ...frameworks('the workspace write port'),
    ...notFrom('the workspace write port', 'gitcli', 'localfs', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  // The HTML room: a browser is not an agent, so the page never reaches tools through src/mcp.
  restrict(['src/http/web/**/*.ts'], [
    { group: ['@octokit/*'], message: 'src/http receives upstream factories; it never imports Octokit.' },
    { group: ['@modelcontextprotocol/*'], message: 'src/http/web is the HTML room: it must not import the MCP SDK.' },
    ...notFrom('src/http/web', 'localgit', 'github', 'cli', 'mcp', 'audit'),
  ]),
  restrict(['src/audit/**/*.ts'], [
    ...frameworks('src/audit'),
    ...notFrom('src/audit', 'upstream', 'registry', 'mcp', 'http', 'cli'),
  ]),
);
