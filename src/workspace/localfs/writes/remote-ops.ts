// Creating a branch and pushing the bound branch. A push goes to the branch's configured upstream only, on a local
// remote (a path or file:// URL: every other protocol stays disabled), never forced, with an explicit refspec so the
// remote's push, mirror and receive-pack settings cannot widen it or name a program.
import { failed, git, nulRecords, unexpected, wsFail, wsOk, type Tree } from './git.js';
import { declined } from './file-ops.js';
import { takePoint } from './points.js';
import { branchId, checkBranch, resolveCommit } from './refs.js';
import type { WriteOutcome } from '../../writes.js';
import type { WsResult } from '../../types.js';

type Outcome = WsResult<WriteOutcome>;

/** Creates `name` at `from` (a branch or full id); declined when it exists. */
export async function branchOp(tree: Tree, name: string, from: string): Promise<Outcome> {
  const valid = await checkBranch(tree, name);
  if (!valid.ok) return valid;
  const existing = await branchId(tree, name);
  if (!existing.ok) return existing;
  if (existing.value !== undefined) return declined('exists', 'A branch of that name exists.');
  const start = await resolveCommit(tree, from);
  if (!start.ok) return start;
  const point = await takePoint(tree, { op: 'branch', branch: name, previousHead: null, captured: [] });
  if (!point.ok) return point;
  const zero = '0'.repeat(start.value.length);
  const run = await git(tree, ['update-ref', '-m', 'git-blinder: branch', `refs/heads/${name}`, start.value, zero]);
  if (failed(run)) return run;
  if (run.code !== 0) return declined('exists', 'A branch of that name exists.');
  return wsOk({ kind: 'applied', op: 'branch', head: start.value, previousHead: null, restorePoint: point.value });
}

/** Where the bound branch pushes: its upstream's remote name, remote branch and that remote's URLs. */
export interface PushTarget {
  readonly remote: string;
  readonly ref: string;
  /** The remote-tracking ref that mirrors it locally (may not exist yet). */
  readonly tracking: string;
}

const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** True for a URL git reaches over the file protocol: an absolute path or file:// (no host, no transport helper). */
function isLocalUrl(url: string): boolean {
  return url.startsWith('/') || url.startsWith('file:///');
}

/** Reads one configuration value exactly; undefined when unset. */
async function configValue(tree: Tree, key: string): Promise<WsResult<string | undefined>> {
  const run = await git(tree, ['config', '--get', '--null', key]);
  if (failed(run)) return run;
  if (run.code === 1) return wsOk(undefined);
  if (run.code !== 0) return unexpected(tree, run, 'reading the upstream');
  return wsOk(nulRecords(run.stdout)[0]);
}

/** The bound branch's upstream on a local remote; a decline message when there is none. */
export async function pushTarget(tree: Tree): Promise<WsResult<PushTarget | string>> {
  const remote = await configValue(tree, `branch.${tree.branch}.remote`);
  if (!remote.ok) return remote;
  const merge = await configValue(tree, `branch.${tree.branch}.merge`);
  if (!merge.ok) return merge;
  if (
    remote.value === undefined ||
    merge.value === undefined ||
    !REMOTE_NAME.test(remote.value) ||
    !merge.value.startsWith('refs/heads/')
  ) {
    return wsOk('The branch has no upstream branch on a remote.');
  }
  const urls = await git(tree, ['remote', 'get-url', '--push', '--all', remote.value]);
  if (failed(urls)) return urls;
  const list =
    urls.code === 0
      ? urls.stdout
          .toString('utf8')
          .split('\n')
          .filter((s) => s !== '')
      : [];
  if (list.length === 0 || !list.every(isLocalUrl))
    return wsOk('Only an upstream on a local remote (a path or file:// URL) can be pushed to.');
  const short = merge.value.slice('refs/heads/'.length);
  return wsOk({ remote: remote.value, ref: merge.value, tracking: `refs/remotes/${remote.value}/${short}` });
}

/** Pushes the bound branch to its upstream, fast-forward only. */
export async function pushOp(tree: Tree, head: string): Promise<Outcome> {
  const target = await pushTarget(tree);
  if (!target.ok) return target;
  if (typeof target.value === 'string') return declined('no_upstream', target.value);
  const t = target.value;
  const run = await git(
    tree,
    [
      'push',
      '--porcelain',
      '--no-verify',
      '--no-follow-tags',
      '--no-signed',
      '--no-atomic',
      '--recurse-submodules=no',
      '--receive-pack=git-receive-pack',
      '--',
      t.remote,
      `refs/heads/${tree.branch}:${t.ref}`,
    ],
    { config: ['-c', 'protocol.file.allow=always'] },
  );
  if (failed(run)) return run;
  const out = run.stdout.toString('utf8');
  const line = out.split('\n').find((l) => l.includes(`refs/heads/${tree.branch}:${t.ref}`));
  const flag = line?.[0];
  if (run.code === 0 && flag === '=') return declined('unchanged', 'The upstream already has this commit.');
  if (run.code === 0) return wsOk({ kind: 'applied', op: 'push', head, previousHead: head, restorePoint: null });
  if (flag === '!') {
    tree.log('info', 'push rejected', { line });
    return /non-fast-forward|fetch first|stale info/.test(line ?? '')
      ? declined('not_fast_forward', 'The upstream has commits this branch does not; merge or rebase first.')
      : wsFail('unavailable', 'The remote rejected the push.');
  }
  return unexpected(tree, run, 'pushing');
}
