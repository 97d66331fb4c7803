Feature: A person approves what matters
  On a perimeter that requires approval, an agent's push is held as a proposal; the operator lists it, shows it and
  approves or rejects it with the CLI. It lands only after the approval, through the same checks as any push.

  Scenario: A push waits for the operator's yes, then lands
    Given the platform repository
    And a running git-blinder server
    And the perimeter "infra" requires approval for pushes
    And the branch "main" head is recorded
    When agent A connects to "/mcp/infra"
    And agent A pushes "infra/aws/main.tf" with the message "aws: wait for a person"
    Then agent A is told its push waits for approval
    And the branch "main" did not move upstream
    When the operator runs "proposal list --perimeter infra --status pending"
    Then the command succeeds and prints "push_files on main: 1 written, 0 deleted (infra/aws/main.tf)"
    When the operator runs the CLI on the last proposal: "proposal show"
    Then the command succeeds and prints "message: aws: wait for a person"
    When the operator runs the CLI on the last proposal: "proposal approve"
    Then the command succeeds and prints "applied"
    And agent A sees its proposal "applied" with the commit now at the head of "main"

  Scenario: A rejected push never lands, and the agent learns why
    Given the platform repository
    And a running git-blinder server
    And the perimeter "infra" requires approval for pushes
    And the branch "main" head is recorded
    When agent A connects to "/mcp/infra"
    And agent A pushes "infra/aws/main.tf" with the message "aws: not today"
    And the operator runs the CLI on the last proposal: "proposal reject --reason too-risky"
    Then the command succeeds and prints "rejected"
    And agent A sees its proposal "rejected" with the reason "too-risky"
    And the branch "main" did not move upstream
