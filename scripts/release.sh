#!/usr/bin/env bash
# Makes a release in dist/: scripts/release.sh [--snapshot] [VERSION]
#
# One static binary per target (CGO_ENABLED=0, version and commit stamped
# with -ldflags), packed by internal/release into an archive per target,
# SHA256SUMS, a CycloneDX bill of materials per archive (from the build
# information go version -m reads), a Homebrew formula, a Scoop manifest
# and the npm package set, packed with npm pack into dist/npm/*.tgz.
#
# VERSION is semver (a leading v is dropped). A release needs it and a
# clean tree; --snapshot takes the latest tag (or 0.0.0) and marks it
# -snapshot.gCOMMIT, and allows changes (the binaries then say dirty).
# MCODE_RELEASE_URL overrides where the manifests download the archives
# from (default: the GitHub release of the version); MCODE_RELEASE_TARGETS
# builds fewer targets (space-separated OS/ARCH), for a quick look;
# MCODE_DIST writes elsewhere than dist/ (the folder is emptied first).
#
# npm refuses to install a package whose os and cpu do not fit the machine
# (EBADPLATFORM: that is how `npm i -g mcode` fetches one binary), so to
# try the packages offline install mcode's tarball and the machine's own:
#   npm install -g --offline --prefix DIR dist/npm/mcode-VERSION.tgz \
#     dist/npm/mcode-dev-mcode-linux-x64-VERSION.tgz
#
# Plain go builds, not GoReleaser: eight builds and a small Go packager
# need no tool to install (CI has no network but the module proxy, and a
# GoReleaser build costs minutes of the two CPUs), and every step is here
# to read.
set -euo pipefail
cd "$(dirname "$0")/.."

snapshot=0
version=""
for arg in "$@"; do
  case $arg in
    --snapshot) snapshot=1 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "release: unknown flag $arg (usage: scripts/release.sh [--snapshot] [VERSION])" >&2; exit 2 ;;
    *) [ -z "$version" ] || { echo "release: one VERSION only" >&2; exit 2; }; version=${arg#v} ;;
  esac
done

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$snapshot" = 1 ]; then
  if [ -z "$version" ]; then
    base=$(git describe --tags --abbrev=0 2>/dev/null || echo v0.0.0)
    version="${base#v}-snapshot.g${commit:0:7}"
  fi
else
  [ -n "$version" ] || { echo "release: give the VERSION (or --snapshot)" >&2; exit 2; }
  if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    echo "release: the tree has changes; commit them, or use --snapshot" >&2; exit 1
  fi
fi

targets=${MCODE_RELEASE_TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64"}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
pkg=github.com/mcode-dev/mcode/cmd

dist=${MCODE_DIST:-dist}
if [ -n "$(ls -A "$dist" 2>/dev/null)" ] && [ ! -e "$dist/SHA256SUMS" ] && [ ! -d "$dist/bin" ]; then
  echo "release: $dist holds something that is not a release; refusing to empty it" >&2; exit 1
fi
rm -rf "$dist"
mkdir -p "$dist/bin"
start=$SECONDS
for target in $targets; do
  goos=${target%/*} goarch=${target#*/}
  exe=mcode; [ "$goos" = windows ] && exe=mcode.exe
  echo "== build $goos/$goarch" >&2
  # -buildvcs=true: the binary records the commit for go version -m
  # (and mcode version), whatever GOFLAGS says.
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=true \
    -ldflags "-s -w -X $pkg.version=$version -X $pkg.commit=$commit" \
    -o "$dist/bin/${goos}_${goarch}/$exe" .
done
echo "== built $(echo "$targets" | wc -w) targets in $((SECONDS - start)) s" >&2

echo "== package $version" >&2
go run ./internal/release -dist "$dist" -version "$version" -epoch "$epoch" ${MCODE_RELEASE_URL:+-url "$MCODE_RELEASE_URL"} \
  ${MCODE_RELEASE_TARGETS:+-targets "$MCODE_RELEASE_TARGETS"}

if command -v npm >/dev/null 2>&1; then
  echo "== npm pack" >&2
  for dir in "$dist"/npm/src/*/; do
    npm pack --silent --pack-destination "$dist/npm" "$dir" >/dev/null
  done
else
  echo "release: npm is not installed: $dist/npm/src holds the packages, unpacked" >&2
fi
(cd "$dist" && sha256sum -c --quiet SHA256SUMS)
echo "release $version in $dist/ ($((SECONDS - start)) s)" >&2
