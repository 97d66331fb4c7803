Feature: Perimeters and branch allowlists, managed with the CLI
  A perimeter cuts a window (read globs, write globs, tools) in one repository; its allowlist names the branches an
  orchestrator may bind agents to. The default branch is always there; other branches must exist upstream first.

  Background:
    Given the platform repository
    And a running git-blinder server

  Scenario: Two disjoint perimeters over one repository, and never one named "root"
    When the operator runs "perimeter create infra --repo <repo> --read infra/** --write infra/aws/**"
    Then the command succeeds and prints "<url>/mcp/infra"
    When the operator runs "perimeter create landing --repo <repo> --read apps/landing/** --write apps/landing/**"
    Then the command succeeds and prints "<url>/mcp/landing"
    When the operator runs "perimeter list"
    Then the command succeeds and prints "infra"
    And the output also prints "landing"
    And the perimeters "infra" and "landing" share no read or write glob
    When the operator runs "perimeter create root --repo <repo> --read **"
    Then the command fails with a message mentioning "reserved"
    And the server has no perimeter "root"

  Scenario: Only branches that exist upstream join the allowlist; the default branch never leaves it
    Given the perimeter "infra" exists
    When the operator runs "perimeter branch add infra feat-ghost"
    Then the command fails with a message mentioning "does not exist"
    And the perimeter "infra" allowlists exactly the branches "main", its default branch
    And the agent URL "/mcp/infra/feat-ghost" answers 404
    Given the branch "feat-aws" exists upstream
    And the operator has allowlisted "feat-aws" on "infra"
    Then the agent URL "/mcp/infra/feat-aws" binds to the branch "feat-aws"
    When the operator runs "perimeter branch remove infra main"
    Then the command fails with a message mentioning "default branch"
    When the operator runs "perimeter branch remove infra feat-aws"
    Then the command succeeds
    And the agent URL "/mcp/infra/feat-aws" answers 404
    And the perimeter "infra" allowlists exactly the branches "main", its default branch

  Scenario: A restart keeps the perimeters and their allowlists
    Given the perimeter "infra" exists
    And the branch "feat-aws" exists upstream
    And the operator has allowlisted "feat-aws" on "infra"
    When the server restarts on the same state directory
    And the operator runs "perimeter show infra"
    Then the command succeeds and prints "feat-aws"
    And the agent URL "/mcp/infra/feat-aws" binds to the branch "feat-aws"
    When agent A connects to "/mcp/infra/feat-aws"
    And agent A reads the file "infra/aws/main.tf"
    Then agent A gets the content of "infra/aws/main.tf"
