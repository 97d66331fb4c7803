// `tsx test/support/github-emulator/cli.ts --repos <dir> [--port 7401] [--host 127.0.0.1] [--token t]...`
// Serves every <dir>/<owner>/<name>.git bare repository as owner/name until interrupted.
// `npm run emulator -- --repos ./emulated` runs this with the package root as its cwd: a relative --repos is resolved
// against the directory npm was called from (INIT_CWD), which is where the caller meant it.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startGitHubEmulator, type EmulatorOptions } from './index.js';

const USAGE =
  'usage: npm run emulator -- --repos <dir> [--port 7401] [--host 127.0.0.1] [--token t]... [--rate-limit 5000]';
const LAYOUT =
  'It must hold bare repositories as <dir>/<owner>/<name>.git, served as owner/name; for example:\n' +
  '  mkdir -p emulated/acme && git clone --bare https://example.com/docs.git emulated/acme/docs.git\n' +
  '  (or: git init --bare emulated/acme/docs.git, then push to it)';

/** Ends the process with a message and no stack trace: every problem here is the caller's to fix. */
function die(message: string): never {
  process.stderr.write(`emulator: ${message}\n`);
  process.exit(2);
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Finds `<owner>/<name>.git` directories under `root`. */
function discover(root: string): Record<string, string> {
  const repos: Record<string, string> = {};
  for (const owner of readdirSync(root)) {
    const ownerDir = join(root, owner);
    if (!isDir(ownerDir)) continue;
    for (const name of readdirSync(ownerDir)) {
      if (name.endsWith('.git') && isDir(join(ownerDir, name)))
        repos[`${owner}/${name.slice(0, -4)}`] = join(ownerDir, name);
    }
  }
  return repos;
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      repos: { type: 'string' },
      port: { type: 'string', default: '7401' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
    },
  });
} catch (e) {
  die(`${(e as Error).message}\n${USAGE}`);
}
const { values } = parsed;
if (!values.repos) die(USAGE);
const root = resolve(process.env.INIT_CWD ?? process.cwd(), values.repos);
if (!isDir(root)) die(`--repos ${values.repos}: no folder at ${root}.\n${LAYOUT}`);
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  die(`--port must be a whole number from 0 to 65535.\n${USAGE}`);
const repos = discover(root);
if (Object.keys(repos).length === 0)
  process.stderr.write(`emulator: warning: no <owner>/<name>.git repository under ${root}.\n${LAYOUT}\n`);
const opts: EmulatorOptions = { repos, port, host: values.host };
if (values.token?.length) opts.token = values.token;
if (values['rate-limit']) opts.rateLimit = { limit: Number(values['rate-limit']) };
const emulator = await startGitHubEmulator(opts).catch((e: NodeJS.ErrnoException) =>
  die(`cannot listen on ${values.host}:${port} (${e.code ?? e.message}); pick another --port.`),
);
process.stdout.write(
  `GitHub emulator on ${emulator.url} serving ${Object.keys(repos).length} repositories: ${Object.keys(repos).join(', ') || '(none)'}\n`,
);
const stop = (): void => {
  void emulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
