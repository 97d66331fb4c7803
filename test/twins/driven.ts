// The tools the history driver (drive.ts) calls, as data: the coverage test unions this with the working-tree
// driver's list (worktree/driven.ts) and fails on any agent tool in neither.

/** Agent tools the history driver draws calls for (args.ts has a case for each). */
export const HISTORY_DRIVEN: readonly string[] = [
  'get_tree',
  'get_file',
  'get_files',
  'search_code',
  'changes_since',
  'list_commits',
  'get_commit',
  'push_files',
  'edit_file',
  'edit_files',
  'proposal_status',
  'proposal_cancel',
  'search',
  'fetch',
  'activity',
  'lease_acquire',
  'lease_release',
  'create_pull_request',
  'list_pull_requests',
  'get_pull_request',
  'get_pull_request_files',
  'list_pull_request_comments',
  'get_pull_request_status',
];
