// Trees, contents and blobs: the read side of files.
import { posix } from 'node:path';
import type { Ctx } from './context.js';
import { gitRaw, lsTree, type LsEntry } from './git.js';
import { entryAt, objectType, readBlob, resolveCommit, resolveTree } from './objects.js';
import { GitHubError, json, type Reply } from './reply.js';
import { defaultBranch, isEmpty } from './resolve.js';
import { encPath, repoApi, repoHtml, wrappedBase64 } from './shapes.js';
import type { RepoEntry } from './state.js';

const DOCS = {
  tree: 'https://docs.github.com/rest/git/trees#get-a-tree',
  contents: 'https://docs.github.com/rest/repos/contents#get-repository-content',
  blob: 'https://docs.github.com/rest/git/blobs#get-a-blob',
};

const MB = 1024 * 1024;
/** GitHub's directory-listing cap (no paging, no flag). */
const DIR_LIMIT = 1000;

/** The 409 GitHub sends for Git Data reads on a repository without commits. */
export function emptyRepo(docs: string): GitHubError {
  return new GitHubError(409, 'Git Repository is empty.', docs);
}

/** True when the Accept header asks for raw bytes. */
function wantsRaw(accept: string): boolean {
  return /application\/vnd\.github(\.v3)?\.raw/.test(accept);
}

function rawType(accept: string): string {
  return accept.includes('v3.raw')
    ? 'application/vnd.github.v3.raw; charset=utf-8'
    : 'application/vnd.github.raw; charset=utf-8';
}

/** GET /repos/{o}/{r}/git/trees/{tree_sha} */
export async function getTree(ctx: Ctx, r: RepoEntry, treeish: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.tree);
  const sha = await resolveTree(r, treeish);
  if (!sha) throw new GitHubError(404, 'Not Found', DOCS.tree);
  // Any value of `recursive`, even "false" or "0", asks for a recursive listing.
  const recursive = ctx.query.has('recursive');
  let entries = await lsTree(r.dir, sha, recursive);
  const truncated = recursive && entries.length > ctx.s.treeEntryLimit;
  if (truncated) entries = entries.slice(0, ctx.s.treeEntryLimit);
  return json(200, {
    sha,
    url: repoApi(ctx.s, r, `git/trees/${sha}`),
    tree: entries.map((e) => treeEntry(ctx, r, e)),
    truncated,
  });
}

/** One entry of a `git-tree` response. */
export function treeEntry(ctx: Ctx, r: RepoEntry, e: LsEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { path: e.path, mode: e.mode, type: e.type, sha: e.sha };
  if (e.type === 'blob') {
    out.size = e.size ?? 0;
    out.url = repoApi(ctx.s, r, `git/blobs/${e.sha}`);
  } else if (e.type === 'tree') {
    out.url = repoApi(ctx.s, r, `git/trees/${e.sha}`);
  }
  return out;
}

/** Where a file's bytes can be downloaded (the emulator's stand-in for raw.githubusercontent.com). */
export function downloadUrl(ctx: Ctx, r: RepoEntry, commit: string, path: string): string {
  return `${ctx.s.url}/_raw/${r.owner}/${r.name}/${commit}/${encPath(path)}`;
}

interface Where {
  r: RepoEntry;
  ref: string;
  commit: string;
}

function links(ctx: Ctx, w: Where, path: string, gitUrl: string | null, kind: 'blob' | 'tree') {
  const self = `${repoApi(ctx.s, w.r, `contents/${encPath(path)}`)}?ref=${encodeURIComponent(w.ref)}`;
  const html = repoHtml(ctx.s, w.r, `${kind}/${encPath(w.ref)}/${encPath(path)}`);
  return { url: self, git_url: gitUrl, html_url: html, _links: { self, git: gitUrl, html } };
}

async function submoduleUrl(dir: string, commit: string, path: string): Promise<string> {
  const r = await gitRaw(dir, ['config', '--blob', `${commit}:.gitmodules`, '--get-regexp', '^submodule\\..*\\.path$']);
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && line.slice(sp + 1) === path) {
      const key = `${line.slice(0, sp).replace(/\.path$/, '')}.url`;
      const u = await gitRaw(dir, ['config', '--blob', `${commit}:.gitmodules`, '--get', key]);
      return u.stdout.toString('utf8').trim();
    }
  }
  return '';
}

/** A directory listing entry (submodules are typed "file", as GitHub keeps them for compatibility). */
function dirEntry(ctx: Ctx, w: Where, e: LsEntry, path: string): Record<string, unknown> {
  const name = posix.basename(path);
  if (e.type === 'tree') {
    return {
      type: 'dir',
      size: 0,
      name,
      path,
      sha: e.sha,
      ...links(ctx, w, path, repoApi(ctx.s, w.r, `git/trees/${e.sha}`), 'tree'),
      download_url: null,
    };
  }
  if (e.type === 'commit') {
    return { type: 'file', size: 0, name, path, sha: e.sha, ...links(ctx, w, path, null, 'tree'), download_url: null };
  }
  return {
    type: e.mode === '120000' ? 'symlink' : 'file',
    size: e.size ?? 0,
    name,
    path,
    sha: e.sha,
    ...links(ctx, w, path, repoApi(ctx.s, w.r, `git/blobs/${e.sha}`), 'blob'),
    download_url: downloadUrl(ctx, w.r, w.commit, path),
  };
}

/** The JSON for a file, with content unless it is over 1 MB (then `encoding: "none"`, as GitHub does). */
async function fileObject(
  ctx: Ctx,
  w: Where,
  path: string,
  sha: string,
  content: Buffer,
): Promise<Record<string, unknown>> {
  if (content.length > 100 * MB) {
    throw new GitHubError(
      403,
      'This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API.',
      DOCS.contents,
      {
        errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }],
      },
    );
  }
  const big = content.length > MB;
  if (big && ctx.s.largeFileContents === 'forbidden') {
    throw new GitHubError(
      403,
      'This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.',
      DOCS.contents,
      { errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }] },
    );
  }
  return {
    type: 'file',
    encoding: big ? 'none' : 'base64',
    size: content.length,
    name: posix.basename(path),
    path,
    content: big ? '' : wrappedBase64(content),
    sha,
    ...links(ctx, w, path, repoApi(ctx.s, w.r, `git/blobs/${sha}`), 'blob'),
    download_url: downloadUrl(ctx, w.r, w.commit, path),
  };
}

/** GET /repos/{o}/{r}/contents/{path} */
export async function getContents(ctx: Ctx, r: RepoEntry, rawPathParam: string): Promise<Reply> {
  const [empty, defaultRef] = await Promise.all([isEmpty(r.dir), defaultBranch(r.dir)]);
  if (empty) throw new GitHubError(404, 'This repository is empty.', DOCS.contents);
  const ref = ctx.query.get('ref') || defaultRef;
  const commit = await resolveCommit(r, ref);
  if (!commit) throw new GitHubError(404, `No commit found for the ref ${ref}`, DOCS.contents);
  const w: Where = { r, ref, commit };
  const path = rawPathParam.replace(/^\/+|\/+$/g, '');
  const entry: LsEntry | null =
    path === ''
      ? { mode: '040000', type: 'tree', sha: (await resolveTree(r, commit)) ?? '', size: null, path: '' }
      : await entryAt(r, commit, path);
  if (!entry) throw new GitHubError(404, 'Not Found', DOCS.contents);

  if (entry.type === 'tree') {
    const children = (await lsTree(r.dir, entry.sha, false)).slice(0, DIR_LIMIT);
    const listing = children.map((c) => dirEntry(ctx, w, c, path ? `${path}/${c.path}` : c.path));
    if (ctx.accept.includes('application/vnd.github.object')) {
      return json(200, {
        type: 'dir',
        size: 0,
        name: posix.basename(path),
        path,
        sha: entry.sha,
        ...links(ctx, w, path, repoApi(ctx.s, r, `git/trees/${entry.sha}`), 'tree'),
        download_url: null,
        entries: listing,
      });
    }
    return json(200, listing);
  }
  if (entry.type === 'commit') {
    const url = await submoduleUrl(r.dir, commit, path);
    const onGitHub = /github\.com[/:]/.test(url);
    const l = links(ctx, w, path, onGitHub ? repoApi(ctx.s, r, `git/trees/${entry.sha}`) : null, 'tree');
    return json(200, {
      type: 'submodule',
      submodule_git_url: url,
      size: 0,
      name: posix.basename(path),
      path,
      sha: entry.sha,
      ...l,
      html_url: onGitHub ? l.html_url : null,
      _links: { ...l._links, html: onGitHub ? l._links.html : null },
      download_url: null,
    });
  }
  const bytes = await readBlob(r, entry.sha);
  if (entry.mode === '120000') {
    const target = bytes.toString('utf8');
    const resolved = posix.normalize(posix.join(posix.dirname(path), target));
    const pointee = !target.startsWith('/') && !resolved.startsWith('..') ? await entryAt(r, commit, resolved) : null;
    if (pointee && pointee.type === 'blob' && pointee.mode !== '120000') {
      // A link to a regular file in the repository answers with the target's content under the link's path and sha.
      const content = await readBlob(r, pointee.sha);
      if (wantsRaw(ctx.accept)) return { kind: 'raw', status: 200, body: content, contentType: rawType(ctx.accept) };
      return json(200, await fileObject(ctx, w, path, entry.sha, content));
    }
    if (wantsRaw(ctx.accept)) return { kind: 'raw', status: 200, body: bytes, contentType: rawType(ctx.accept) };
    return json(200, {
      type: 'symlink',
      target,
      size: bytes.length,
      name: posix.basename(path),
      path,
      sha: entry.sha,
      ...links(ctx, w, path, repoApi(ctx.s, r, `git/blobs/${entry.sha}`), 'blob'),
      download_url: downloadUrl(ctx, r, commit, path),
    });
  }
  if (wantsRaw(ctx.accept)) return { kind: 'raw', status: 200, body: bytes, contentType: rawType(ctx.accept) };
  return json(200, await fileObject(ctx, w, path, entry.sha, bytes));
}

/** GET /_raw/{o}/{r}/{commit}/{path}: the download_url target. */
export async function getRaw(r: RepoEntry, commit: string, path: string): Promise<Reply> {
  const sha = await resolveCommit(r, commit);
  const entry = sha ? await entryAt(r, sha, path) : null;
  if (!entry || entry.type !== 'blob')
    return { kind: 'raw', status: 404, body: Buffer.from('404: Not Found'), contentType: 'text/plain; charset=utf-8' };
  return { kind: 'raw', status: 200, body: await readBlob(r, entry.sha), contentType: 'text/plain; charset=utf-8' };
}

/** GET /repos/{o}/{r}/git/blobs/{file_sha} */
export async function getBlob(ctx: Ctx, r: RepoEntry, sha: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.blob);
  const lower = sha.toLowerCase();
  if ((await objectType(r, lower)) !== 'blob') throw new GitHubError(404, 'Not Found', DOCS.blob);
  const bytes = await readBlob(r, lower);
  if (bytes.length > 100 * MB)
    throw new GitHubError(403, 'This API returns blobs up to 100 MB in size.', DOCS.blob, {
      errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }],
    });
  if (wantsRaw(ctx.accept)) return { kind: 'raw', status: 200, body: bytes, contentType: rawType(ctx.accept) };
  return json(200, {
    sha: lower,
    node_id: `B_${Buffer.from(`${r.fullName}:${lower}`).toString('base64url').slice(0, 24)}`,
    size: bytes.length,
    url: repoApi(ctx.s, r, `git/blobs/${lower}`),
    content: wrappedBase64(bytes),
    encoding: 'base64',
  });
}
