// `tsx test/support/github-emulator/cli.ts --repos <dir> [--port 7401] [--host 127.0.0.1] [--token t]...`
// Serves every <dir>/<owner>/<name>.git bare repository as owner/name until interrupted.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGitHubEmulator, type EmulatorOptions } from './index.js';

/** Finds `<owner>/<name>.git` directories under `root`. */
function discover(root: string): Record<string, string> {
  const repos: Record<string, string> = {};
  for (const owner of readdirSync(root)) {
    const ownerDir = join(root, owner);
    if (!statSync(ownerDir).isDirectory()) continue;
    for (const name of readdirSync(ownerDir)) {
      if (name.endsWith('.git') && statSync(join(ownerDir, name)).isDirectory()) repos[`${owner}/${name.slice(0, -4)}`] = join(ownerDir, name);
    }
  }
  return repos;
}

const { values } = parseArgs({
  options: {
    repos: { type: 'string' },
    port: { type: 'string', default: '7401' },
    host: { type: 'string', default: '127.0.0.1' },
    token: { type: 'string', multiple: true },
    'rate-limit': { type: 'string' },
  },
});
if (!values.repos) {
  process.stderr.write('usage: cli.ts --repos <dir> [--port 7401] [--host 127.0.0.1] [--token t]... [--rate-limit 5000]\n');
  process.exit(2);
}
const repos = discover(values.repos);
const opts: EmulatorOptions = { repos, port: Number(values.port), host: values.host };
if (values.token?.length) opts.token = values.token;
if (values['rate-limit']) opts.rateLimit = { limit: Number(values['rate-limit']) };
const emulator = await startGitHubEmulator(opts);
process.stdout.write(`GitHub emulator on ${emulator.url} serving ${Object.keys(repos).length} repositories: ${Object.keys(repos).join(', ') || '(none)'}\n`);
const stop = (): void => {
  void emulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
