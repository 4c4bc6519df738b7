#!/usr/bin/env bash
# Checks every released target from this machine, so that platform code
# cannot rot unseen: scripts/cross.sh [vet|testbin|all] (default all).
#
#   vet      go vet -trimpath ./... for linux, darwin, windows, freebsd ×
#            amd64, arm64 with CGO_ENABLED=0: it compiles every package and
#            type-checks its tests for that target, then vets both.
#   testbin  go test -c for darwin/arm64 and windows/amd64: every test
#            binary compiles and links there too.
#
# -trimpath matches scripts/release.sh, so a release made afterwards
# reuses the packages compiled here and only links.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64"
start=$SECONDS
if [ "$what" = vet ] || [ "$what" = all ]; then
  for target in $targets; do
    t0=$SECONDS
    CGO_ENABLED=0 GOOS=${target%/*} GOARCH=${target#*/} go vet -trimpath ./...
    echo "== cross vet $target ($((SECONDS - t0)) s)" >&2
  done
fi
if [ "$what" = testbin ] || [ "$what" = all ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  for target in darwin/arm64 windows/amd64; do
    t0=$SECONDS
    CGO_ENABLED=0 GOOS=${target%/*} GOARCH=${target#*/} go test -c -trimpath -o "$out/" ./... >/dev/null
    rm -rf "${out:?}"/*
    echo "== cross test binaries $target ($((SECONDS - t0)) s)" >&2
  done
fi
echo "== cross checks done in $((SECONDS - start)) s" >&2
