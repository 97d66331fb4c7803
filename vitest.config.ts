import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep parallel forks modest so git subprocesses do not starve each other.
    pool: 'forks',
    maxWorkers: 2,
    // One PostgreSQL server for the run, started when the first file asks for it (test/support/shared-postgres.ts).
    globalSetup: ['test/support/postgres-global.ts'],
  },
});
