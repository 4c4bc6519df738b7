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
# peak_rss_kib CMD: peak resident set of one run, in KiB.
peak_rss_kib() { /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -1; }

printf '%-4s %-44s %10s %10s %7s %10s %10s  %s\n' case what mcode_ms peer_ms ratio mcode_kib peer_kib peer >&2
rows=()
# bench ID WHAT MCODE_CMD PEER_NAME PEER_CMD [NOTE]
# BENCH_HF_OPTS adds hyperfine options (-N: no shell, for cases of a few ms).
bench() {
  local id=$1 what=$2 mine=$3 peer_name=$4 peer=$5 note=${6:-}
  local csv=$work/$id.csv
  # shellcheck disable=SC2086 # BENCH_HF_OPTS holds several words
  hyperfine ${BENCH_HF_OPTS:-} --style none --warmup 3 --runs "$RUNS" --export-csv "$csv" \
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

# overhead ID: mcode's median minus the peer's, in ms (P10's target).
overhead() { awk -F, '$1=="mcode" {a=$4} $1=="peer" {b=$4} END {printf "%.2f", (a-b)*1000}' "$work/$1.csv"; }

if want P10; then
  # The default run goes through a supervisor (so that it can turn into a
  # background task after 15 s); --auto-background=false runs the shell
  # directly under mcode.
  BENCH_HF_OPTS=-N bench P10 "mcode bash 'true' (supervised, the default)" "$MCODE bash true" "bash -c true" "bash -c true"
  BENCH_HF_OPTS=-N bench P10d "mcode bash 'true' --auto-background=false" "$MCODE bash --auto-background=false true" "bash -c true" "bash -c true"
  rows+=("P10  overhead over bash: supervised $(overhead P10) ms, direct $(overhead P10d) ms (target <= 5 ms)")
  echo "${rows[-1]}" >&2
fi
if want P11; then
  # Every run keeps a 256 MiB spool (full_output_path); they go afterwards.
  bench P11 "mcode bash 'yes | head -c 1G'" "$MCODE bash 'yes | head -c 1G'" "bash -c '… > /dev/null'" "bash -c 'yes | head -c 1G > /dev/null'"
  bench P11d "  the same, --auto-background=false" "$MCODE bash --auto-background=false 'yes | head -c 1G'" "bash -c '… | cat'" "bash -c 'yes | head -c 1G | cat > /dev/null'" "(an extra pipe hop)"
  rm -rf "$MCODE_HOME/tasks"
fi

echo >&2
echo "runs=$RUNS, median of each; ratio = mcode / peer (lower is better); RSS = peak KiB of one run" >&2
