// References: read, list by prefix, create, update (fast-forward check applied atomically per ref), delete.
import { jsonBody, requireString, wrongType, type Ctx } from './context.js';
import { git, gitRaw } from './git.js';
import { objectType } from './objects.js';
import { GitHubError, json, pageParams, paginate, type Reply } from './reply.js';
import { isEmpty } from './resolve.js';
import { emptyRepo } from './routes-content.js';
import { linker } from './routes-repo.js';
import { refShape } from './shapes.js';
import type { RefRace, RepoEntry } from './state.js';
import { buildTree, writeBlob, writeCommit } from './treebuild.js';
import { validRefName } from './refname.js';

const DOCS = {
  get: 'https://docs.github.com/rest/git/refs#get-a-reference',
  matching: 'https://docs.github.com/rest/git/refs#list-matching-references',
  create: 'https://docs.github.com/rest/git/refs#create-a-reference',
  update: 'https://docs.github.com/rest/git/refs#update-a-reference',
  delete: 'https://docs.github.com/rest/git/refs#delete-a-reference',
};

interface RefRow {
  ref: string;
  sha: string;
  type: string;
}

async function refsUnder(dir: string, prefix: string): Promise<RefRow[]> {
  const out = await git(dir, [
    'for-each-ref',
    '--sort=refname',
    '--format=%(refname)%00%(objectname)%00%(objecttype)',
    'refs/heads',
    'refs/tags',
  ]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [ref = '', sha = '', type = ''] = l.split('\0');
      return { ref, sha, type };
    })
    .filter((r) => r.ref.startsWith(prefix));
}

/** The short form `heads/x` / `tags/x` the Git refs API takes in paths; null for anything else. */
function qualify(ref: string): string | null {
  return /^(heads|tags)\/./.test(ref) ? `refs/${ref}` : null;
}

/** GET /repos/{o}/{r}/git/ref/{ref} (and the legacy GET git/refs/{ref}, which may answer a prefix list). */
export async function getRef(ctx: Ctx, r: RepoEntry, ref: string, legacy: boolean): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.get);
  const full = qualify(ref);
  if (!full) throw new GitHubError(404, 'Not Found', DOCS.get);
  const rows = await refsUnder(r.dir, full);
  const exact = rows.find((row) => row.ref === full);
  if (exact) return json(200, refShape(ctx.s, r, exact.ref, exact.sha, exact.type));
  const under = rows.filter((row) => row.ref.startsWith(`${full}/`) || (legacy && row.ref.startsWith(full)));
  if (legacy && under.length)
    return json(
      200,
      under.map((row) => refShape(ctx.s, r, row.ref, row.sha, row.type)),
    );
  throw new GitHubError(404, 'Not Found', DOCS.get);
}

/** GET /repos/{o}/{r}/git/matching-refs/{ref} */
export async function matchingRefs(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.matching);
  const rows = await refsUnder(r.dir, `refs/${ref}`);
  const page = paginate(rows, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    page.items.map((row) => refShape(ctx.s, r, row.ref, row.sha, row.type)),
    page.headers,
  );
}

/** Per-ref critical sections (locks live in the emulator's state): one check-and-set at a time per (repository, ref). */
async function withRefLock<T>(ctx: Ctx, key: string, fn: () => Promise<T>): Promise<T> {
  const locks = ctx.s.refLocks;
  const prev = locks.get(key) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  const tail = next.catch(() => undefined);
  locks.set(key, tail);
  try {
    return await next;
  } finally {
    if (locks.get(key) === tail) locks.delete(key);
  }
}

async function currentSha(dir: string, full: string): Promise<string | null> {
  const r = await gitRaw(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', full]);
  return r.code === 0 ? r.stdout.toString('utf8').trim() : null;
}

/** Someone else's push, injected by the fault controller just before a ref update is checked. */
async function applyRace(r: RepoEntry, full: string, race: RefRace): Promise<void> {
  const head = await currentSha(r.dir, full);
  if (!head) return;
  const edits = await Promise.all(
    Object.entries(race.files).map(async ([path, content]) =>
      content === null
        ? { path, sha: null }
        : { path, mode: '100644', sha: await writeBlob(r.dir, Buffer.from(content)) },
    ),
  );
  const built = await buildTree(r.dir, `${head}^{tree}`, edits);
  if (!built.ok) throw new Error(`moveRefBeforeUpdate: ${built.path} does not exist on ${race.branch}`);
  const who = { name: 'Someone Else', email: 'someone-else@example.test', date: new Date() };
  const sha = await writeCommit(r.dir, {
    tree: built.sha,
    parents: [head],
    message: race.message,
    author: who,
    committer: who,
  });
  await git(r.dir, ['update-ref', full, sha, head]);
}

/** PATCH /repos/{o}/{r}/git/refs/{ref} */
export async function updateRef(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  const body = jsonBody(ctx, DOCS.update);
  const sha = requireString(body, 'sha', DOCS.update).toLowerCase();
  const force = body.force ?? false;
  if (typeof force !== 'boolean') throw wrongType('force', force, 'a boolean', DOCS.update);
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.update);
  const full = qualify(ref);
  if (!full) throw new GitHubError(422, 'Reference does not exist', DOCS.update);
  return withRefLock(ctx, `${r.dir}\0${full}`, async () => {
    const raceAt = ctx.s.races.findIndex(
      (x) => x.repo.toLowerCase() === r.fullName.toLowerCase() && `refs/heads/${x.branch}` === full,
    );
    if (raceAt >= 0) {
      const [race] = ctx.s.races.splice(raceAt, 1);
      if (race) await applyRace(r, full, race);
    }
    const current = await currentSha(r.dir, full);
    if (!current) throw new GitHubError(422, 'Reference does not exist', DOCS.update);
    const type = await objectType(r, sha);
    if (type === null || (full.startsWith('refs/heads/') && type !== 'commit'))
      throw new GitHubError(422, 'Object does not exist', DOCS.update);
    if (!force && current !== sha) {
      const ff = await gitRaw(r.dir, ['merge-base', '--is-ancestor', current, sha]);
      if (ff.code !== 0) throw new GitHubError(422, 'Update is not a fast forward', DOCS.update);
    }
    // Compare-and-set in git as well, so a writer outside the emulator cannot slip in between.
    const cas = await gitRaw(r.dir, ['update-ref', full, sha, current]);
    if (cas.code !== 0) throw new GitHubError(422, 'Update is not a fast forward', DOCS.update);
    return json(200, refShape(ctx.s, r, full, sha, type));
  });
}

/** POST /repos/{o}/{r}/git/refs */
export async function createRef(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const body = jsonBody(ctx, DOCS.create);
  const ref = requireString(body, 'ref', DOCS.create);
  const sha = requireString(body, 'sha', DOCS.create).toLowerCase();
  if (!ref.startsWith('refs/') || ref.split('/').length < 3) {
    throw new GitHubError(422, 'Reference name must contain at least three slash-separated components.', DOCS.create);
  }
  if (!validRefName(ref)) throw new GitHubError(422, `${ref} is not a valid ref name.`, DOCS.create);
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.create);
  const type = await objectType(r, sha);
  if (type === null) throw new GitHubError(422, 'Object does not exist', DOCS.create);
  return withRefLock(ctx, `${r.dir}\0${ref}`, async () => {
    if (await currentSha(r.dir, ref)) throw new GitHubError(422, 'Reference already exists', DOCS.create);
    // An empty old value means "must not exist yet"; a directory/file clash (a vs a/b) fails here too.
    const made = await gitRaw(r.dir, ['update-ref', ref, sha, '']);
    if (made.code !== 0) throw new GitHubError(422, 'Reference update failed', DOCS.create);
    const shape = refShape(ctx.s, r, ref, sha, type === 'tag' ? 'tag' : type);
    return json(201, shape, { location: String(shape.url) });
  });
}

/** DELETE /repos/{o}/{r}/git/refs/{ref} */
export async function deleteRef(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.delete);
  const full = qualify(ref);
  if (!full) throw new GitHubError(422, 'Reference does not exist', DOCS.delete);
  return withRefLock(ctx, `${r.dir}\0${full}`, async () => {
    const current = await currentSha(r.dir, full);
    if (!current) throw new GitHubError(422, 'Reference does not exist', DOCS.delete);
    await git(r.dir, ['update-ref', '-d', full, current]);
    return { kind: 'empty', status: 204 };
  });
}
