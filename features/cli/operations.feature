Feature: Who did what, and the live picture
  Every tool call and every operator request lands in a hash-chained ledger the operator can query and prove
  untouched; clients that only launch stdio servers reach a perimeter through the stdio bridge; status shows the
  server as it is now.

  Scenario: An agent behind the stdio bridge does the end-to-end flow
    Given the platform repository
    And a running git-blinder server
    And the perimeter "infra" exists
    And the branch "feat-aws" is created upstream with a commit "aws: spot instances" changing "infra/aws/spot.tf"
    And the operator has allowlisted "feat-aws" on "infra"
    When agent S connects through the stdio bridge to "infra" on "feat-aws"
    Then agent S lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, activity, lease_acquire, lease_release"
    When agent S lists the commits
    Then agent S sees the commits "aws: spot instances, chore: bump everything, infra: tune aws buckets, initial layout" in this order
    When agent S shows the commit "chore: bump everything"
    Then agent S sees the changed files "infra/aws/main.tf" and 2 omitted
    When agent S reads the file "secrets/prod.env"
    Then agent S is told the file "secrets/prod.env" is not found
    When agent S pushes "infra/aws/spot.tf" with the message "aws: bigger spot fleet"
    Then the push lands on the branch "feat-aws"
    And the branch "main" did not move upstream
    When agent S closes its stdio connection
    Then the stdio bridge of agent S exits and its session is gone

  Scenario: The ledger says who did what, and an edited ledger is caught
    Given the platform repository
    And a running git-blinder server
    And the perimeter "infra" exists
    When agent A connects to "/mcp/infra"
    And agent A reads the file "infra/aws/main.tf"
    And agent A reads the file "secrets/prod.env"
    And agent A pushes "apps/landing/index.html" with the message "out of scope"
    Then the audit ledger holds for "infra" a "get_file" call "allow", a "get_file" call "invisible" and a "push_files" call "deny"
    And the audit ledger names no path in clear
    When the operator verifies the audit ledger
    Then the ledger is reported intact
    When someone changes one character of an entry in the ledger
    And the operator verifies the audit ledger
    Then the ledger is reported tampered

  Scenario: The operator sees the live state of the server
    Given the platform repository
    And a running git-blinder server
    And the perimeter "infra" exists
    When agent A connects to "/mcp/infra"
    And agent A reads the file "infra/aws/main.tf"
    And the operator runs "status"
    Then the command succeeds and prints "sessions: 1 active, 0 idle"
    And the output also prints "AUDIT  ENTRIES  LOST  FAILURES  SIGNED"
    And the output also prints "infra"
