import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { readPublicKeys, runAuditVerify } from '../audit/index.js';
import type { AuditCopy } from '../state/types.js';
import { defaultLedgerFile, printAudit, printStoreAudit } from './audit.js';
import { openCopyForCli, verifyStoreCopy } from './audit-store.js';
import { CliError, type ApiClient } from './client.js';
import { isLocalRepo, resolveLocalPath } from './config.js';
import type { Level } from './log.js';
import { proposalCommands } from './commands/proposal.js';
import { operator, opsClient, printTools, type OpsOptions } from './operator.js';
import { stateDirFrom } from './paths.js';
import { checkOpsTokenLength } from './ops-token.js';
import {
  AGENT_KEY,
  CLIENT_OPS_TOKEN,
  GITHUB_TOKEN,
  onCommandLine,
  secretFrom,
  SERVE_OPS_TOKEN,
  STORE_URL,
} from './secrets.js';
import {
  collectNonEmpty,
  httpUrl,
  intIn,
  logLevel,
  nonEmpty,
  port,
  refusedOnCommandLine,
  secret,
  storeFlag,
  storeUrl,
} from './serve-flags.js';
import { clean } from './table.js';
import { worktreeCommands } from './commands/worktree.js';
import { perimeterWarnings } from './warnings.js';

export interface ProgramIO {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
  /** Starts the server and resolves once it listens. */
  readonly serve: (o: ServeFlags) => Promise<void>;
  /** Runs the stdio bridge until stdin closes. */
  readonly stdio: (o: { url: string; perimeter: string; branch?: string; key?: string }) => Promise<void>;
  /** The directory relative `--repo` paths are resolved against (default: the process's). */
  readonly cwd?: string;
  /** Overridable for tests. */
  readonly client?: (o: OpsOptions, stateDir: string) => Promise<ApiClient>;
}

export interface ServeFlags {
  port: number;
  host: string;
  config?: string;
  stateDir: string;
  token?: string;
  opsToken?: string;
  githubUrl?: string;
  root: boolean;
  allowedHost?: string[];
  openPerimeters: boolean;
  private?: string[];
  sessionIdle: number;
  proposalTtl?: number;
  logLevel: Level;
  audit: boolean;
  auditDir?: string;
  auditKey?: string;
  auditClearPaths: boolean;
  auditMaxBytes?: number;
  auditKeep?: number;
  auditMinAge?: number;
  store?: string;
  storeSilence: number;
}

const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number.`);
  return n;
};
const collect = (v: string, prev: string[] = []) => [...prev, v];

// Commander quotes a rejected value in its error; for these options the value is a credential (refused on the command
// line, or a store URL with a password), so the quote is cut and the parser's own words (which never repeat it) remain.
const SECRET_OPTIONS =
  /(option '--(?:token|ops-token|store|key) (?:<[^>]*>|\[[^\]]*\])' (?:argument|value)) '[\s\S]*?' ((?:from env '[^']*' )?is invalid\.)/;
const withoutSecrets = (s: string): string => s.replace(SECRET_OPTIONS, '$1 $2');
const DEFAULT_URL = 'http://127.0.0.1:7400';
/** A secret's flag: still parsed (so the mistake gets its sentence), hidden from help, always refused. */
const refusedSecret = (flag: string, what: string, source: Parameters<typeof onCommandLine>[0]) =>
  new Option(`${flag} <value>`).hideHelp().argParser(refusedOnCommandLine(onCommandLine(source, what)));
const isFile = (p: string) =>
  stat(p).then(
    (s) => s.isFile(),
    () => false,
  );

/** Builds the commander program. Pure wiring: every effect goes through `io`. */
export function buildProgram(io: ProgramIO): Command {
  const program = new Command('git-blinder')
    .description('Blinders for AI coding agents: one MCP server, many perimeters over a git repository or GitHub.')
    .version(io.version)
    .configureOutput({
      writeOut: (s) => io.out(s.trimEnd()),
      writeErr: (s) => io.err(s.trimEnd()),
      outputError: (s, write) => write(withoutSecrets(s)),
    })
    // Set before subcommands are created so they inherit it: usage errors reach main as CommanderError (exit 2).
    .exitOverride();

  const cwd = io.cwd ?? process.cwd();
  // Local paths are resolved against the current directory, as a config file's are against its folder.
  const repoArg = (repo: string) => (isLocalRepo(repo) ? resolveLocalPath(repo, cwd, homedir()) : repo);
  const clientFor = async (given: OpsOptions & { tokenFile?: string }) => {
    const stateDir = stateDirFrom(given.stateDir, io.env);
    // The file wins over the environment; either is checked like a header value before anything is sent.
    const token =
      given.tokenFile === undefined ? undefined : await secretFrom(CLIENT_OPS_TOKEN, given.tokenFile, {}, secret);
    const o: OpsOptions = { ...given, ...(token === undefined ? {} : { token }) };
    return io.client ? io.client(o, stateDir) : opsClient(o, io.env, stateDir);
  };
  // Operator commands talk to the running server.
  const ops = (cmd: Command) =>
    cmd
      .option('--url <url>', 'server to talk to', io.env.GIT_BLINDER_URL ?? DEFAULT_URL)
      .addOption(refusedSecret('--token', 'the ops token', CLIENT_OPS_TOKEN))
      .option(
        '--token-file <file>',
        'file (mode 0600) holding the ops token (default: GIT_BLINDER_OPS_TOKEN, GITHUB_TOKEN, or the one stored in the state dir)',
      )
      .option('--state-dir <dir>', 'where the server keeps its state (to find the stored ops token)')
      .option('--json', 'print JSON for scripts');

  program
    .command('serve')
    .description('Run the server. With no token and no config it serves the current repository read-only.')
    // Every flag and variable is checked by its parser before the action runs: nothing is written on a bad value.
    .option('--port <n>', 'port to listen on (0: any free port)', port, 7400)
    .option('--host <host>', 'interface to bind', nonEmpty('--host'), '127.0.0.1')
    .option('--config <file>', 'YAML file of perimeters preloaded at boot', nonEmpty('--config'))
    .option(
      '--state-dir <dir>',
      'state directory (perimeters, allowlists, ops token; default GIT_BLINDER_STATE_DIR, else ~/.git-blinder)',
      nonEmpty('--state-dir'),
    )
    // Secrets come from the environment or a 0600 file, never from argv (world-readable through ps).
    .option(
      '--token-file <file>',
      'file (mode 0600) holding the GitHub token the server uses (default: GITHUB_TOKEN)',
      nonEmpty('--token-file'),
    )
    .addOption(refusedSecret('--token', 'the GitHub token', GITHUB_TOKEN))
    .option(
      '--ops-token-file <file>',
      'file (mode 0600) holding the ops token: Bearer for /api and /mcp/root, sign-in of /ui; at least 32 characters (default: GIT_BLINDER_OPS_TOKEN, else the GitHub token, else generated)',
      nonEmpty('--ops-token-file'),
    )
    .addOption(refusedSecret('--ops-token', 'the ops token', SERVE_OPS_TOKEN))
    .addOption(
      new Option('--github-url <url>', 'GitHub API base URL (GitHub Enterprise Server: https://HOST/api/v3)')
        .env('GITHUB_API_URL')
        .argParser(httpUrl('--github-url (GITHUB_API_URL)')),
    )
    .option('--no-root', 'disable the unfiltered operator surface /mcp/root')
    .option(
      '--allowed-host <host>',
      'Host header value to accept (repeatable; needed when binding beyond loopback)',
      collectNonEmpty('--allowed-host'),
    )
    .option('--open-perimeters', 'serve perimeter URLs without agent keys (V0 behaviour; loopback only)', false)
    .option(
      '--private <glob>',
      'extra privacy pattern hidden in every perimeter (repeatable)',
      collectNonEmpty('--private'),
    )
    .option(
      '--session-idle <seconds>',
      'close MCP sessions idle this long',
      intIn('--session-idle', 1, 7 * 24 * 3600, 'a number of seconds from 1 to 604800'),
      1800,
    )
    .option(
      '--proposal-ttl <seconds>',
      'how long a proposal waits for approval before it expires (default 86400)',
      intIn('--proposal-ttl', 1, 365 * 24 * 3600, 'a number of seconds from 1 to 31536000'),
    )
    .addOption(
      new Option('--log-level <level>', 'debug, info, warn or error')
        .default('info')
        .env('GIT_BLINDER_LOG_LEVEL')
        .argParser(logLevel),
    )
    .addOption(
      new Option(
        '--store <url>',
        'shared state for several instances: postgres://user@host/db without a password (PGPASSWORD, ~/.pgpass), else use GIT_BLINDER_STORE or --store-file (default: the file store in the state dir)',
      ).argParser(storeFlag),
    )
    .option(
      '--store-file <file>',
      'file (mode 0600) holding the postgres:// URL, password included (default: GIT_BLINDER_STORE)',
      nonEmpty('--store-file'),
    )
    .option(
      '--store-silence <seconds>',
      'refuse agent calls once the shared store has been silent this long',
      intIn('--store-silence', 1, 3600, 'a number of seconds from 1 to 3600'),
      10,
    )
    .option('--no-audit', 'do not keep the audit ledger')
    .option('--audit-dir <dir>', 'audit ledger folder (default: <state dir>/audit)', nonEmpty('--audit-dir'))
    .option(
      '--audit-key <file>',
      'Ed25519 private key (PKCS#8 PEM) to sign ledger entries; startup fails if unusable',
      nonEmpty('--audit-key'),
    )
    .option('--audit-clear-paths', 'store paths in clear in the ledger (default: salted hashes)', false)
    .option(
      '--audit-max-bytes <n>',
      'rotate the ledger past this size (at least 4096)',
      intIn('--audit-max-bytes', 4096, Number.MAX_SAFE_INTEGER, 'a whole number of bytes, at least 4096'),
    )
    .option('--audit-keep <n>', 'rotated ledger segments kept', intIn('--audit-keep', 0, 10_000))
    .option(
      '--audit-min-age <days>',
      'never prune a ledger segment younger than this (default 30; the ledger grows and the status says degraded)',
      intIn('--audit-min-age', 0, 36_500, 'a whole number of days from 0 to 36500'),
    )
    .action(
      async (
        flags: Omit<ServeFlags, 'stateDir' | 'token' | 'opsToken'> & {
          stateDir?: string;
          tokenFile?: string;
          opsTokenFile?: string;
          storeFile?: string;
        },
      ) => {
        const { tokenFile, opsTokenFile, storeFile, ...o } = flags;
        // Commander checks GIT_BLINDER_STATE_DIR nowhere (it is read here, not declared on an option).
        if (
          o.stateDir === undefined &&
          io.env.GIT_BLINDER_STATE_DIR !== undefined &&
          io.env.GIT_BLINDER_STATE_DIR.trim() === ''
        ) {
          throw new CliError('GIT_BLINDER_STATE_DIR is set but empty; unset it or give a directory.', 2);
        }
        if (o.store !== undefined && storeFile !== undefined)
          throw new CliError('Give --store or --store-file, not both.', 2);
        // Read and checked here, before the server starts: a bad secret is a usage error and nothing is written.
        const token = await secretFrom(GITHUB_TOKEN, tokenFile, io.env, secret);
        const opsToken = await secretFrom(SERVE_OPS_TOKEN, opsTokenFile, io.env, secret);
        const store = o.store ?? (await secretFrom(STORE_URL, storeFile, io.env, storeUrl));
        if (opsToken !== undefined) checkOpsTokenLength(opsToken, 'given');
        else if (token !== undefined) checkOpsTokenLength(token, 'github');
        await io.serve({
          ...o,
          stateDir: stateDirFrom(o.stateDir, io.env),
          ...(token === undefined ? {} : { token }),
          ...(opsToken === undefined ? {} : { opsToken }),
          ...(store === undefined ? {} : { store }),
        });
      },
    );

  program
    .command('tools')
    .description('List the tools and where they are served.')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => printTools(io.out, o.json));

  ops(
    program.command('status').description('Show the running server: uptime, sessions, upstream health and rate limit.'),
  ).action(async (o: OpsOptions) => operator.status(await clientFor(o), io.out, o.json));

  const repos = program.command('repos').description('Repositories the server can reach (operator discovery).');
  ops(repos.command('list').description('List repositories.')).action(async (o: OpsOptions) =>
    operator.reposList(await clientFor(o), io.out, o.json),
  );

  const branches = program
    .command('branches')
    .description('Branches of a repository (operator discovery, never offered to agents).');
  ops(
    branches
      .command('list')
      .description('List branches of a repository.')
      .requiredOption('--repo <repo>', 'owner/name or local path'),
  ).action(async (o: OpsOptions & { repo: string }) =>
    operator.branchesList(await clientFor(o), io.out, repoArg(o.repo), o.json),
  );

  program
    .command('stdio')
    .description('A stdio MCP server forwarding to a running daemon, for clients that only launch stdio servers.')
    .requiredOption('--perimeter <id>', 'perimeter to connect to')
    .option('--branch <name>', 'allowlisted branch (default: the default branch)')
    .option('--url <url>', 'daemon URL', io.env.GIT_BLINDER_URL ?? DEFAULT_URL)
    .option(
      '--key-file <file>',
      'file (mode 0600) holding the agent key (default: GIT_BLINDER_AGENT_KEY)',
      nonEmpty('--key-file'),
    )
    .addOption(refusedSecret('--key', 'an agent key', AGENT_KEY))
    .action(async (o: { perimeter: string; branch?: string; url: string; keyFile?: string }) => {
      // An empty GIT_BLINDER_AGENT_KEY means none (the bridge then says how to give one).
      const key = await secretFrom(AGENT_KEY, o.keyFile, io.env.GIT_BLINDER_AGENT_KEY === '' ? {} : io.env, secret);
      await io.stdio({
        url: o.url,
        perimeter: o.perimeter,
        ...(o.branch ? { branch: o.branch } : {}),
        ...(key ? { key } : {}),
      });
    });

  // `audit … --store`: the store's copy of every instance's chain (issue 21). The URL comes as the other commands take
  // it: GIT_BLINDER_STORE or --store-file (a password never on the command line), or --store <url> without one.
  const storeOptions = (cmd: Command) =>
    cmd
      .addOption(
        new Option(
          '--store [url]',
          "read every instance's entries from the shared store instead of local files: the URL from GIT_BLINDER_STORE or --store-file, or given here without a password",
        ).argParser(storeFlag),
      )
      .option(
        '--store-file <file>',
        'file (mode 0600) holding the postgres:// URL; implies --store',
        nonEmpty('--store-file'),
      );
  const storeFrom = async (o: { store?: string | true; storeFile?: string }): Promise<string | undefined> => {
    if (o.store === undefined && o.storeFile === undefined) return undefined;
    if (typeof o.store === 'string') {
      if (o.storeFile !== undefined) throw new CliError('Give --store <url> or --store-file, not both.', 2);
      return o.store;
    }
    const url = await secretFrom(STORE_URL, o.storeFile, io.env, storeUrl);
    if (url === undefined)
      throw new CliError(
        '--store needs the store URL: set GIT_BLINDER_STORE, or put it in a file only you can read and pass --store-file <file>.',
        2,
      );
    return url;
  };
  const withCopy = async <T>(url: string, fn: (copy: AuditCopy) => Promise<T>): Promise<T> => {
    const opened = await openCopyForCli(url);
    try {
      return await fn(opened.copy);
    } finally {
      await opened.close().catch(() => undefined);
    }
  };

  const audit = program
    .command('audit')
    .description("Read and verify the audit ledger (offline, on the files; or every instance's copy with --store).");
  storeOptions(audit.command('verify [file]'))
    .description(
      'Check sequence, hash chain, checkpoints and signatures. Exit 0 intact, 3 broken or tampered, 2 usage or no such file.',
    )
    .option('--state-dir <dir>', 'state dir holding the ledger (used when no file is given)')
    .option(
      '--pubkey <file>',
      'public key (PEM) to check signatures, as <file> or <keyId>=<file> (repeatable)',
      collect,
    )
    .option('--require-signed', 'fail when an entry is not signed', false)
    .action(
      async (
        given: string | undefined,
        o: { stateDir?: string; pubkey?: string[]; requireSigned: boolean; store?: string | true; storeFile?: string },
      ) => {
        const url = await storeFrom(o);
        if (url !== undefined) {
          if (given !== undefined || o.stateDir !== undefined)
            throw new CliError("--store reads the store's copy: give no ledger file or --state-dir with it.", 2);
          const keys = await readPublicKeys(o.pubkey ?? []);
          if (typeof keys === 'string') throw new CliError(keys, 2);
          if (o.requireSigned && Object.keys(keys).length === 0)
            throw new CliError('--require-signed needs at least one --pubkey.', 2);
          const r = await withCopy(url, (copy) =>
            verifyStoreCopy(copy, url, { publicKeys: keys, requireSigned: o.requireSigned }),
          );
          for (const line of r.lines) io.out(clean(line, { lines: true }));
          if (r.exitCode !== 0) throw new CliError('', r.exitCode);
          return;
        }
        const file = given ?? defaultLedgerFile(stateDirFrom(o.stateDir, io.env));
        // A missing ledger is a wrong path or a server that never ran, not evidence of tampering (exit 3).
        if (!(await isFile(file)))
          throw new CliError(
            `no audit ledger at ${file}${given ? '' : ' (the default for this state dir; pass a file or --state-dir)'}.`,
            2,
          );
        const r = await runAuditVerify({ file, pubkey: o.pubkey ?? [], requireSigned: o.requireSigned });
        for (const line of r.lines) io.out(clean(line, { lines: true }));
        if (r.exitCode !== 0) throw new CliError('', r.exitCode);
      },
    );
  for (const [name, what] of [
    ['tail', 'Show the last entries.'],
    ['query', 'Show entries matching filters.'],
  ] as const) {
    storeOptions(audit.command(name))
      .description(what)
      .option(
        '--file <file>',
        "ledger file (default: <state dir>/audit/audit.jsonl); repeat it to read several instances' ledgers as one",
        collect,
      )
      .option('--state-dir <dir>', 'state dir holding the ledger (repeatable, one per instance)', collect)
      .option('--perimeter <id>', 'only this perimeter')
      .option('--agent <name>', "only this agent's calls (the agent id its key names)")
      .option('--since <time>', 'only entries at or after this ISO time')
      .option('--verdict <v>', 'allow, deny, invisible or error')
      .option('--tool <name>', 'only this tool')
      .option('-n, --limit <n>', 'at most this many (the newest)', int('--limit'), name === 'tail' ? 20 : undefined)
      .option('--json', 'one JSON entry per line')
      .action(
        async (o: {
          file?: string[];
          stateDir?: string[];
          perimeter?: string;
          agent?: string;
          since?: string;
          verdict?: string;
          tool?: string;
          limit?: number;
          json?: boolean;
          store?: string | true;
          storeFile?: string;
        }) => {
          const url = await storeFrom(o);
          if (url !== undefined) {
            if (o.file?.length || o.stateDir?.length)
              throw new CliError("--store reads the store's copy: give no --file or --state-dir with it.", 2);
            return withCopy(url, (copy) => printStoreAudit(copy, o, io.out));
          }
          // Several instances keep one chain each: every ledger named is read, and the entries are merged by time.
          const dirs = o.stateDir?.length ? o.stateDir : [undefined];
          const files = [
            ...(o.file ?? []),
            ...(o.file?.length && !o.stateDir?.length
              ? []
              : dirs.map((d) => defaultLedgerFile(stateDirFrom(d, io.env)))),
          ];
          return printAudit(files, o, io.out);
        },
      );
  }

  const perimeter = program.command('perimeter').description('Manage perimeters.');
  ops(
    perimeter
      .command('create <id>')
      .description('Create a perimeter and print its agent URL(s).')
      .requiredOption('--repo <repo>', 'owner/name, or a local repository path')
      .option('--read <glob>', 'readable paths (repeat the flag for each glob)', collect)
      .option('--write <glob>', 'writable paths (repeat the flag for each glob)', collect)
      .option('--tools <list>', 'comma-separated tool subset (default: the agent catalogue)')
      .option('--branch <name>', 'extra allowlisted branch (repeatable; must exist)', collect)
      .addOption(
        new Option(
          '--approval-push <mode>',
          'push_files lands at once (none) or waits for a person (required)',
        ).choices(['none', 'required']),
      ),
  ).action(
    async (
      id: string,
      o: OpsOptions & {
        repo: string;
        read?: string[];
        write?: string[];
        tools?: string;
        branch?: string[];
        approvalPush?: 'none' | 'required';
      },
    ) => {
      const body: Record<string, unknown> = { id, repo: repoArg(o.repo), read: o.read ?? [], write: o.write ?? [] };
      if (o.approvalPush) body.approval = { push_files: o.approvalPush };
      const tools = o.tools
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      if (tools) body.tools = tools;
      if (o.branch) body.branches = o.branch;
      for (const w of perimeterWarnings({ id, read: o.read, write: o.write, tools })) io.err(`warning: ${clean(w)}`);
      await operator.create(await clientFor(o), io.out, body, o.json);
    },
  );
  ops(perimeter.command('list').description('List perimeters.')).action(async (o: OpsOptions) =>
    operator.list(await clientFor(o), io.out, o.json),
  );
  ops(perimeter.command('show <id>').description('Show one perimeter.')).action(async (id: string, o: OpsOptions) =>
    operator.show(await clientFor(o), io.out, id, o.json),
  );
  ops(
    perimeter.command('delete <id>').description('Delete a perimeter (its agents lose access at their next call).'),
  ).action(async (id: string, o: OpsOptions) => operator.remove(await clientFor(o), io.out, id, o.json));

  const branch = perimeter.command('branch').description("Manage a perimeter's branch allowlist.");
  ops(branch.command('list <id>').description('List allowlisted branches.')).action(async (id: string, o: OpsOptions) =>
    operator.branchList(await clientFor(o), io.out, id, o.json),
  );
  ops(branch.command('add <id> <branch>').description('Allowlist a branch (it must exist upstream).')).action(
    async (id: string, b: string, o: OpsOptions) => operator.branchAdd(await clientFor(o), io.out, id, b, o.json),
  );
  ops(
    branch
      .command('remove <id> <branch>')
      .description('Remove a branch from the allowlist (never the default branch).'),
  ).action(async (id: string, b: string, o: OpsOptions) =>
    operator.branchRemove(await clientFor(o), io.out, id, b, o.json),
  );

  const key = perimeter.command('key').description("Manage a perimeter's agent keys (agents send them as a Bearer).");
  ops(
    key
      .command('issue <id>')
      .description(
        'Issue an agent key; it is printed once and stored only as a hash. The key names one agent of the perimeter.',
      )
      .option(
        '--agent <name>',
        'the agent id this key stands for ([a-z0-9-], unique in the perimeter; default key-<keyId>)',
      ),
  ).action(async (id: string, o: OpsOptions & { agent?: string }) =>
    operator.keyIssue(await clientFor(o), io.out, id, o.agent, o.json),
  );
  ops(key.command('list <id>').description('List key ids and the agents they name.')).action(
    async (id: string, o: OpsOptions) => operator.keyList(await clientFor(o), io.out, id, o.json),
  );
  ops(
    key
      .command('revoke <id> <keyIdOrAgent>')
      .description(
        "Revoke one agent's key (by key id or agent id): its open sessions are refused at their next request.",
      ),
  ).action(async (id: string, keyId: string, o: OpsOptions) =>
    operator.keyRevoke(await clientFor(o), io.out, id, keyId, o.json),
  );
  ops(perimeter.command('agents <id>').description("List a perimeter's agents: key, last use, open sessions.")).action(
    async (id: string, o: OpsOptions) => operator.agentsList(await clientFor(o), io.out, id, o.json),
  );

  const commits = perimeter
    .command('commits')
    .description('Filtered history, exactly as an agent of the perimeter sees it.');
  ops(
    commits
      .command('list <id>')
      .description('List visible commits.')
      .option('--branch <name>', 'allowlisted branch (default: the default branch)')
      .option('--path <path>', 'only commits touching this path')
      .option('--per-page <n>', 'commits per page, 1–100', intIn('--per-page', 1, 100, '1–100'))
      .option('--page <n>', 'page number, 1–10000', intIn('--page', 1, 10_000, '1–10000')),
  ).action(async (id: string, o: OpsOptions & { branch?: string; path?: string; perPage?: number; page?: number }) =>
    operator.commitsList(await clientFor(o), io.out, id, o, o.json),
  );
  ops(
    commits
      .command('show <id> <sha>')
      .description(
        'Show a commit cut to the perimeter (<sha>: full, or a prefix of at least 4 hex characters naming one visible commit).',
      )
      .option('--branch <name>', 'allowlisted branch')
      .option('--patch', "also print each visible file's diff, as the perimeter's agent gets it"),
  ).action(async (id: string, sha: string, o: OpsOptions & { branch?: string; patch?: boolean }) =>
    operator.commitsShow(await clientFor(o), io.out, id, sha, { branch: o.branch, patch: o.patch }, o.json),
  );

  worktreeCommands(program, ops, clientFor, { out: io.out, cwd: io.cwd ?? process.cwd() });
  proposalCommands(program, ops, (o) => clientFor(o as OpsOptions), io.out);

  pointToHelp(program, 'git-blinder');
  return program;
}

/**
 * After a usage error, every command prints one line pointing at its own help instead of the help itself: `serve
 * --help` is 40 lines, and the one-line error above it scrolled away (issue 25).
 */
function pointToHelp(cmd: Command, path: string): void {
  cmd.showHelpAfterError(`see \`${path} --help\``);
  for (const sub of cmd.commands) pointToHelp(sub, `${path} ${sub.name()}`);
}
