Feature: The end-to-end flow of the spec, driven through the CLI
  The operator discovers the repository, cuts a perimeter, allowlists a branch once it exists upstream, and hands an
  agent the branch URL; the agent reads filtered history and commits on that branch only.

  Scenario: From operator discovery to an agent's commit on an allowlisted branch
    Given the platform repository
    And a running git-blinder server
    When the operator runs "branches list --repo <repo>"
    Then the command succeeds and prints "main"
    When the operator runs "perimeter create infra --repo <repo> --read infra/** --write infra/aws/**"
    Then the command succeeds and prints "<url>/mcp/infra"
    When the operator runs "repos list"
    Then the command succeeds and prints "<repo>"
    When the operator runs "perimeter branch add infra feat-aws"
    Then the command fails with a message mentioning "does not exist"
    Given the branch "feat-aws" is created upstream with a commit "aws: spot instances" changing "infra/aws/spot.tf"
    When the operator runs "perimeter branch add infra feat-aws"
    Then the command succeeds and prints "<url>/mcp/infra/feat-aws"
    When the operator runs "perimeter key issue infra"
    Then the command succeeds and prints an agent key for "infra"
    When agent A connects to "/mcp/infra/feat-aws"
    Then agent A lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, activity, lease_acquire, lease_release"
    When agent A lists the commits
    Then agent A sees the commits "aws: spot instances, chore: bump everything, infra: tune aws buckets, initial layout" in this order
    When agent A shows the commit "chore: bump everything"
    Then agent A sees the changed files "infra/aws/main.tf" and 2 omitted
    When agent A pushes "infra/aws/spot.tf" with the message "aws: bigger spot fleet"
    Then the push lands on the branch "feat-aws"
    And the head of "feat-aws" upstream is a commit "aws: bigger spot fleet" changing only "infra/aws/spot.tf"
    And the branch "main" did not move upstream

  Scenario: The founding spec's V0 (--open-perimeters): the URL alone connects an agent
    Given the platform repository
    And a running git-blinder server with open perimeters
    And the perimeter "infra" exists
    When agent A connects to "/mcp/infra" without a key
    Then agent A lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, activity, lease_acquire, lease_release"
    When agent A lists the commits
    Then agent A sees the commits "chore: bump everything, infra: tune aws buckets, initial layout" in this order
    And the agent URL "/mcp/infra/feat-ghost" answers 404
