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
  # render: LibreOffice opens every docx, xlsx and pptx; python-docx and
  # openpyxl read their structure back; poppler checks the PDFs; pandoc is
  # the speed anchor; a TrueType CJK font (and Noto CJK, whose CFF outlines
  # render must skip).
  [/usr/lib/libreoffice/program/libswlo.so]=libreoffice-writer-nogui
  [/usr/lib/libreoffice/program/libsclo.so]=libreoffice-calc-nogui
  [/usr/lib/libreoffice/program/libsdlo.so]=libreoffice-impress-nogui
  [/usr/lib/python3/dist-packages/docx/__init__.py]=python3-docx
  [/usr/lib/python3/dist-packages/openpyxl/__init__.py]=python3-openpyxl
  [pdftotext]=poppler-utils
  [pandoc]=pandoc
  [/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc]=fonts-wqy-zenhei
  [/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]=fonts-noto-cjk
  [busybox]=busybox
  [sudo]=sudo
  [zsh]=zsh
)

install_peers() {
  local missing=() cmd
  for cmd in "$@"; do
    # A key is a command, or the path of a file the package installs.
    command -v "$cmd" >/dev/null 2>&1 || [ -e "$cmd" ] || missing+=("${MCODE_PEERS[$cmd]:-$cmd}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing test peers: ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } ||
      echo "could not install: ${missing[*]}" >&2
  else
    echo "missing test peers: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  install_peers "${!MCODE_PEERS[@]}"
fi
