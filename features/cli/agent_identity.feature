Feature: Agents named by their keys
  Several agents share one perimeter, each with its own key. Who did what comes from the key alone: the commits each
  one makes name it, and revoking one agent leaves the others working.

  Background:
    Given the platform repository
    And a running git-blinder server
    And the perimeters "infra" and "landing" exist

  Scenario: Two agents, two keys: git log names each, and revoking one leaves the other working
    When the operator issues a key for agent "alice" on "infra"
    And the operator issues a key for agent "bob" on "infra"
    And agent alice connects to "/mcp/infra" with the key of agent "alice"
    And agent bob connects to "/mcp/infra" with the key of agent "bob"
    And agent alice pushes "infra/aws/alice.tf" with the message "alice: add"
    Then the head of "main" upstream is authored by "alice@infra via git-blinder" with the trailer "Agent-Id: alice"
    When agent bob pushes "infra/aws/bob.tf" with the message "bob: add"
    Then the head of "main" upstream is authored by "bob@infra via git-blinder" with the trailer "Agent-Id: bob"
    When the operator revokes agent "alice" on "infra"
    And agent alice tries to read the file "infra/aws/alice.tf"
    Then agent alice is turned away as if its URL did not exist
    When agent bob reads the file "infra/aws/alice.tf"
    Then agent bob gets the content of "infra/aws/alice.tf"
