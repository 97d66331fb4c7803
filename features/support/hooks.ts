// One server per scenario, nothing shared: every process is killed and every temp dir removed after each scenario.
import { After, AfterAll, Before, setDefaultTimeout, Status } from '@cucumber/cucumber';
import { removeFixtureTemplate, type BlinderWorld } from './world.js';

// Generous for a busy CI machine; scenarios normally take a few seconds.
setDefaultTimeout(60_000);

Before(async function (this: BlinderWorld) {
  await this.init();
});

After(async function (this: BlinderWorld, { result, pickle }) {
  if (result?.status === Status.FAILED) {
    // The progress formatter shows no attachments: print what the server said, it is usually the explanation.
    process.stderr.write(
      `\n--- [${this.assembly}] ${pickle.name}: server output (tail) ---\n${this.serverOutput().slice(-3000)}\n`,
    );
  }
  const output = this.serverOutput();
  await this.cleanup();
  // Whatever the scenario did, the GitHub token never reaches the server's output or anything it answered.
  if (this.assembly === 'github') {
    if (output.includes(this.githubToken)) throw new Error('the GitHub token appeared in the server output');
    if (this.received.some((t) => t.includes(this.githubToken)))
      throw new Error('the GitHub token appeared in an answer');
  }
});

AfterAll(async function () {
  await removeFixtureTemplate();
});
