// JSON shapes GitHub returns (users, repositories, commits, refs), built from git facts and the emulator's own URL.
import type { CommitInfo } from './git.js';
import type { EmulatedUser, EmulatorState, RepoEntry } from './state.js';

/** Percent-encodes each segment of a slash path, keeping the slashes. */
export function encPath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

/** API URL of something inside a repository: `${url}/repos/o/r/<rest>`. */
export function repoApi(s: EmulatorState, r: RepoEntry, rest = ''): string {
  return `${s.url}/repos/${r.owner}/${r.name}${rest ? `/${rest}` : ''}`;
}

/** Web URL of something inside a repository (served by nobody; it only has to be a URL that is not github.com). */
export function repoHtml(s: EmulatorState, r: RepoEntry, rest = ''): string {
  return `${s.url}/${r.owner}/${r.name}${rest ? `/${rest}` : ''}`;
}

function nodeId(prefix: string, key: string): string {
  return `${prefix}_${Buffer.from(key).toString('base64url').slice(0, 24)}`;
}

/** `simple-user` for a login. */
export function userShape(s: EmulatorState, login: string, id: number): Record<string, unknown> {
  const u = `${s.url}/users/${login}`;
  return {
    login,
    id,
    node_id: nodeId('U', login),
    avatar_url: `${s.url}/avatars/${login}`,
    gravatar_id: '',
    url: u,
    html_url: `${s.url}/${login}`,
    followers_url: `${u}/followers`,
    following_url: `${u}/following{/other_user}`,
    gists_url: `${u}/gists{/gist_id}`,
    starred_url: `${u}/starred{/owner}{/repo}`,
    subscriptions_url: `${u}/subscriptions`,
    organizations_url: `${u}/orgs`,
    repos_url: `${u}/repos`,
    events_url: `${u}/events{/privacy}`,
    received_events_url: `${u}/received_events`,
    type: 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

/** Facts about a repository that need git to find out. */
export interface RepoFacts {
  defaultBranch: string;
  sizeKb: number;
  pushedAt: string;
}

/** `repository` (for lists) or `full-repository` (for GET /repos/o/r). */
export function repoShape(s: EmulatorState, r: RepoEntry, f: RepoFacts, full: boolean): Record<string, unknown> {
  const api = repoApi(s, r);
  const owner = r.owner.toLowerCase() === s.user.login.toLowerCase() ? s.user.id : r.id + 1;
  const base: Record<string, unknown> = {
    id: r.id,
    node_id: nodeId('R', r.fullName),
    name: r.name,
    full_name: r.fullName,
    private: true,
    owner: userShape(s, r.owner, owner),
    html_url: repoHtml(s, r),
    description: null,
    fork: false,
    url: api,
    forks_url: `${api}/forks`,
    keys_url: `${api}/keys{/key_id}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    teams_url: `${api}/teams`,
    hooks_url: `${api}/hooks`,
    issue_events_url: `${api}/issues/events{/number}`,
    events_url: `${api}/events`,
    assignees_url: `${api}/assignees{/user}`,
    branches_url: `${api}/branches{/branch}`,
    tags_url: `${api}/tags`,
    blobs_url: `${api}/git/blobs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    trees_url: `${api}/git/trees{/sha}`,
    statuses_url: `${api}/statuses/{sha}`,
    languages_url: `${api}/languages`,
    stargazers_url: `${api}/stargazers`,
    contributors_url: `${api}/contributors`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    commits_url: `${api}/commits{/sha}`,
    git_commits_url: `${api}/git/commits{/sha}`,
    comments_url: `${api}/comments{/number}`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    contents_url: `${api}/contents/{+path}`,
    compare_url: `${api}/compare/{base}...{head}`,
    merges_url: `${api}/merges`,
    archive_url: `${api}/{archive_format}{/ref}`,
    downloads_url: `${api}/downloads`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    labels_url: `${api}/labels{/name}`,
    releases_url: `${api}/releases{/id}`,
    deployments_url: `${api}/deployments`,
    created_at: r.createdAt,
    updated_at: f.pushedAt,
    pushed_at: f.pushedAt,
    git_url: `${s.url.replace(/^http/, 'git')}/${r.fullName}.git`,
    ssh_url: `git@emulator:${r.fullName}.git`,
    clone_url: `${repoHtml(s, r)}.git`,
    svn_url: repoHtml(s, r),
    homepage: null,
    size: f.sizeKb,
    stargazers_count: 0,
    watchers_count: 0,
    language: null,
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: true,
    has_pages: false,
    has_discussions: false,
    forks_count: 0,
    mirror_url: null,
    archived: false,
    disabled: false,
    open_issues_count: 0,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [],
    visibility: 'private',
    forks: 0,
    open_issues: 0,
    watchers: 0,
    default_branch: f.defaultBranch,
    permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
  };
  if (full) {
    base.network_count = 0;
    base.subscribers_count = 0;
  }
  return base;
}

const UNSIGNED = { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null };

function person(name: string, email: string, date: string): Record<string, string> {
  return { name, email, date };
}

/** The GitHub user an email belongs to: only the emulated user's own address maps to an account. */
function account(s: EmulatorState, email: string): Record<string, unknown> | null {
  const u: EmulatedUser = s.user;
  return email.toLowerCase() === u.email.toLowerCase() ? userShape(s, u.login, u.id) : null;
}

/** `commit` (list commits / get commit / branch commit), without files or stats. */
export function commitShape(s: EmulatorState, r: RepoEntry, c: CommitInfo): Record<string, unknown> {
  return {
    sha: c.sha,
    node_id: nodeId('C', c.sha),
    commit: {
      author: person(c.authorName, c.authorEmail, c.authorDate),
      committer: person(c.committerName, c.committerEmail, c.committerDate),
      message: c.message,
      tree: { sha: c.tree, url: repoApi(s, r, `git/trees/${c.tree}`) },
      url: repoApi(s, r, `git/commits/${c.sha}`),
      comment_count: 0,
      verification: UNSIGNED,
    },
    url: repoApi(s, r, `commits/${c.sha}`),
    html_url: repoHtml(s, r, `commit/${c.sha}`),
    comments_url: repoApi(s, r, `commits/${c.sha}/comments`),
    author: account(s, c.authorEmail),
    committer: account(s, c.committerEmail),
    parents: c.parents.map((p) => ({
      sha: p,
      url: repoApi(s, r, `commits/${p}`),
      html_url: repoHtml(s, r, `commit/${p}`),
    })),
  };
}

/** `git-commit` (Git Data API). */
export function gitCommitShape(s: EmulatorState, r: RepoEntry, c: CommitInfo): Record<string, unknown> {
  return {
    sha: c.sha,
    node_id: nodeId('C', c.sha),
    url: repoApi(s, r, `git/commits/${c.sha}`),
    html_url: repoHtml(s, r, `commit/${c.sha}`),
    author: person(c.authorName, c.authorEmail, c.authorDate),
    committer: person(c.committerName, c.committerEmail, c.committerDate),
    tree: { sha: c.tree, url: repoApi(s, r, `git/trees/${c.tree}`) },
    message: c.message,
    parents: c.parents.map((p) => ({
      sha: p,
      url: repoApi(s, r, `git/commits/${p}`),
      html_url: repoHtml(s, r, `commit/${p}`),
    })),
    verification: UNSIGNED,
  };
}

/** `git-ref` for a fully qualified ref name. */
export function refShape(
  s: EmulatorState,
  r: RepoEntry,
  ref: string,
  sha: string,
  type = 'commit',
): Record<string, unknown> {
  const short = ref.replace(/^refs\//, '');
  return {
    ref,
    node_id: nodeId('REF', `${r.fullName}:${ref}`),
    url: repoApi(s, r, `git/refs/${encPath(short)}`),
    object: { sha, type, url: repoApi(s, r, `git/${type === 'tag' ? 'tags' : 'commits'}/${sha}`) },
  };
}

/** Base64 the way the contents and blobs APIs send it: wrapped every 60 characters, each line ending in `\n`. */
export function wrappedBase64(buf: Buffer): string {
  const b64 = buf.toString('base64');
  let out = '';
  for (let i = 0; i < b64.length; i += 60) out += `${b64.slice(i, i + 60)}\n`;
  return out;
}
