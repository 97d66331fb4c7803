// The test-only control for what people and CI produce around pull requests (`em.pulls`): PRs opened by someone
// else or from a fork, reviews, review comments on paths, conversation comments, check runs with annotations,
// commit statuses, and closing or merging a PR. Each call acts at once on the emulator's state and real git.
import { resolveCommit } from './objects.js';
import {
  mergePull,
  refresh,
  type AnnotationEntry,
  type CheckConclusion,
  type CheckStatus,
  type PullEntry,
  type RepoPulls,
  type ReviewState,
} from './pulls-state.js';
import type { EmulatorState, RepoEntry } from './state.js';

export interface SeedPull {
  repo: string;
  /** A branch of `repo`; with `fork`, its current commit becomes the fork PR's head (the branch may go afterwards). */
  head: string;
  base: string;
  title?: string;
  body?: string;
  draft?: boolean;
  /** Login of the author (default `contributor`). */
  user?: string;
  /** `owner/name` of a fork the PR comes from: its head is not a branch of `repo`. */
  fork?: string;
}

export interface SeedReview {
  repo: string;
  number: number;
  state: ReviewState;
  body?: string;
  user?: string;
  /** Line comments posted with the review. */
  comments?: { path: string; line?: number | null; startLine?: number; body: string }[];
}

export interface SeedReviewComment {
  repo: string;
  number: number;
  path: string;
  /** Line in the head version; null for an outdated comment (default 1). */
  line?: number | null;
  startLine?: number;
  body: string;
  user?: string;
  /** Id of the thread's first comment this one answers. */
  inReplyTo?: number;
  reviewId?: number;
}

export interface SeedCheckRun {
  repo: string;
  /** Commit the run belongs to (full SHA or a branch of `repo`). */
  sha: string;
  name: string;
  status?: CheckStatus;
  conclusion?: CheckConclusion | null;
  output?: { title?: string; summary?: string; text?: string };
  annotations?: {
    path: string;
    startLine: number;
    endLine?: number;
    level?: AnnotationEntry['level'];
    message: string;
    title?: string;
    rawDetails?: string;
  }[];
}

export interface SeedStatus {
  repo: string;
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description?: string;
  targetUrl?: string;
  user?: string;
}

/** What a test may seed; every id returned is the one the API then serves. */
export interface PullController {
  /** Opens a PR as someone else would; returns its number. */
  open(opts: SeedPull): Promise<number>;
  /** Submits a review (PENDING stays unsubmitted), with optional line comments; returns its id and theirs. */
  review(opts: SeedReview): Promise<{ id: number; comments: number[] }>;
  reviewComment(opts: SeedReviewComment): Promise<number>;
  /** A conversation comment on the PR; returns its id. */
  comment(opts: { repo: string; number: number; body: string; user?: string }): number;
  /** A check run (completed successfully unless told otherwise); returns its id. */
  checkRun(opts: SeedCheckRun): Promise<number>;
  status(opts: SeedStatus): Promise<number>;
  /** Closes a PR unmerged. */
  close(opts: { repo: string; number: number }): Promise<void>;
  /** Merges a PR for real (a merge commit on its base); returns the merge commit. */
  merge(opts: { repo: string; number: number }): Promise<string>;
  /** Stamps every later date with `now()` (e.g. a constant, for twins and stable answers); undefined = real time. */
  clock(now: (() => string) | undefined): void;
}

function repoOf(s: EmulatorState, name: string): RepoEntry {
  const r = s.repos.get(name.toLowerCase());
  if (!r) throw new Error(`em.pulls: no repository ${name}`);
  return r;
}

function pullIn(world: RepoPulls, number: number): PullEntry {
  const p = world.find(number);
  if (!p) throw new Error(`em.pulls: no pull request #${number}`);
  return p;
}

async function commitOf(r: RepoEntry, ref: string): Promise<string> {
  const sha = await resolveCommit(r, /^[0-9a-f]{40}$/i.test(ref) ? ref.toLowerCase() : `refs/heads/${ref}`);
  if (!sha) throw new Error(`em.pulls: no commit ${ref} in ${r.fullName}`);
  return sha;
}

/** The seeding API over one emulator's state. */
export function pullController(s: EmulatorState): PullController {
  const at = (repo: string): { r: RepoEntry; world: RepoPulls } => {
    const r = repoOf(s, repo);
    return { r, world: s.pullWorld.of(r) };
  };
  return {
    open: async ({ repo, head, base, title, body, draft = false, user = 'contributor', fork }) => {
      const { r, world } = at(repo);
      const [headSha, baseSha] = await Promise.all([commitOf(r, head), commitOf(r, base)]);
      const when = world.now();
      const p: PullEntry = {
        number: world.pulls.reduce((n, x) => Math.max(n, x.number), 0) + 1,
        id: world.nextId('pull'),
        title: title ?? `Changes from ${head}`,
        body: body ?? null,
        head,
        headRepo: fork ?? r.fullName,
        base,
        draft,
        state: 'open',
        merged: false,
        mergeCommit: null,
        headSha,
        baseSha,
        user,
        createdAt: when,
        updatedAt: when,
        closedAt: null,
        mergedAt: null,
      };
      world.pulls.push(p);
      return p.number;
    },
    review: async ({ repo, number, state, body = '', user = 'reviewer', comments = [] }) => {
      const { r, world } = at(repo);
      const p = pullIn(world, number);
      await refresh(world, r, p);
      const id = world.nextId('review');
      world.reviews.push({
        id,
        pull: number,
        user,
        body,
        state,
        commitId: p.headSha,
        submittedAt: state === 'PENDING' ? null : world.now(),
      });
      const ids: number[] = [];
      for (const c of comments)
        ids.push(addComment(world, p, world.nextId('reviewComment'), { ...c, user, reviewId: id }));
      return { id, comments: ids };
    },
    reviewComment: async ({ repo, number, ...c }) => {
      const { r, world } = at(repo);
      const p = pullIn(world, number);
      await refresh(world, r, p);
      return addComment(world, p, world.nextId('reviewComment'), { ...c, user: c.user ?? 'reviewer' });
    },
    comment: ({ repo, number, body, user = 'reviewer' }) => {
      const { world } = at(repo);
      pullIn(world, number);
      const id = world.nextId('comment');
      const when = world.now();
      world.issueComments.push({ id, pull: number, body, user, createdAt: when, updatedAt: when });
      return id;
    },
    checkRun: async ({ repo, sha, name, status = 'completed', conclusion, output = {}, annotations = [] }) => {
      const { r, world } = at(repo);
      const commit = await commitOf(r, sha);
      const id = world.nextId('check');
      const when = world.now();
      world.checkRuns.push({
        id,
        suiteId: id + 500_000,
        sha: commit,
        name,
        status,
        conclusion: status === 'completed' ? (conclusion ?? 'success') : null,
        startedAt: status === 'queued' ? null : when,
        completedAt: status === 'completed' ? when : null,
        output: { title: output.title ?? null, summary: output.summary ?? null, text: output.text ?? null },
        annotations: annotations.map((a) => ({
          path: a.path,
          startLine: a.startLine,
          endLine: a.endLine ?? a.startLine,
          level: a.level ?? 'failure',
          message: a.message,
          title: a.title ?? null,
          rawDetails: a.rawDetails ?? null,
        })),
      });
      return id;
    },
    status: async ({ repo, sha, context, state, description, targetUrl, user = 'ci-bot' }) => {
      const { r, world } = at(repo);
      const commit = await commitOf(r, sha);
      const id = world.nextId('status');
      const when = world.now();
      world.statuses.push({
        id,
        sha: commit,
        context,
        state,
        description: description ?? null,
        targetUrl: targetUrl ?? null,
        user,
        createdAt: when,
        updatedAt: when,
      });
      return id;
    },
    close: async ({ repo, number }) => {
      const { r, world } = at(repo);
      const p = pullIn(world, number);
      await refresh(world, r, p);
      const when = world.now();
      Object.assign(p, { state: 'closed', closedAt: when, updatedAt: when });
    },
    clock: (now) => {
      s.pullWorld.clock = now;
    },
    merge: ({ repo, number }) => {
      const { r, world } = at(repo);
      return mergePull(world, r, pullIn(world, number));
    },
  };
}

function addComment(
  world: RepoPulls,
  p: PullEntry,
  id: number,
  c: {
    path: string;
    line?: number | null;
    startLine?: number;
    body: string;
    user: string;
    inReplyTo?: number;
    reviewId?: number;
  },
): number {
  const when = world.now();
  world.reviewComments.push({
    id,
    pull: p.number,
    reviewId: c.reviewId ?? null,
    inReplyTo: c.inReplyTo ?? null,
    path: c.path,
    line: c.line === undefined ? 1 : c.line,
    startLine: c.startLine ?? null,
    body: c.body,
    user: c.user,
    commitId: p.headSha,
    createdAt: when,
    updatedAt: when,
  });
  return id;
}
