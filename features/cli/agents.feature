Feature: Agents at their perimeter
  Each agent connects to its own URL. It sees its agent tools only, reads only what the perimeter reads (anything else
  looks missing), writes only what it writes (anything else is refused and nothing is written), and never receives
  another agent's answers.

  Background:
    Given the platform repository
    And a running git-blinder server
    And the perimeters "infra" and "landing" exist

  Scenario: Two agents connected at the same time on distinct URLs each list their agent tools only
    When agent A connects to "/mcp/infra" speaking the legacy protocol
    And agent B connects to "/mcp/landing" speaking the auto protocol
    Then agent A lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, activity, lease_acquire, lease_release"
    And agent B lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, activity, lease_acquire, lease_release"

  Scenario: Branch discovery tools stay off the agent surface even when granted
    Given the perimeter "peek" reading "infra/**" with the tools "get_tree,list_branches,compare"
    When agent A connects to "/mcp/peek"
    Then agent A lists exactly the tools "get_tree"
    When agent A calls the tool "list_branches"
    Then agent A is told the tool does not exist

  Scenario: The URL binds a branch only if it is allowlisted
    Given the branch "feat-aws" is created upstream with a commit "aws: spot instances" changing "infra/aws/spot.tf"
    Then the agent URL "/mcp/infra/feat-aws" answers 404
    And the agent URL "/mcp/infra/feat-aws" answers exactly like the unknown perimeter "/mcp/nope"
    When the operator has allowlisted "feat-aws" on "infra"
    Then the agent URL "/mcp/infra/feat-aws" binds to the branch "feat-aws"
    When agent A connects to "/mcp/infra/feat-aws"
    And agent A reads the file "infra/aws/spot.tf"
    Then agent A gets the content of "infra/aws/spot.tf"
    When agent B connects to "/mcp/infra"
    And agent B reads the file "infra/aws/spot.tf"
    Then agent B is told the file "infra/aws/spot.tf" is not found

  Scenario: A session belongs to the URL it was opened on
    When agent A connects to "/mcp/infra"
    Then agent A's session is accepted on "/mcp/infra"
    And agent A's session is refused with 404 on "/mcp/landing"
    And agent A's session is refused with 404 on "/mcp/infra/main"
    And agent A's session is refused with 404 on "/mcp/root"

  Scenario: An invisible path answers exactly like a missing one
    When agent A connects to "/mcp/infra"
    Then get_file on "secrets/prod.env" and on "secrets/none.env" give the same answer apart from the path
    And get_file on "apps/landing/index.html" and on "apps/landing/none.html" give the same answer apart from the path
    And get_tree on "apps" and on "nothing" give the same answer apart from the path
    And get_tree on "secrets" and on "infra/nothing" give the same answer apart from the path
    And get_files on "apps/landing/index.html" and on "infra/none.tf" give the same answer apart from the path
    And get_tree of the root lists only "infra"
    When agent B connects to "/mcp/infra" speaking the auto protocol
    Then get_file on "secrets/prod.env" and on "secrets/none.env" give the same answer apart from the path
    And get_tree on "apps" and on "nothing" give the same answer apart from the path

  Scenario: A write outside the write globs fails clearly and writes nothing
    When agent A connects to "/mcp/infra"
    And agent A pushes "infra/aws/ok.tf" and "infra/gcp/main.tf" with the message "sneaky"
    Then the push is refused naming "infra/gcp/main.tf" and saying nothing was written
    And the branch "main" did not move upstream
    When agent A pushes "apps/landing/index.html" with the message "sneakier"
    Then the push is refused naming "apps/landing/index.html" and saying nothing was written
    And the branch "main" did not move upstream

  Scenario: No cross-talk between two agents working at the same time
    When agent A connects to "/mcp/infra" speaking the auto protocol
    And agent B connects to "/mcp/landing" speaking the legacy protocol
    And agents A and B make a burst of calls at the same time
    Then every answer agent A received belongs to "infra" only
    And every answer agent B received belongs to "apps/landing" only

  Scenario: An agent key opens its own perimeter only, and revoking it turns an open session away
    Then the agent URL "/mcp/infra" answers exactly like the unknown perimeter "/mcp/nope" without a key, with a wrong key and with the key of "landing"
    When agent A connects to "/mcp/infra"
    And agent A reads the file "infra/aws/main.tf"
    Then agent A gets the content of "infra/aws/main.tf"
    When the operator revokes the agent key of "infra"
    And agent A tries to read the file "infra/aws/main.tf"
    Then agent A is turned away as if its URL did not exist
