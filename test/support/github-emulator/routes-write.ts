// Git Data writes: blobs, trees (base_tree layering, inline content, `sha: null` deletions) and commits.
import { jsonBody, missing, requireString, wrongType, type Ctx } from './context.js';
import { lsTree } from './git.js';
import { commitInfo, objectType } from './objects.js';
import { GitHubError, json, type Reply } from './reply.js';
import { isEmpty } from './resolve.js';
import { emptyRepo, treeEntry } from './routes-content.js';
import { gitCommitShape, repoApi } from './shapes.js';
import type { RepoEntry } from './state.js';
import { buildTree, writeBlob, writeCommit, type Signature, type TreeEdit } from './treebuild.js';

const DOCS = {
  blob: 'https://docs.github.com/rest/git/blobs#create-a-blob',
  tree: 'https://docs.github.com/rest/git/trees#create-a-tree',
  commit: 'https://docs.github.com/rest/git/commits#create-a-commit',
};

const MODES = ['100644', '100755', '040000', '160000', '120000'] as const;
const TYPE_OF_MODE: Record<string, 'blob' | 'tree' | 'commit'> = {
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'blob',
  '040000': 'tree',
  '160000': 'commit',
};

/** POST /repos/{o}/{r}/git/blobs */
export async function createBlob(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const body = jsonBody(ctx, DOCS.blob);
  const content = requireString(body, 'content', DOCS.blob);
  const encoding = body.encoding ?? 'utf-8';
  if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') {
    throw new GitHubError(422, `Invalid request.\n\nencoding must be one of: utf-8, base64.`, DOCS.blob);
  }
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.blob);
  const bytes = encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
  const sha = await writeBlob(r.dir, bytes);
  const url = repoApi(ctx.s, r, `git/blobs/${sha}`);
  return json(201, { url, sha }, { location: url });
}

/** A path GitHub accepts inside a tree: relative, no empty, `.`, `..` or `.git` components. */
function validTreePath(p: string): boolean {
  return p.length > 0 && p.split('/').every((c) => c !== '' && c !== '.' && c !== '..' && c.toLowerCase() !== '.git');
}

/** POST /repos/{o}/{r}/git/trees */
export async function createTree(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const body = jsonBody(ctx, DOCS.tree);
  const entries = body.tree;
  if (entries === undefined) throw missing('tree', DOCS.tree);
  if (!Array.isArray(entries)) throw wrongType('tree', entries, 'an array', DOCS.tree);
  const baseTree = body.base_tree;
  if (baseTree !== undefined && baseTree !== null && typeof baseTree !== 'string')
    throw wrongType('base_tree', baseTree, 'a string', DOCS.tree);
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.tree);
  if (typeof baseTree === 'string' && (await objectType(r, baseTree.toLowerCase())) !== 'tree') {
    throw new GitHubError(422, 'base_tree is not a valid tree oid', DOCS.tree);
  }

  const edits: (TreeEdit | Promise<TreeEdit>)[] = [];
  for (const [i, raw] of entries.entries()) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw wrongType(`tree/items/${i}`, raw, 'an object', DOCS.tree);
    const e = raw as Record<string, unknown>;
    if (typeof e.path !== 'string') throw missing(`tree[${i}].path`, DOCS.tree);
    const path = e.path;
    if (!validTreePath(path)) throw new GitHubError(422, 'tree.path contains a malformed path component', DOCS.tree);
    const mode =
      typeof e.mode === 'string' ? e.mode : e.type === 'tree' ? '040000' : e.type === 'commit' ? '160000' : '100644';
    if (!(MODES as readonly string[]).includes(mode))
      throw wrongType(`tree/items/${i}/mode`, e.mode, 'one of 100644, 100755, 040000, 160000, 120000', DOCS.tree);
    const type = TYPE_OF_MODE[mode] ?? 'blob';
    if (e.type !== undefined && e.type !== type)
      throw new GitHubError(422, `tree.type ${String(e.type)} does not match tree.mode ${mode}`, DOCS.tree);
    const hasContent = typeof e.content === 'string';
    const sha = e.sha;
    if (hasContent && typeof sha === 'string')
      throw new GitHubError(
        422,
        'Must supply either tree.sha or tree.content. Request will be rejected if both are present.',
        DOCS.tree,
      );
    if (hasContent) {
      if (type !== 'blob') throw new GitHubError(422, 'tree.content can only be used with blobs', DOCS.tree);
      // Inline content becomes a blob; the writes run in parallel and are awaited before the tree is built.
      edits.push(
        writeBlob(r.dir, Buffer.from(e.content as string, 'utf8')).then((blobSha): TreeEdit => ({
          path,
          mode,
          sha: blobSha,
        })),
      );
    } else if (sha === null) {
      edits.push({ path, sha: null });
    } else if (typeof sha === 'string') {
      const lower = sha.toLowerCase();
      if (type !== 'commit' && (await objectType(r, lower)) !== type)
        throw new GitHubError(422, `tree.sha ${sha} is not a valid ${type}`, DOCS.tree);
      if (type === 'commit' && !/^[0-9a-f]{40}$/.test(lower))
        throw new GitHubError(422, `tree.sha ${sha} is not a valid commit`, DOCS.tree);
      edits.push({ path, mode, sha: lower });
    } else {
      throw new GitHubError(
        422,
        'Must supply either tree.sha or tree.content. Request will be rejected if both are present.',
        DOCS.tree,
      );
    }
  }
  const built = await buildTree(
    r.dir,
    typeof baseTree === 'string' ? baseTree.toLowerCase() : null,
    await Promise.all(edits),
  );
  if (!built.ok) throw new GitHubError(422, 'GitRPC::BadObjectState', DOCS.tree);
  const url = repoApi(ctx.s, r, `git/trees/${built.sha}`);
  const listing = await lsTree(r.dir, built.sha, false);
  return json(
    201,
    { sha: built.sha, url, tree: listing.map((e) => treeEntry(ctx, r, e)), truncated: false },
    { location: url },
  );
}

function signature(v: unknown, field: string, fallback: Signature): Signature {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'object' || Array.isArray(v)) throw wrongType(field, v, 'an object', DOCS.commit);
  const o = v as Record<string, unknown>;
  if (typeof o.name !== 'string') throw missing(`${field}.name`, DOCS.commit);
  if (typeof o.email !== 'string') throw missing(`${field}.email`, DOCS.commit);
  let date = fallback.date;
  if (o.date !== undefined) {
    if (typeof o.date !== 'string' || Number.isNaN(Date.parse(o.date)))
      throw wrongType(`${field}/date`, o.date, 'a date-time', DOCS.commit);
    date = new Date(o.date);
  }
  return { name: o.name, email: o.email, date };
}

/** POST /repos/{o}/{r}/git/commits */
export async function createCommit(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const body = jsonBody(ctx, DOCS.commit);
  const message = requireString(body, 'message', DOCS.commit);
  const tree = requireString(body, 'tree', DOCS.commit).toLowerCase();
  const parents = body.parents ?? [];
  if (!Array.isArray(parents) || parents.some((p) => typeof p !== 'string'))
    throw wrongType('parents', parents, 'an array of strings', DOCS.commit);
  const now = new Date();
  const me: Signature = { name: ctx.s.user.name, email: ctx.s.user.email, date: now };
  const author = signature(body.author, 'author', me);
  const committer = signature(body.committer, 'committer', author);
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.commit);
  if ((await objectType(r, tree)) !== 'tree') throw new GitHubError(422, 'Tree SHA does not exist', DOCS.commit);
  const parentShas = (parents as string[]).map((p) => p.toLowerCase());
  for (const p of parentShas) {
    if ((await objectType(r, p)) !== 'commit')
      throw new GitHubError(422, 'Parent SHA does not exist or is not a commit object', DOCS.commit);
  }
  const sha = await writeCommit(r.dir, { tree, parents: parentShas, message, author, committer });
  const shape = gitCommitShape(ctx.s, r, await commitInfo(r, sha));
  return json(201, shape, { location: String(shape.url) });
}
