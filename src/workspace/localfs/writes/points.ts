// Restore points: one ref per point under refs/git-blinder/restore/, outside refs/heads and refs/tags so no listing
// an agent can reach shows it and the local upstream refuses to resolve it. The ref names a commit whose first parent
// is the branch's previous head (keeping it alive) and whose message carries the point's facts as one JSON line; a
// point that captured paths is the stash-like working-tree commit of files.ts (second parent: the index commit).
import { randomBytes } from 'node:crypto';
import { capture, commitTree } from './files.js';
import { failed, git, gitOk, unexpected, wsFail, wsOk, type Tree } from './git.js';
import type { RestorePoint, WriteOpKind } from '../../writes.js';
import type { WsResult } from '../../types.js';

/** The namespace restore points live in. */
export const RESTORE_NAMESPACE = 'refs/git-blinder/restore/';

const ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;
const OPS: ReadonlySet<string> = new Set([
  'commit',
  'patch',
  'discard',
  'merge',
  'rebase',
  'reset',
  'branch',
  'push',
  'restore',
]);

/** True for a well-formed restore point id (so a caller's string never becomes an arbitrary ref name). */
export function isPointId(id: string): boolean {
  return ID.test(id);
}

/** A fresh id: UTC time to the millisecond (so ids sort by age) and a random suffix. */
function newId(now: Date): string {
  const t = now.toISOString().replace(/[-:.]/g, '');
  return `${t.slice(0, 15)}${t.slice(15, 18)}Z-${randomBytes(4).toString('hex')}`;
}

/** What a new point records. `previousHead` null: the branch did not exist (nothing to capture then). */
export interface PointSpec {
  readonly op: WriteOpKind | 'restore';
  readonly branch: string;
  readonly previousHead: string | null;
  readonly captured: readonly string[];
}

/** The facts line of a point's commit message. */
function message(spec: PointSpec, createdAt: string): string {
  const facts = {
    v: 1,
    op: spec.op,
    branch: spec.branch,
    previousHead: spec.previousHead,
    captured: spec.captured,
    createdAt,
  };
  return `git-blinder restore point (${spec.op})\n\n${JSON.stringify(facts)}\n`;
}

/** Parses a point's commit message; undefined when it is not one of ours. */
function parse(id: string, text: string): RestorePoint | undefined {
  const line = text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  if (line === undefined) return undefined;
  let f: unknown;
  try {
    f = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof f !== 'object' || f === null) return undefined;
  const o = f as Record<string, unknown>;
  const captured = o['captured'];
  if (
    o['v'] !== 1 ||
    typeof o['op'] !== 'string' ||
    !OPS.has(o['op']) ||
    typeof o['branch'] !== 'string' ||
    !(o['previousHead'] === null || typeof o['previousHead'] === 'string') ||
    !Array.isArray(captured) ||
    !captured.every((p) => typeof p === 'string') ||
    typeof o['createdAt'] !== 'string'
  ) {
    return undefined;
  }
  return {
    id,
    op: o['op'] as RestorePoint['op'],
    branch: o['branch'],
    previousHead: o['previousHead'] as string | null,
    captured: captured as string[],
    createdAt: o['createdAt'],
  };
}

/** Takes a restore point (capturing `spec.captured` when there are any) and returns its id. */
export async function takePoint(tree: Tree, spec: PointSpec, now: Date = new Date()): Promise<WsResult<string>> {
  const id = newId(now);
  const msg = message(spec, now.toISOString());
  let commit: WsResult<string>;
  if (spec.previousHead !== null && spec.captured.length > 0)
    commit = await capture(tree, spec.previousHead, spec.captured, msg);
  else if (spec.previousHead !== null)
    commit = await commitTree(tree, `${spec.previousHead}^{tree}`, [spec.previousHead], msg);
  else {
    const empty = await gitOk(tree, ['mktree'], 'writing a restore point', { input: '' });
    if (!empty.ok) return empty;
    commit = await commitTree(tree, empty.value.toString('utf8').trim(), [], msg);
  }
  if (!commit.ok) return commit;
  const zero = '0'.repeat(commit.value.length);
  const made = await gitOk(
    tree,
    ['update-ref', '-m', 'git-blinder: restore point', `${RESTORE_NAMESPACE}${id}`, commit.value, zero],
    'writing a restore point',
  );
  return made.ok ? wsOk(id) : made;
}

/** Removes a point that turned out not to be needed (the operation was declined before changing anything). */
export async function dropPoint(tree: Tree, id: string): Promise<void> {
  await git(tree, ['update-ref', '-d', `${RESTORE_NAMESPACE}${id}`]);
}

/** A point and the commit its ref names. */
export interface StoredPoint {
  readonly point: RestorePoint;
  readonly commit: string;
}

/** Every restore point of the repository, newest first (refs that do not parse as ours are skipped). */
export async function listPoints(tree: Tree): Promise<WsResult<StoredPoint[]>> {
  const run = await git(tree, [
    'for-each-ref',
    '--format=%(refname)%00%(objectname)%00%(contents)%00',
    RESTORE_NAMESPACE,
  ]);
  if (failed(run)) return run;
  if (run.code !== 0) return unexpected(tree, run, 'listing restore points');
  const parts = run.stdout.toString('utf8').split('\0');
  const out: StoredPoint[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const ref = parts[i]!.replace(/^\n/, '');
    const id = ref.slice(RESTORE_NAMESPACE.length);
    if (!ref.startsWith(RESTORE_NAMESPACE) || !isPointId(id)) continue;
    const point = parse(id, parts[i + 2]!);
    if (point) out.push({ point, commit: parts[i + 1]! });
  }
  return wsOk(out.sort((a, b) => (a.point.id < b.point.id ? 1 : -1)));
}

/** One point by id; `not_found` when there is none. */
export async function findPoint(tree: Tree, id: string): Promise<WsResult<StoredPoint>> {
  if (!isPointId(id)) return wsFail('not_found', 'No such restore point.');
  const all = await listPoints(tree);
  if (!all.ok) return all;
  const hit = all.value.find((p) => p.point.id === id);
  return hit ? wsOk(hit) : wsFail('not_found', 'No such restore point.');
}
