import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores, three forks: many files wait on child servers, git, PostgreSQL or timers rather than compute, so two
    // forks left part of the machine idle; a third uses it while staying modest enough that git subprocesses do not
    // starve each other. Targeted runs pass --maxWorkers=1.
    pool: 'forks',
    maxWorkers: 3,
    // One PostgreSQL server for the run, started when the first file asks for it (test/support/shared-postgres.ts).
    globalSetup: ['test/support/postgres-global.ts'],
  },
});
