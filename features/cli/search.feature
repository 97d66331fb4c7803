Feature: Finding things inside the window
  search_code finds text only in files the perimeter can read on its bound branch; get_file reads line windows;
  changes_since tells an agent what changed in its window since its last cursor. Hidden files, privacy zones and
  other branches never show, and a cursor only works for the perimeter and branch that received it.

  Background:
    Given the platform repository
    And the file "infra/side.tf" holding "aws_s3_bucket on a side branch" is committed on the new branch "side"
    And a 10000-line file "infra/big.txt" is committed on "main"
    And a running git-blinder server
    And the perimeters "infra" and "landing" exist

  Scenario: An agent finds a symbol in its window, never in hidden files, privacy zones or another branch, and reads line windows
    When agent A connects to "/mcp/infra"
    And agent A searches for "aws_s3_bucket"
    Then agent A finds exactly "infra/aws/main.tf:1"
    When agent A searches for "DB_PASSWORD"
    And agent A searches for "NO_SUCH_WORD_42"
    Then agent A's last two searches read the same, apart from the query
    When agent A searches for "x" under "secrets"
    And agent A searches for "x" under "nothing-here"
    Then agent A's last two searches read the same, apart from the path
    When agent A reads lines 4000 to 4002 of "infra/big.txt"
    Then agent A gets "line 4000\nline 4001\nline 4002\n" of 10000 lines

  Scenario: A change cursor shows visible changes only and belongs to one perimeter
    When agent A connects to "/mcp/infra"
    And agent B connects to "/mcp/landing"
    And agent A asks for changes without a cursor
    Then agent A starts fresh
    When upstream a commit changes "infra/aws/main.tf" and "secrets/prod.env" on "main"
    And agent A asks for changes since its cursor
    Then agent A sees the changes "infra/aws/main.tf modified"
    When upstream a commit changes "secrets/prod.env" on "main"
    And agent A asks for changes since its cursor
    And agent A asks for changes since its cursor
    Then agent A's last two change answers read the same, apart from the cursor
    When agent B asks for changes with agent A's cursor
    Then agent B starts fresh
