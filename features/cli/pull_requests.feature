@github @pulls
Feature: Pull requests and CI filtered to the perimeter
  An agent delivers its work as a pull request from its own branch and reads the review and CI result through its
  window: hidden files, comments on hidden files and annotations on hidden files never reach it. (GitHub only for
  now: local repositories have no pull requests yet, SPEC §3.5.)

  Background:
    Given the platform repository
    And the branch "feat-aws" is created upstream with a commit "infra: aws module" changing "infra/aws/module.tf"
    And the branch "feat-leak" is created upstream with a commit "leak" changing "secrets/new.env"
    And the branch "feat-gcp" is created upstream with a commit "gcp" changing "infra/gcp/net.tf"
    And a running git-blinder server
    And the perimeter "infra" opens pull requests into "main" from the branches "feat-aws, feat-leak"

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
    And no answer in this scenario mentions "secrets/"

  Scenario: Another branch's PR and a hidden-only PR read exactly like a made-up number
    Given someone opened a pull request from "feat-gcp" into "main"
    And someone opened a pull request from "feat-leak" into "main"
    When agent C connects to "/mcp/infra/feat-aws"
    Then agent C reads the pull request from "feat-gcp" exactly like a made-up number
    When agent D connects to "/mcp/infra/feat-leak"
    Then agent D reads the pull request from "feat-leak" exactly like a made-up number
