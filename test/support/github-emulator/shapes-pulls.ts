// JSON shapes of the pull-request, review, comment, check-run and status endpoints (GitHub's OpenAPI components
// pull-request(-simple), pull-request-review(-comment), issue-comment, check-run, check-annotation, status).
import type {
  AnnotationEntry,
  CheckRunEntry,
  IssueCommentEntry,
  PullEntry,
  ReviewCommentEntry,
  ReviewEntry,
  StatusEntry,
} from './pulls-state.js';
import { repoApi, repoHtml, repoShape, userShape, type RepoFacts } from './shapes.js';
import { stableId, type EmulatorState, type RepoEntry } from './state.js';

/** `simple-user` for a login: the emulated account keeps its own id. */
export function person(s: EmulatorState, login: string): Record<string, unknown> {
  return userShape(s, login, login.toLowerCase() === s.user.login.toLowerCase() ? s.user.id : stableId(`u:${login}`));
}

function association(r: RepoEntry, login: string): string {
  return login.toLowerCase() === r.owner.toLowerCase() ? 'OWNER' : 'CONTRIBUTOR';
}

const href = (u: string): { href: string } => ({ href: u });

/** The repository named `fullName` in a PR's head: this one, or a fork standing in for another repository. */
function headRepoEntry(r: RepoEntry, fullName: string): RepoEntry {
  if (fullName.toLowerCase() === r.fullName.toLowerCase()) return r;
  const [owner = '', name = ''] = fullName.split('/');
  return { ...r, owner, name, fullName, id: stableId(fullName.toLowerCase()) };
}

/** Facts the full PR read adds (pull-request, not pull-request-simple). */
export interface PullDetail {
  mergeable: boolean | null;
  mergeableState: string;
  commits: number;
  additions: number;
  deletions: number;
  changedFiles: number;
  comments: number;
  reviewComments: number;
}

/** `pull-request-simple` (lists), or `pull-request` when `detail` is given. */
export function pullShape(
  s: EmulatorState,
  r: RepoEntry,
  p: PullEntry,
  facts: RepoFacts,
  detail?: PullDetail,
): Record<string, unknown> {
  const api = repoApi(s, r, `pulls/${p.number}`);
  const html = repoHtml(s, r, `pull/${p.number}`);
  const issue = repoApi(s, r, `issues/${p.number}`);
  const statuses = repoApi(s, r, `statuses/${p.headSha}`);
  const head = headRepoEntry(r, p.headRepo);
  const side = (entry: RepoEntry, ref: string, sha: string): Record<string, unknown> => ({
    label: `${entry.owner}:${ref}`,
    ref,
    sha,
    user: person(s, entry.owner),
    repo: { ...repoShape(s, entry, facts, false), fork: entry !== r },
  });
  const out: Record<string, unknown> = {
    url: api,
    id: p.id,
    node_id: `PR_${Buffer.from(`${r.fullName}#${p.number}`).toString('base64url').slice(0, 20)}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: repoApi(s, r, 'pulls/comments{/number}'),
    comments_url: `${issue}/comments`,
    statuses_url: statuses,
    number: p.number,
    state: p.state,
    locked: false,
    title: p.title,
    user: person(s, p.user),
    body: p.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    closed_at: p.closedAt,
    merged_at: p.mergedAt,
    merge_commit_sha: p.mergeCommit,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(head, p.head, p.headSha),
    base: side(r, p.base, p.baseSha),
    _links: {
      self: href(api),
      html: href(html),
      issue: href(issue),
      comments: href(`${issue}/comments`),
      review_comments: href(`${api}/comments`),
      review_comment: href(repoApi(s, r, 'pulls/comments{/number}')),
      commits: href(`${api}/commits`),
      statuses: href(statuses),
    },
    author_association: association(r, p.user),
    auto_merge: null,
    draft: p.draft,
  };
  if (!detail) return out;
  return {
    ...out,
    merged: p.merged,
    mergeable: detail.mergeable,
    rebaseable: detail.mergeable,
    mergeable_state: detail.mergeableState,
    merged_by: p.merged ? person(s, r.owner) : null,
    comments: detail.comments,
    review_comments: detail.reviewComments,
    maintainer_can_modify: false,
    commits: detail.commits,
    additions: detail.additions,
    deletions: detail.deletions,
    changed_files: detail.changedFiles,
  };
}

/** `pull-request-review`. */
export function reviewShape(s: EmulatorState, r: RepoEntry, v: ReviewEntry): Record<string, unknown> {
  const pr = repoApi(s, r, `pulls/${v.pull}`);
  const html = `${repoHtml(s, r, `pull/${v.pull}`)}#pullrequestreview-${v.id}`;
  return {
    id: v.id,
    node_id: `PRR_${v.id}`,
    user: person(s, v.user),
    body: v.body,
    state: v.state,
    html_url: html,
    pull_request_url: pr,
    _links: { html: href(html), pull_request: href(pr) },
    ...(v.submittedAt === null ? {} : { submitted_at: v.submittedAt }),
    commit_id: v.commitId,
    author_association: association(r, v.user),
  };
}

/** `pull-request-review-comment`; `hunk` is the diff hunk the comment sits on. */
export function reviewCommentShape(
  s: EmulatorState,
  r: RepoEntry,
  c: ReviewCommentEntry,
  hunk: string,
): Record<string, unknown> {
  const pr = repoApi(s, r, `pulls/${c.pull}`);
  const self = repoApi(s, r, `pulls/comments/${c.id}`);
  const html = `${repoHtml(s, r, `pull/${c.pull}`)}#discussion_r${c.id}`;
  return {
    url: self,
    pull_request_review_id: c.reviewId,
    id: c.id,
    node_id: `PRRC_${c.id}`,
    diff_hunk: hunk,
    path: c.path,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    ...(c.inReplyTo === null ? {} : { in_reply_to_id: c.inReplyTo }),
    user: person(s, c.user),
    body: c.body,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: html,
    pull_request_url: pr,
    author_association: association(r, c.user),
    _links: { self: href(self), html: href(html), pull_request: href(pr) },
    start_line: c.startLine,
    original_start_line: c.startLine,
    start_side: c.startLine === null ? null : 'RIGHT',
    line: c.line,
    original_line: c.line ?? 1,
    side: 'RIGHT',
    subject_type: c.line === null ? 'file' : 'line',
  };
}

/** `issue-comment`. */
export function issueCommentShape(s: EmulatorState, r: RepoEntry, c: IssueCommentEntry): Record<string, unknown> {
  const url = repoApi(s, r, `issues/comments/${c.id}`);
  return {
    id: c.id,
    node_id: `IC_${c.id}`,
    url,
    html_url: `${repoHtml(s, r, `pull/${c.pull}`)}#issuecomment-${c.id}`,
    body: c.body,
    user: person(s, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    issue_url: repoApi(s, r, `issues/${c.pull}`),
    author_association: association(r, c.user),
    performed_via_github_app: null,
  };
}

/** `check-run`. */
export function checkRunShape(s: EmulatorState, r: RepoEntry, c: CheckRunEntry): Record<string, unknown> {
  const url = repoApi(s, r, `check-runs/${c.id}`);
  return {
    id: c.id,
    head_sha: c.sha,
    node_id: `CR_${c.id}`,
    external_id: '',
    url,
    html_url: repoHtml(s, r, `runs/${c.id}`),
    details_url: repoHtml(s, r, `actions/runs/${c.id}`),
    status: c.status,
    conclusion: c.conclusion,
    started_at: c.startedAt,
    completed_at: c.completedAt,
    output: {
      title: c.output.title,
      summary: c.output.summary,
      text: c.output.text,
      annotations_count: c.annotations.length,
      annotations_url: `${url}/annotations`,
    },
    name: c.name,
    check_suite: { id: c.suiteId },
    app: null,
    pull_requests: [],
  };
}

/** `check-annotation`. */
export function annotationShape(s: EmulatorState, r: RepoEntry, sha: string, a: AnnotationEntry): unknown {
  return {
    path: a.path,
    blob_href: repoHtml(s, r, `blob/${sha}/${a.path}`),
    start_line: a.startLine,
    end_line: a.endLine,
    start_column: null,
    end_column: null,
    annotation_level: a.level,
    title: a.title,
    message: a.message,
    raw_details: a.rawDetails,
  };
}

/** `simple-commit-status` (the combined view), or `status` (the full list) with `creator`. */
export function statusShape(s: EmulatorState, r: RepoEntry, x: StatusEntry, full: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    url: repoApi(s, r, `statuses/${x.sha}`),
    avatar_url: `${s.url}/avatars/${x.user}`,
    id: x.id,
    node_id: `SC_${x.id}`,
    state: x.state,
    description: x.description,
    target_url: x.targetUrl,
    context: x.context,
    created_at: x.createdAt,
    updated_at: x.updatedAt,
  };
  return full ? { ...out, creator: person(s, x.user) } : { ...out, required: false };
}
