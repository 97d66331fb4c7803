Feature: History filtered to the perimeter
  list_commits shows only commits that change something the perimeter can read; get_commit cuts a commit to its
  readable files and counts the rest without naming them; a commit with nothing readable does not exist.

  Background:
    Given the platform repository
    And a running git-blinder server
    And the perimeters "infra" and "landing" exist

  Scenario: Agents never see commits that only touch unreadable files
    When agent A connects to "/mcp/infra" speaking the legacy protocol
    And agent B connects to "/mcp/landing" speaking the auto protocol
    And agent A lists the commits
    And agent B lists the commits
    Then agent A sees the commits "chore: bump everything, infra: tune aws buckets, initial layout" in this order
    And agent B sees the commits "chore: bump everything, landing: new hero, initial layout" in this order

  Scenario: The operator's "perimeter commits list" and "perimeter commits show" filter as the agent's tools do
    When the operator runs "perimeter commits list landing"
    Then the command succeeds
    And the output lists the commits "chore: bump everything, landing: new hero, initial layout"
    And the output lists none of the commits "infra: tune aws buckets, secrets: rotate prod password"
    When the operator shows the commit "chore: bump everything" of "landing" with the CLI
    Then the command succeeds and prints "apps/landing/index.html"
    And the output also prints "omitted (outside the perimeter): 2"
    When the operator shows the commit "secrets: rotate prod password" of "landing" with the CLI
    Then the command fails with a message mentioning "Not found"

  Scenario: A mixed commit shows the readable files and counts the others
    When agent A connects to "/mcp/infra"
    And agent A shows the commit "chore: bump everything"
    Then agent A sees the changed files "infra/aws/main.tf" and 2 omitted
    And agent A's answer never mentions "apps/landing, secrets/, hunter2, correct-horse"

  Scenario: A commit outside the perimeter reads exactly like a commit that does not exist
    When agent A connects to "/mcp/landing"
    And agent A shows the commit "infra: tune aws buckets"
    And agent A shows a commit that does not exist
    Then both answers are the same "not found" answer, apart from the SHA
