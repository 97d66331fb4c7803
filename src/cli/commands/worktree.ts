// `git-blinder worktree add|list <perimeter>`: working trees of a perimeter's repository, through /api like every
// operator command. A branch checked out in one of them gives its agents the workspace tools.
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { WorktreeRow } from '../../http/api/schema.js';
import type { ApiClient } from '../client.js';
import type { OpsOptions } from '../operator.js';
import { clean, jsonText, table } from '../table.js';

type Out = (line: string) => void;

const print = (out: Out, json: boolean | undefined, value: unknown, human: () => string) =>
  out(json ? jsonText(value, 2) : clean(human(), { lines: true }));

/** Where a worktree goes when `--path` is not given: beside the repository, named after it and the branch. */
export function defaultWorktreePath(repo: string, branch: string): string {
  return join(dirname(repo), `${basename(repo)}-${branch.replace(/[^A-Za-z0-9._-]+/g, '-')}`);
}

const rows = (ws: readonly WorktreeRow[]) =>
  table(
    ['BRANCH', 'HEAD', 'WORKSPACE TOOLS', 'PATH'],
    ws.map((w) => [
      w.branch ?? '(detached)',
      w.head?.slice(0, 12) ?? '-',
      w.workspace_tools ? 'yes' : 'no',
      `${w.path}${w.main ? ' (main)' : ''}${w.locked ? ' (locked)' : ''}`,
    ]),
  );

/** The worktree commands' actions (separate from commander so tests can call them). */
export const worktreeOps = {
  async list(c: ApiClient, out: Out, id: string, json?: boolean) {
    const r = await c.call('GET /perimeters/:id/worktrees', `/perimeters/${encodeURIComponent(id)}/worktrees`);
    print(out, json, r, () => rows(r.worktrees));
  },
  async add(c: ApiClient, out: Out, id: string, branch: string, path: string | undefined, cwd: string, json?: boolean) {
    let where = path === undefined ? undefined : isAbsolute(path) ? path : resolve(cwd, path);
    if (where === undefined) {
      const p = await c.call('GET /perimeters/:id', `/perimeters/${encodeURIComponent(id)}`);
      where = defaultWorktreePath(p.perimeter.repo, branch);
    }
    const r = await c.call('POST /perimeters/:id/worktrees', `/perimeters/${encodeURIComponent(id)}/worktrees`, {
      branch,
      path: where,
    });
    print(
      out,
      json,
      r,
      () =>
        `checked out ${branch} at ${r.worktree.path}\nagents on ${id}/${branch} now get the workspace tools (new sessions)`,
    );
  },
};

/** Registers `worktree add` and `worktree list` on the program. */
export function worktreeCommands(
  program: Command,
  ops: (cmd: Command) => Command,
  clientFor: (o: OpsOptions) => Promise<ApiClient>,
  io: { out: Out; cwd: string },
): void {
  const wt = program
    .command('worktree')
    .description("Working trees of a perimeter's repository (agents on a checked-out branch get the workspace tools).");
  ops(
    wt
      .command('add <perimeter> <branch>')
      .description("Check out an allowlisted branch in a new linked working tree of the perimeter's repository.")
      .option('--path <path>', 'where to create it (default: beside the repository, "<repo>-<branch>")'),
  ).action(async (id: string, branch: string, o: OpsOptions & { path?: string }) =>
    worktreeOps.add(await clientFor(o), io.out, id, branch, o.path, io.cwd, o.json),
  );
  ops(
    wt
      .command('list <perimeter>')
      .description("List the working trees of the perimeter's repository and which branches get the workspace tools."),
  ).action(async (id: string, o: OpsOptions) => worktreeOps.list(await clientFor(o), io.out, id, o.json));
}
