#!/usr/bin/env bash
# Adapter between the official MCP client conformance suite and mcode:
# the suite starts a test server, then runs this script with the server's
# URL as the last argument and the scenario in MCP_CONFORMANCE_SCENARIO.
# Each scenario is played with mcode's own commands against a config that
# names that one server.
set -euo pipefail
url=${!#}
mcode=${MCODE_BIN:-mcode}
# The server is declared in the person's own config (the user file), the
# only layer whose MCP servers run without a person's trust; it lies
# outside /tmp, where mcode would take a config as the caller's.
state=${XDG_STATE_HOME:-$HOME/.local/state}/mcode-conformance
mkdir -p "$state"
work=$(mktemp -d "$state/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export MCODE_HOME=$work/home XDG_CONFIG_HOME=$work/config
unset MCODE_CONFIG
mkdir -p "$XDG_CONFIG_HOME/mcode"
printf 'mcpServers:\n  conformance: {url: "%s", timeout: 20s}\n' "$url" >"$XDG_CONFIG_HOME/mcode/config.yaml"

case "${MCP_CONFORMANCE_SCENARIO:-}" in
initialize)
  "$mcode" connector servers
  ;;
tools_call)
  "$mcode" connector tools --server conformance
  "$mcode" connector call conformance__add_numbers --args '{"a": 5, "b": 3}'
  ;;
sse-retry)
  "$mcode" connector call conformance__test_reconnection
  ;;
*)
  # Scenarios of features mcode does not offer (baseline.yml says which
  # and why): connect and list, as any call does.
  "$mcode" connector tools --server conformance
  ;;
esac
