@pulls
Feature: Pull requests and CI filtered to the perimeter
  An agent delivers its work as a pull request from its own branch and reads it through its window: hidden files,
  comments on hidden files and annotations on hidden files never reach it. On GitHub the PR is GitHub's, with its
  reviews and CI (@github scenarios). On a local repository git keeps no PRs: the PR is a merge proposal of the branch
  into the base that lands when a person approves it (@local, SPEC §3.5). Untagged scenarios run on both upstreams.

  Background:
    Given the platform repository
    And the branch "feat-aws" is created upstream with a commit "infra: aws module" changing "infra/aws/module.tf"
    And the branch "feat-leak" is created upstream with a commit "leak" changing "secrets/new.env"
    And the branch "feat-gcp" is created upstream with a commit "gcp" changing "infra/gcp/net.tf"
    And a running git-blinder server
    And the perimeter "infra" opens pull requests into "main" from the branches "feat-aws, feat-leak"

  @github
  Scenario: An agent opens a PR, reads its window of it, fixes and pushes, and the PR updates
    When agent A connects to "/mcp/infra/feat-aws"
    And agent A opens a pull request titled "AWS module"
    Then the pull request is an open draft into "main" with 1 readable changed file
    When a reviewer comments "tighten this" on "infra/aws/module.tf" and "rotate hunter2" on "secrets/prod.env"
    And CI fails the check "plan" on "feat-aws" annotating "infra/aws/module.tf" and "secrets/prod.env"
    Then agent A reads the files of the pull request as "infra/aws/module.tf"
    And agent A reads the comment "tighten this" and not "rotate hunter2"
    And agent A reads the failing check "plan" annotating only "infra/aws/module.tf"
    When agent A pushes a fix to "infra/aws/module.tf"
    Then the pull request counts 2 additions
    And no answer in this scenario mentions "secrets/, hunter2"

  Scenario: A branch whose net change leaves the write scope cannot be opened as a PR
    When agent B connects to "/mcp/infra/feat-leak"
    And agent B opens a pull request titled "leak"
    Then agent B is refused with "outside this perimeter's write scope"
    And the branch "main" did not move upstream
    And no answer in this scenario mentions "secrets/"

  @local
  Scenario: On a local repository the PR is a merge proposal that lands when the operator approves it
    When agent A connects to "/mcp/infra/feat-aws"
    And agent A opens a pull request titled "AWS module"
    Then the pull request is an open draft into "main" with 1 readable changed file
    And agent A reads the pull request as "open"
    And the branch "main" did not move upstream
    When the operator finds the proposal of the pull request
    And the operator runs the CLI on the last proposal: "proposal show"
    Then the command succeeds and prints "pull request #1: merge feat-aws"
    When the operator runs the CLI on the last proposal: "proposal approve"
    Then the command succeeds and prints "applied"
    And the head of "main" upstream is a commit "AWS module (#1)" changing only "infra/aws/module.tf"
    And agent A reads the pull request as "merged"
    And agent A reads the files of the pull request as "infra/aws/module.tf"

  Scenario: The files of a PR are its window: a write-only file of the branch is neither listed nor counted
    Given the branch "feat-ops" is created upstream with a commit "infra: ops module" changing "infra/aws/ops.tf"
    And the branch "feat-ops" gets a commit "ops: runbook" changing "ops/runbook.sh"
    And the perimeter "deploy" reading "infra/**" and writing "infra/aws/**, ops/**" opens pull requests into "main" from the branches "feat-ops"
    When agent A connects to "/mcp/deploy/feat-ops"
    And agent A opens a pull request titled "ops"
    Then the pull request is an open draft into "main" with 1 readable changed file
    And agent A reads the files of the pull request as "infra/aws/ops.tf"
    And agent A reads the pull request with 1 changed file, 1 addition and nothing omitted
    And no answer in this scenario mentions "runbook"
    And agent A reads the file "ops/runbook.sh" of the pull request exactly like "infra/aws/none.tf", which it does not hold

  @github
  Scenario: Another branch's PR and a hidden-only PR read exactly like a made-up number
    Given someone opened a pull request from "feat-gcp" into "main"
    And someone opened a pull request from "feat-leak" into "main"
    When agent C connects to "/mcp/infra/feat-aws"
    Then agent C reads the pull request from "feat-gcp" exactly like a made-up number
    When agent D connects to "/mcp/infra/feat-leak"
    Then agent D reads the pull request from "feat-leak" exactly like a made-up number
