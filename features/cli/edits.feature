Feature: Edits that refuse instead of overwriting
  An agent edits a file by naming the exact text it replaces, and may name the blob it read. When the file changed
  since — the text is gone, or the blob is another — nothing is written and the agent is told to read it again.
  An edit is never a way to learn what a file the agent cannot read holds, or whether it exists.

  Background:
    Given the platform repository
    And a running git-blinder server
    And the perimeter "infra" exists

  Scenario: An edit lands when the text it replaces is there, and names the blob it wrote
    When agent A connects to "/mcp/infra"
    And agent A reads "infra/aws/main.tf"
    And agent A edits "infra/aws/main.tf" replacing "# v2" with "# v3", naming the blob it read
    Then the edit lands on "main" and "infra/aws/main.tf" upstream is the blob the answer names

  Scenario: An edit whose old_text no longer matches writes nothing
    When agent A connects to "/mcp/infra"
    And agent A reads "infra/aws/main.tf"
    And someone else replaces "# v2" with "# version two" in "infra/aws/main.tf" upstream
    And the branch "main" head is recorded
    And agent A edits "infra/aws/main.tf" replacing "# v2" with "# v3"
    Then the edit is refused saying "old_text does not occur" and that nothing was written
    And the branch "main" did not move upstream

  Scenario: An edit whose expected_blob_sha is stale writes nothing
    When agent A connects to "/mcp/infra"
    And agent A reads "infra/aws/main.tf"
    And someone else replaces "# v2" with "# v2 reviewed" in "infra/aws/main.tf" upstream
    And the branch "main" head is recorded
    And agent A edits "infra/aws/main.tf" replacing "versioning = true" with "versioning = false", naming the blob it read
    Then the edit is refused saying "changed since you read it" and that nothing was written
    And the branch "main" did not move upstream

  Scenario: An edit on a path the agent cannot read answers as for a missing path
    When agent A connects to "/mcp/infra"
    Then edit_file on "secrets/prod.env" and on "secrets/none.env" give the same answer apart from the path
    And edit_file on "infra/aws/none.tf" and on "infra/aws/gone.tf" give the same answer apart from the path
