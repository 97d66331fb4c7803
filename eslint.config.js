// Lint = type-aware basics + the import boundaries of ARCHITECTURE.md (eslint/rooms.js, one table).
// A boundary failure is a design conversation: move the code, do not silence the rule.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { boundaries } from './eslint/boundaries.js';

const noEnums = { selector: 'TSEnumDeclaration', message: 'No enums: use closed unions of string literals.' };

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
  {
    files: ['test/**/*.ts', 'features/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // The import boundaries, the console/env/exit rule and closed new folders: all generated from eslint/rooms.js.
  ...boundaries({ always: [noEnums] }),
);
