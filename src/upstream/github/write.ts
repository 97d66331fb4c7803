// One atomic commit through the Git Data API: blobs → tree on base_tree → commit → fast-forward-only ref update.
// Objects created before the ref moves are unreachable until it does, so a failure never leaves a partial write.
// When the branch moved underneath, the tree is rebuilt on the new head only if none of our paths changed there.
import type { WriteRequest, WriteResult, WrittenFile } from '../types.js';
import { charged, cleanPath, serial, type Ctx, type RepoRef } from './context.js';
import { failure, githubMessage, isHttpFailure, translate } from './errors.js';
import { changedPaths } from './history.js';
import { branchHead, gitCommit } from './refs.js';
import { lookupPath } from './tree.js';
import { changedTreePaths } from './treediff.js';

const MAX_REBUILDS = 5;
/** The committer of every write, and its author when the caller names none (as the local adapter does). */
export const COMMITTER = { name: 'git-blinder', email: 'git-blinder@localhost' } as const;

interface TreeItem {
  path: string;
  mode: '100644' | '100755' | '040000' | '160000' | '120000';
  type: 'blob' | 'tree' | 'commit';
  sha: string | null;
}

function checkPath(path: string): string {
  const p = cleanPath(path);
  const bad = !p || p !== path || p.split('/').some((s) => s === '' || s === '.' || s === '..' || s === '.git');
  if (bad) throw failure('invalid', `Not a valid file path: ${path}`);
  return p;
}

function overlaps(a: string, b: string): boolean {
  return a === '' || b === '' || a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function isNotFastForward(err: unknown): boolean {
  return isHttpFailure(err) && err.status === 422 && /fast.?forward/i.test(githubMessage(err) || err.message);
}

/** Builds the tree entries for `writes`/`deletes` over `baseTree`; deleting what is not a file there is a no-op. */
async function treeItems(
  ctx: Ctx,
  r: RepoRef,
  baseTree: string,
  blobs: ReadonlyMap<string, string>,
  deletes: readonly string[],
): Promise<TreeItem[]> {
  // Deletions first: a file written where the request also empties a directory must not find its files gone already.
  const items: TreeItem[] = [];
  for (const path of deletes) {
    const existing = await lookupPath(ctx, r, baseTree, path);
    // Directories are not deleted wholesale: they may hold paths the caller was never allowed to judge.
    if (!existing || existing.type === 'tree') continue;
    const mode = (['100644', '100755', '160000', '120000'] as const).find((m) => m === existing.mode) ?? '100644';
    items.push({ path, mode, type: existing.type === 'commit' ? 'commit' : 'blob', sha: null });
  }
  for (const [path, sha] of blobs) {
    const existing = await lookupPath(ctx, r, baseTree, path);
    items.push({ path, mode: existing?.mode === '100755' ? '100755' : '100644', type: 'blob', sha });
  }
  return items;
}

/** Commits `request` on `branch` as one commit, compare-and-swap on the branch head. */
export async function commitFiles(
  ctx: Ctx,
  r: RepoRef,
  branch: string,
  request: WriteRequest,
  redact: (s: string) => string,
): Promise<WriteResult> {
  const writes = new Map<string, { content: string; encoding: 'utf-8' | 'base64' }>();
  for (const f of request.files) writes.set(checkPath(f.path), { content: f.content, encoding: f.encoding });
  const deletes = [...new Set(request.deletes.map(checkPath))].filter((p) => !writes.has(p));
  for (const p of writes.keys()) {
    const parts = p.split('/');
    if (parts.slice(1).some((_, i) => writes.has(parts.slice(0, i + 1).join('/')))) {
      throw failure('invalid', `Cannot write ${p}: a file and a directory cannot share a path.`);
    }
  }

  await branchHead(ctx, r, branch); // an unknown branch fails before anything is created
  // Blobs do not depend on the base: create them once (outside the branch queue), reuse them on every rebuild.
  const blobs = new Map<string, string>();
  const written: WrittenFile[] = [];
  for (const [path, f] of writes) {
    const res = await ctx.octokit.rest.git.createBlob({
      ...charged(ctx),
      owner: r.owner,
      repo: r.repo,
      content: f.content,
      encoding: f.encoding,
    });
    blobs.set(path, res.data.sha);
    const size = f.encoding === 'base64' ? Buffer.from(f.content, 'base64').byteLength : Buffer.byteLength(f.content);
    written.push({ path, sha: res.data.sha, size });
  }
  const landed = await serial(ctx, `write:${r.key}:${branch}`, () =>
    land(ctx, r, branch, request, blobs, deletes, redact),
  );
  return { ...landed, files: written };
}

/** True when the commits from `from` to `to` changed one of `paths` (or cannot be told apart: a rewrite, a capped list). */
async function movedSince(
  ctx: Ctx,
  r: RepoRef,
  from: string,
  to: string,
  paths: readonly string[],
): Promise<{ touched: boolean; headTree: string | undefined }> {
  const changes = await changedPaths(ctx, r, from, to);
  const touched =
    !changes.complete || changes.status !== 'ahead' || changes.paths.some((c) => paths.some((p) => overlaps(c, p)));
  return { touched, headTree: changes.headTree };
}

/** Tree → commit → fast-forward, rebuilt (bounded) on a head that moved without touching our paths. */
async function land(
  ctx: Ctx,
  r: RepoRef,
  branch: string,
  request: WriteRequest,
  blobs: ReadonlyMap<string, string>,
  deletes: readonly string[],
  redact: (s: string) => string,
): Promise<Omit<WriteResult, 'files'>> {
  // Paths whose change since the content was computed refuses the write (the caller's base, and always our own).
  const pushed = [...blobs.keys(), ...deletes, ...(request.base?.unchanged ?? [])];
  let head = await branchHead(ctx, r, branch);
  if (request.base !== undefined && request.base.head !== head) {
    if ((await movedSince(ctx, r, request.base.head, head, pushed)).touched) {
      throw failure(
        'conflict',
        `Branch ${branch} moved since the write was computed and the new commits change the same files; nothing was written. Read them again and retry.`,
      );
    }
  }
  let baseTree = (await gitCommit(ctx, r, head)).tree;
  // Computed once: a rebuild only happens when none of these paths changed, so the entries stay right.
  const items = await treeItems(ctx, r, baseTree, blobs, deletes);
  for (let attempt = 0; ; attempt++) {
    const tree =
      items.length === 0
        ? baseTree // nothing to change: still commit, on the same tree
        : (
            await ctx.octokit.rest.git.createTree({
              ...charged(ctx),
              owner: r.owner,
              repo: r.repo,
              base_tree: baseTree,
              tree: items,
            })
          ).data.sha;
    // The API replaces a directory under a written file (and a file above one) without a word: judge what the new
    // tree really changes before the ref moves.
    if (request.admit && !request.admit(await changedTreePaths(ctx, r, baseTree, tree))) {
      throw failure('invalid', 'The write was refused: it would change paths the caller did not admit.');
    }
    const commit = await ctx.octokit.rest.git.createCommit({
      ...charged(ctx),
      owner: r.owner,
      repo: r.repo,
      message: request.message,
      tree,
      parents: [head],
      author: request.author ? { name: request.author.name, email: request.author.email } : { ...COMMITTER },
      committer: { ...COMMITTER },
    });
    const sha = commit.data.sha;
    try {
      await ctx.octokit.rest.git.updateRef({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        ref: `heads/${branch}`,
        sha,
        force: false,
      });
      return { sha, branch, parent: head, retries: attempt };
    } catch (err) {
      if (isHttpFailure(err) && err.status === 422 && /reference does not exist/i.test(githubMessage(err))) {
        throw failure('not_found', `Branch ${branch} not found`);
      }
      if (!isNotFastForward(err)) {
        // The update may have landed before the connection failed: a head equal to our commit is a success. (Known
        // wart: an update that lands only after this check is reported unavailable though it succeeded.)
        if (
          translate(err, redact).code === 'unavailable' &&
          (await branchHead(ctx, r, branch).catch(() => '')) === sha
        ) {
          return { sha, branch, parent: head, retries: attempt };
        }
        throw err;
      }
    }
    // The branch moved. Rebuild on the new head only if the commits in between left every path of ours alone.
    const moved = await branchHead(ctx, r, branch);
    // A retried PATCH whose first attempt had landed reads as not-a-fast-forward: the head is our commit.
    if (moved === sha) return { sha, branch, parent: head, retries: attempt };
    if (attempt + 1 > MAX_REBUILDS) {
      throw failure('conflict', `Branch ${branch} kept moving during the write; nothing was written. Retry later.`);
    }
    if (moved === head) continue; // a stale replica answered; try again
    const { touched, headTree } = await movedSince(ctx, r, head, moved, pushed);
    if (touched) {
      throw failure(
        'conflict',
        `Branch ${branch} moved during the write and the new commits change the same files; nothing was written. Read them again and retry.`,
      );
    }
    ctx.log('info', 'branch moved during a write; rebuilding on the new head', { branch, attempt: attempt + 1 });
    head = moved;
    baseTree = headTree ?? (await gitCommit(ctx, r, moved)).tree;
  }
}
