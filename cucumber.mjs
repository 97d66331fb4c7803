// With ESM the default export is the profile itself (nesting it under `default:` silently loads no steps).
// Every untagged scenario runs on both assemblies: the default profile serves local git repositories,
// the `github` profile (`cucumber-js -p github`) serves the same repositories through the GitHub emulator.
const common = {
  import: ['features/support/register-tsx.mjs', 'features/step_definitions/**/*.ts', 'features/support/**/*.ts'],
  paths: ['features/**/*.feature'],
  format: ['progress', 'summary'],
  strict: true,
  // Scenarios are independent (own temp dirs, server, emulator, ports); two workers keep both cores busy while one waits on a child.
  parallel: 2,
};

export default { ...common, tags: 'not @github', worldParameters: { assembly: 'local' } };

export const github = { ...common, tags: 'not @local', worldParameters: { assembly: 'github' } };
