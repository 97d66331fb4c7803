@local
Feature: The working tree, inside the window
  An agent whose branch is checked out in a working tree of the repository sees what is modified, staged, untracked
  and conflicted there, but only inside its perimeter: out-of-scope changes do not exist for it, and asking about a
  hidden file reads exactly like asking about a missing one. Two agents on two worktrees see only their own.

  Background:
    Given the platform repository
    And a running git-blinder server
    And the perimeters "infra" and "landing" exist
    And the branch "feat-infra" is created upstream with a commit "infra: start" changing "infra/aws/start.tf"
    And the branch "feat-landing" is created upstream with a commit "landing: start" changing "apps/landing/start.html"
    And the operator has allowlisted "feat-infra" on "infra"
    And the operator has allowlisted "feat-landing" on "landing"

  Scenario: A dirty worktree with out-of-scope changes mixed in shows only the window
    Given the operator runs "worktree add infra feat-infra"
    And the worktree of "feat-infra" has local changes in and out of the window
    When agent A connects to "/mcp/infra/feat-infra"
    Then agent A lists the workspace tools
    And agent A's workspace status lists only "infra/aws/main.tf, infra/aws/new.tf, infra/gcp/moved.tf"
    And agent A's workspace answers never mention "secrets, .env, apps/, hunter"
    And agent A's workspace diff narrowed to "secrets/prod.env" answers like one narrowed to "infra/none"

  Scenario: Two agents on two worktrees of one repository see only their own
    Given the operator runs "worktree add infra feat-infra"
    And the operator runs "worktree add landing feat-landing"
    And the worktree of "feat-infra" has local changes in and out of the window
    When agent A connects to "/mcp/infra/feat-infra"
    And agent B connects to "/mcp/landing/feat-landing"
    Then agent B's workspace status lists only ""
    And agent A's workspace status lists only "infra/aws/main.tf, infra/aws/new.tf, infra/gcp/moved.tf"

  Scenario: A branch checked out nowhere gets no workspace tools
    When agent A connects to "/mcp/infra/feat-infra"
    Then agent A lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, activity, lease_acquire, lease_release"
