#!/usr/bin/env bash
# Installs the programs the tests compare against (the "peers"), when it
# can: Debian packages as root. Otherwise it says how. Sourced by test.sh
# and bench.sh; safe to run twice.
set -uo pipefail

# command -> Debian package
declare -A MCODE_PEERS=(
  [git]=git
  [rg]=ripgrep
  [fdfind]=fd-find
  [trash-put]=trash-cli
  [/usr/bin/time]=time
  [python3]=python3
  [npm]=npm
  [xz]=xz-utils
  [zstd]=zstd
  [bzip2]=bzip2
  [busybox]=busybox
  [sudo]=sudo
  [zsh]=zsh
)

install_peers() {
  local missing=() cmd
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("${MCODE_PEERS[$cmd]:-$cmd}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing test peers: ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; } ||
      echo "could not install: ${missing[*]}" >&2
  else
    echo "missing test peers: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  install_peers "${!MCODE_PEERS[@]}"
fi
