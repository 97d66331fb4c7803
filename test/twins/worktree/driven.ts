// The tools the working-tree half of the twin check drives (test/twins/worktree/drive.ts). The coverage test unions
// this list with the committed-history half's: a tool on the agent surface that neither drives fails it.

/** Names of the agent tools `drive.ts` calls on both twins of a working-tree binding. */
export const WORKTREE_DRIVEN: readonly string[] = [
  'workspace_brief',
  'workspace_status',
  'workspace_diff',
  'conflict_preflight',
  'conflict_read',
  'submodule_status',
  'scope_summary',
  'integrity_check',
  'propose_commit',
  'propose_patch',
  'propose_discard',
  'propose_merge',
  'propose_rebase',
  'propose_reset',
  'propose_branch',
  'propose_push',
  'propose_plan',
  'proposal_status',
  'proposal_cancel',
  'get_file',
];
