@github
Feature: Behaviour specific to the GitHub upstream
  The server talks to GitHub (here the emulator) with a token the agents never hold.

  Background:
    Given the platform repository
    And a running git-blinder server
    And the perimeters "infra" and "landing" exist

  Scenario: Two agents pushing to the same branch at the same time both land
    When agent A connects to "/mcp/infra"
    And agent C connects to "/mcp/infra" speaking the auto protocol
    And agents A and C push "infra/aws/a.tf" and "infra/aws/c.tf" to the branch at the same time
    Then both pushes succeed
    And the branch "main" upstream holds both commits and both files

  Scenario: An agent bound to a branch cannot read a commit that exists only on another branch
    Given the branch "feat-aws" exists upstream
    And the branch "other" is created upstream with a commit "aws: other work" changing "infra/aws/other.tf"
    And the operator has allowlisted "feat-aws" on "infra"
    When agent A connects to "/mcp/infra/feat-aws"
    And agent A shows the commit "aws: other work"
    And agent A shows a commit that does not exist
    Then both answers are the same "not found" answer, apart from the SHA

  Scenario: A rate-limited upstream gives a clear error, and later calls recover
    When agent A connects to "/mcp/infra"
    And GitHub rate-limits the next request for an hour
    And agent A reads the file "infra/aws/main.tf"
    Then agent A is told the upstream is rate limited and when to retry
    When agent A reads the file "infra/aws/main.tf"
    Then agent A gets the content of "infra/aws/main.tf"

  Scenario: The GitHub token never appears in an answer, a log line or an error
    When agent A connects to "/mcp/infra"
    And agent A makes calls that succeed, fail, are refused and hit a rate limit
    And the operator makes API and CLI requests that succeed and fail
    Then the GitHub token appears in no answer, no CLI output and no server log line
