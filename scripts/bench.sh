#!/usr/bin/env bash
# Side-by-side benchmarks of performance.md: each case times mcode and its
# peer in the same run (hyperfine, warm cache, median of RUNS runs) and
# prints one table of medians, ratios, peak RSS and result counts.
#   scripts/bench.sh            every case
#   scripts/bench.sh P1 P8      only those cases
# Env: RUNS (default 10), BENCH_DIR (default a temp dir, removed after).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

need() {
  local missing=()
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; }
  else
    echo "bench needs: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2; exit 1
  fi
}
need hyperfine
[ -x /usr/bin/time ] || need time

RUNS=${RUNS:-10}
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
export MCODE_HOME=$work/mcode-home
scripts/build.sh "$work/mcode" 2>/dev/null
MCODE=$work/mcode

# median_ms CSV NAME: the median of one command in a hyperfine CSV, in ms.
median_ms() { awk -F, -v n="$2" '$1==n {printf "%.2f", $4*1000}' "$1"; }
# peak_rss_kib CMD: peak resident set of one run, in KiB (after $PREPARE).
peak_rss_kib() {
  [ -z "${PREPARE:-}" ] || bash -c "$PREPARE"
  /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -1
}

printf '%-4s %-44s %10s %10s %7s %10s %10s  %s\n' case what mcode_ms peer_ms ratio mcode_kib peer_kib peer >&2
rows=()
# bench ID WHAT MCODE_CMD PEER_NAME PEER_CMD [NOTE]
# With PREPARE set, that command runs before every timed run (hyperfine
# --prepare), e.g. to restore a file the commands change.
bench() {
  local id=$1 what=$2 mine=$3 peer_name=$4 peer=$5 note=${6:-}
  local csv=$work/$id.csv
  local prep=()
  [ -z "${PREPARE:-}" ] || prep=(--prepare "$PREPARE")
  hyperfine --style none --warmup 3 --runs "$RUNS" --export-csv "$csv" "${prep[@]}" \
    -n mcode "$mine" -n peer "$peer" >/dev/null 2>&1
  local a b ratio ra rb
  a=$(median_ms "$csv" mcode); b=$(median_ms "$csv" peer)
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "-" }')
  ra=$(peak_rss_kib "$mine"); rb=$(peak_rss_kib "$peer")
  local row
  row=$(printf '%-4s %-44s %10s %10s %7s %10s %10s  %s %s' "$id" "$what" "$a" "$b" "${ratio}x" "$ra" "$rb" "$peer_name" "$note")
  echo "$row" >&2
  rows+=("$row")
}

want() { [ ${#selected[@]} -eq 0 ] && return 0; local c; for c in "${selected[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1; }
selected=("$@")

# --- corpus -----------------------------------------------------------
small=$work/small.go
seq 1 20 | sed 's/^/\/\/ line /' >"$small"

# --- cases --------------------------------------------------------------
if want P1; then
  bench P1 "one small call: datetime (20-line file peer)" "$MCODE datetime" "cat -n" "cat -n $small"
  bench P1n "the floor of a Node tool" "$MCODE datetime" "node -e 0" "node -e 0"
fi

if want P9; then
  # A 10 MiB Go source file (the toolchain's own sources) with two anchors
  # in the middle: one to match exactly, one whose curly quotes and em dash
  # only a fuzzy match finds from a straight-quoted old_string.
  big=$work/big.go
  { find "$(go env GOROOT)/src" -name '*.go' -print0 | sort -z | xargs -0 cat 2>/dev/null | head -c $((10 << 20)) >"$work/go.cat"; } || true
  mid=$(($(wc -l <"$work/go.cat") / 2))
  {
    head -n "$mid" "$work/go.cat"
    printf 'var benchAnchorExact = 1 // P9\n\tmsg := \xe2\x80\x9cbench anchor \xe2\x80\x94 fuzzy\xe2\x80\x9d\n'
    tail -n +"$((mid + 1))" "$work/go.cat"
  } >"$big.orig"
  export PREPARE="cp $big.orig $big"
  # changed_lines CMD: run CMD on a fresh copy; how many lines differ after.
  changed_lines() { bash -c "$PREPARE" && bash -c "$1" >/dev/null 2>&1; diff "$big.orig" "$big" | grep -c '^[<>]' || true; }

  exact_old='var benchAnchorExact = 1' exact_new='var benchAnchorExact = 2'
  mine="$MCODE edit $big --old '$exact_old' --new '$exact_new'"
  peer="sed -i 's/$exact_old/$exact_new/' $big"
  bench P9e "edit 10 MiB file, exact match" "$mine" "sed -i" "$peer" \
    "(lines changed: mcode $(changed_lines "$mine"), sed $(changed_lines "$peer"))"

  fuzzy_old='msg := "bench anchor - fuzzy"' fuzzy_new='msg := "bench anchor - done"'
  mine="$MCODE edit $big --old '$fuzzy_old' --new '$fuzzy_new'"
  # The peer is pi's own edit tool (pi-coding-agent from npm), run by node.
  pi=$work/pi
  if command -v npm >/dev/null 2>&1 && mkdir -p "$pi" &&
    npm install --prefix "$pi" --no-audit --no-fund --ignore-scripts --loglevel=error \
      @mariozechner/pi-coding-agent@0.73.1 >/dev/null 2>&1; then
    cat >"$pi/pi-edit.mjs" <<'JS'
// node pi-edit.mjs FILE OLD NEW: one call of pi's edit tool.
import { createEditTool } from "./node_modules/@mariozechner/pi-coding-agent/dist/core/tools/edit.js";
const [file, oldText, newText] = process.argv.slice(2);
const r = await createEditTool(process.cwd()).execute("bench", { path: file, edits: [{ oldText, newText }] });
if (!r.details) { console.error(r.content?.map((c) => c.text).join("")); process.exit(1); }
JS
    peer="node $pi/pi-edit.mjs $big '$fuzzy_old' '$fuzzy_new'"
    bench P9f "edit 10 MiB file, fuzzy match" "$mine" "pi edit" "$peer" \
      "(lines changed: mcode $(changed_lines "$mine"), pi $(changed_lines "$peer"))"
  else
    echo "P9f: could not install pi-coding-agent from npm; fuzzy case timed alone" >&2
    bench P9f "edit 10 MiB file, fuzzy match" "$mine" "sed -i" "sed -i 's/bench anchor/bench anchor/' $big"
  fi
  unset PREPARE
fi

echo >&2
echo "runs=$RUNS, median of each; ratio = mcode / peer (lower is better); RSS = peak KiB of one run" >&2
