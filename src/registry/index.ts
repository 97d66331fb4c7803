// The one list of tools. Order is the order of tools/list (deterministic, as the 2026-07-28 protocol asks).
import type { AnyTool } from './tool.js';
import { compare } from './tools/compare.js';
import { getCommit } from './tools/get_commit.js';
import { getFile } from './tools/get_file.js';
import { getFiles } from './tools/get_files.js';
import { getTree } from './tools/get_tree.js';
import { listBranches } from './tools/list_branches.js';
import { listCommits } from './tools/list_commits.js';
import { pushFiles } from './tools/push_files.js';
import { editFile } from './tools/edit_file.js';
import { editFiles } from './tools/edit_files.js';
import { proposalCancel } from './tools/proposal_cancel.js';
import { proposalStatus } from './tools/proposal_status.js';
import { changesSince } from './tools/changes_since.js';
import { searchCode } from './tools/search_code.js';
import { searchAlias } from './tools/search.js';
import { fetchAlias } from './tools/fetch.js';
import { conflictPreflight } from './tools/conflict_preflight.js';
import { conflictRead } from './tools/conflict_read.js';
import { integrityCheck } from './tools/integrity_check.js';
import { scopeSummary } from './tools/scope_summary.js';
import { submoduleStatus } from './tools/submodule_status.js';
import { workspaceBrief } from './tools/workspace_brief.js';
import { workspaceDiff } from './tools/workspace_diff.js';
import { workspaceStatus } from './tools/workspace_status.js';
import { proposeBranch } from './tools/propose_branch.js';
import { proposeCommit } from './tools/propose_commit.js';
import { proposeDiscard } from './tools/propose_discard.js';
import { proposeMerge } from './tools/propose_merge.js';
import { proposePatch } from './tools/propose_patch.js';
import { proposePlan } from './tools/propose_plan.js';
import { proposePush } from './tools/propose_push.js';
import { proposeRebase } from './tools/propose_rebase.js';
import { proposeReset } from './tools/propose_reset.js';
import { createPullRequest } from './tools/create_pull_request.js';
import { listPullRequests } from './tools/list_pull_requests.js';
import { getPullRequest } from './tools/get_pull_request.js';
import { getPullRequestFiles } from './tools/get_pull_request_files.js';
import { listPullRequestComments } from './tools/list_pull_request_comments.js';
import { getPullRequestStatus } from './tools/get_pull_request_status.js';

import { activity } from './tools/activity.js';
import { leaseAcquire } from './tools/lease_acquire.js';
import { leaseRelease } from './tools/lease_release.js';

export const ALL_TOOLS: readonly AnyTool[] = [
  getTree,
  getFile,
  getFiles,
  searchCode,
  changesSince,
  pushFiles,
  editFile,
  editFiles,
  proposalStatus,
  proposalCancel,
  listCommits,
  getCommit,
  listBranches,
  compare,
  // Aliases for clients that call fixed names (ChatGPT Deep Research, connectors): listed only where a perimeter names them.
  searchAlias,
  fetchAlias,
  // Workspace tools: listed only where the bound branch is checked out in a working tree.
  workspaceBrief,
  workspaceStatus,
  workspaceDiff,
  conflictPreflight,
  conflictRead,
  submoduleStatus,
  scopeSummary,
  integrityCheck,
  // Workspace proposals: listed only where the bound branch is checked out; every one waits for a person.
  proposeCommit,
  proposePatch,
  proposeDiscard,
  proposeMerge,
  proposeRebase,
  proposeReset,
  proposeBranch,
  proposePush,
  proposePlan,
  // Presence and leases: agent-only, listed beside a write tool.
  activity,
  leaseAcquire,
  leaseRelease,
  // Pull requests of the bound branch: listed only where the perimeter sets `pulls` (status also needs `ci`).
  createPullRequest,
  listPullRequests,
  getPullRequest,
  getPullRequestFiles,
  listPullRequestComments,
  getPullRequestStatus,
];

/** Names of the tools an agent perimeter gets when it grants none explicitly. */
export const AGENT_CATALOGUE: readonly string[] = ALL_TOOLS.filter(
  (t) => t.surfaces.includes('agent') && t.aliasOf === undefined,
).map((t) => t.name);

/** Looks a tool up by name. */
export function toolNamed(name: string): AnyTool | undefined {
  return ALL_TOOLS.find((t) => t.name === name);
}

export type {
  AnyTool,
  Annotations,
  CursorSeal,
  DraftOutcome,
  Log,
  Proposable,
  ProposalDraft,
  ToolContext,
  ToolOutcome,
} from './tool.js';
export type { Fence } from './render.js';
