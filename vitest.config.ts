import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The longest files, by measured wall time, longest first. Without a results cache (a fresh CI checkout) vitest orders
 * by file size, which put the two adversarial runs and both upstream contracts (small files that import large suites)
 * among the last ten of ~190: the run then ended on them with the other forks idle. Named here, they start first.
 */
const SLOWEST_FIRST = [
  'test/twins/history.twins.test.ts',
  'test/adversarial/perimeter-github.test.ts',
  'test/adversarial/perimeter-local.test.ts',
  'test/twins/worktree/worktree.twins.test.ts',
  'test/issues/10-serve-flag-validation.test.ts',
  'test/contract/github.contract.test.ts',
  'test/contract/localgit.contract.test.ts',
  'test/issues/20-restore-points-usable.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FIRST.indexOf(relative(this.ctx.config.root, f.moduleId).split('\\').join('/'));
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the files not named keep vitest's own order after the named ones.
    return rest.sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: SlowestFirst },
    // One PostgreSQL server for the run, started when the first file asks for it (test/support/shared-postgres.ts).
    globalSetup: ['test/support/postgres-global.ts'],
  },
});
