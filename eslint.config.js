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

const noTests = { group: ['**/test/**', '**/features/**'], message: 'src never imports test/ or features/.' };
// Flat config: the last block that matches a file wins for a rule, so every room repeats the common pattern.
const restrict = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [noTests, ...patterns] }] },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/.cache/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'No enums: use closed unions of string literals.' },
      ],
    },
  },
  // Tests read wire JSON: `any` there is the honest type of an answer under inspection.
  { files: ['test/**/*.ts', 'features/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  restrict(['src/**/*.ts'], []),
  restrict(['src/core/**/*.ts'], [
    nodeBuiltins,
    ...frameworks('src/core'),
    ...notFrom('src/core', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
  ]),
  restrict(['src/upstream/types.ts'], [
    nodeBuiltins,
    ...frameworks('the upstream port'),
    ...notFrom('the upstream port', 'localgit', 'github', 'registry', 'mcp', 'http', 'cli'),
  ]),
  restrict(['src/gitcli/**/*.ts'], [
    ...frameworks('src/gitcli'),
    ...notFrom('src/gitcli', 'upstream', 'registry', 'mcp', 'http', 'cli', 'audit'),
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
    ...notFrom('src/registry', 'localgit', 'github', 'mcp', 'http', 'cli'),
  ]),
  restrict(['src/mcp/**/*.ts'], [
    { group: ['express', 'express/*', '@modelcontextprotocol/express'], message: 'src/mcp must not import express.' },
    { group: ['@octokit/*'], message: 'src/mcp must not import Octokit.' },
    ...notFrom('src/mcp', 'localgit', 'github', 'http', 'cli'),
  ]),
  restrict(['src/http/**/*.ts'], [
    { group: ['@octokit/*'], message: 'src/http receives upstream factories; it never imports Octokit.' },
    ...notFrom('src/http', 'localgit', 'github', 'cli'),
  ]),
  restrict(['src/audit/**/*.ts'], [
    ...frameworks('src/audit'),
    ...notFrom('src/audit', 'upstream', 'registry', 'mcp', 'http', 'cli'),
  ]),
);
