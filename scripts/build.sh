#!/usr/bin/env bash
# Builds the static mcode binary: scripts/build.sh [OUTPUT] (default bin/mcode).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bin/mcode}
pkg=github.com/mcode-dev/mcode/cmd
version=${MCODE_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse HEAD 2>/dev/null || true)
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X $pkg.version=$version -X $pkg.commit=$commit" \
  -o "$out" .
echo "built $out ($version)" >&2
