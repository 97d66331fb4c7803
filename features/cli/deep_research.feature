Feature: ChatGPT Deep Research calls search and fetch
  Deep Research and ChatGPT connectors call two fixed tools: `search` and `fetch`. A perimeter that names them gets
  them as aliases of search_code and get_file: the same window, the same refusals, one result per readable file,
  ids sealed to the perimeter, and a file above the answer cap cut with `truncated`.

  Background:
    Given the platform repository
    And a 10000-line file "infra/big.txt" is committed on "main"
    And a running git-blinder server
    And the perimeter "deep" reading "infra/**" with the tools "search, fetch" and an answer cap of 8192 bytes
    And the perimeter "ops" reading "**" with the tools "search, fetch"

  Scenario: Deep Research's two calls against a perimeter
    When agent R connects to "/mcp/deep"
    And agent R calls search for "bucket"
    Then agent R's search results are exactly "infra/aws/main.tf, infra/gcp/main.tf"
    And agent R fetches every result and reads each file's text
    When agent R calls search for "DB_PASSWORD"
    Then agent R's search results are exactly ""
    When agent O connects to "/mcp/ops"
    And agent O calls search for "# platform"
    Then agent O's search results are exactly "README.md"
    When agent R fetches agent O's first result
    And agent R fetches the made-up id "gbi1.bm90LWEtcmVhbC1pZC1hdC1hbGwtbm90LWEtcmVhbC1pZA"
    Then agent R's last two fetches read the same
    When agent R calls search for "line 9999"
    And agent R fetches its first result
    Then agent R gets the start of "infra/big.txt" cut at a line, with truncated true and its sizes
