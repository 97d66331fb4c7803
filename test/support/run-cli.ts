// Runs the CLI from source (node --import tsx test/support/run-cli.ts <args>), for tests that spawn it.
import { main } from '../../src/cli/main.js';

await main(process.argv);
