Feature: The operator API and the surfaces around the agents
  One server holds the upstream credential. The operator manages perimeters over /api with the ops token;
  /mcp itself serves no tools; /mcp/root is the unfiltered operator surface with the whole catalogue.

  Background:
    Given the platform repository
    And a running git-blinder server

  Scenario: The operator API answers only to the ops token
    When someone lists the perimeters through the API without a token
    Then the API answers 401
    When someone lists the perimeters through the API with the token "not-the-ops-token"
    Then the API answers 401
    When the operator lists the perimeters through the API with the ops token
    Then the API answers 200

  Scenario: A perimeter's life through the API; the id "root" is reserved for the operator surface
    When the operator creates through the API the perimeter "root" reading "**" and writing "**"
    Then the API answers 400 with a message mentioning "reserved"
    And the server has no perimeter "root"
    When the operator creates through the API the perimeter "infra" reading "infra/**" and writing "infra/aws/**"
    Then the API answers 201
    And the perimeter "infra" allowlists exactly the branches "main", its default branch
    And the server lists the agent URL "/mcp/infra" for "infra"
    When the operator deletes the perimeter "infra" through the API
    Then the API answers 200
    And the agent URL "/mcp/infra" answers 404

  Scenario: /mcp serves no tools; /mcp/root serves the whole catalogue of 10 tools in both protocol eras
    Given the perimeters "infra" and "landing" exist
    When a client sends an MCP initialize request to "/mcp"
    Then the HTTP answer is 405 and mentions "/mcp/root"
    And the status page "/mcp" offers no tools, and names the perimeters "infra, landing" to the operator only
    And the agent URL "/mcp/root" answers 404 without the ops token
    When an operator client connects to "/mcp/root" speaking the legacy protocol
    Then it lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, list_branches, compare, workspace_brief, workspace_status, workspace_diff, conflict_preflight, conflict_read, submodule_status, scope_summary, integrity_check"
    When an operator client connects to "/mcp/root" speaking the auto protocol
    Then it lists exactly the tools "get_tree, get_file, get_files, search_code, changes_since, push_files, edit_file, edit_files, list_commits, get_commit, list_branches, compare, workspace_brief, workspace_status, workspace_diff, conflict_preflight, conflict_read, submodule_status, scope_summary, integrity_check"
