// With ESM the default export is the profile itself (nesting it under `default:` silently loads no steps).
export default {
  import: ['features/support/register-tsx.mjs', 'features/step_definitions/**/*.ts', 'features/support/**/*.ts'],
  paths: ['features/**/*.feature'],
  format: ['progress', 'summary'],
  strict: true,
};
