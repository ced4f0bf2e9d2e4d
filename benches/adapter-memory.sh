#!/usr/bin/env bash
# Peak memory through the adapter, as a user runs it, beside upstream's on
# the same request (issue #61): each request of benches/round-trip.mjs
# (candidates/list over 100 000 sessions, dense mention/parse, prepare of
# 8 000 messages) sent alone to a fresh adapter process, the reference as
# rc.8 (`adapter --release 0.1.0-rc.8`) and the upstream npm package rc.8,
# each process's peak resident set read by /usr/bin/time; the two answers
# must be identical.
#
#   benches/adapter-memory.sh                  # best of 3 runs per process
#   RUNS=1 benches/adapter-memory.sh
#   SKIP_UPSTREAM_PREPARE=1 benches/adapter-memory.sh   # upstream prepare is ~25 s
#
# The figure is the whole process's: start-up, the request line, reading
# it, answering and writing the answer. Goal (issue #61): candidates/list
# over 100 000 sessions at most 34 MB (34 × 2^20 bytes) through the adapter.
#
# Exit status: 2 when a tool is missing, 1 when an answer differs from
# upstream's or an adapter fails, 0 otherwise (a goal FAIL is printed, not
# an exit status).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS="${RUNS:-3}"
GOAL_KIB=$((34 * 1024))
missing() {
  echo "adapter-memory.sh: missing tool: $*" >&2
  exit 2
}
command -v cargo >/dev/null 2>&1 || missing "cargo"
command -v node >/dev/null 2>&1 || missing "node (Node.js ≥ 20)"
[[ -x /usr/bin/time ]] || missing "/usr/bin/time (Debian: apt-get install -y time)"
UPSTREAM_DIR=conformance/adapters/upstream-npm
[[ -d "$UPSTREAM_DIR/node_modules/@deepseek-ai/dsh-session-reference" ]] ||
  (cd "$UPSTREAM_DIR" && npm ci --no-audit --no-fund >/dev/null)

cargo build --release --quiet
OURS=(target/release/dsh-session-reference adapter --release 0.1.0-rc.8)
THEIRS=(node "$UPSTREAM_DIR/adapter.mjs")
WORK="$(mktemp -d "${TMPDIR:-/tmp}/adapter-memory.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
DUMP_DIR="$WORK" node benches/round-trip.mjs

# The lowest peak (kB) of RUNS fresh processes answering one request
# file; the answer is left in $WORK/answer-<name>.
peak_kib() {
  local name=$1 request=$2
  shift 2
  local best=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%M" -o "$WORK/time" "$@" <"$request" >"$WORK/answer-$name" ||
      { echo "adapter-memory.sh: $* failed on $request" >&2; exit 1; }
    local kib
    kib=$(tail -n 1 "$WORK/time")
    if [[ -z "$best" || "$kib" -lt "$best" ]]; then best=$kib; fi
  done
  echo "$best"
}
mib() { awk -v kib="$1" 'BEGIN { printf "%.1f MB", kib / 1024 }'; }

status=0
printf '%-22s %10s %14s %14s %8s  %s\n' "request" "bytes" "upstream" "ours" "ratio" "answers, goal"
for request in "$WORK"/*.jsonl; do
  name=$(basename "$request" .jsonl)
  bytes=$(wc -c <"$request")
  ours=$(peak_kib ours "$request" "${OURS[@]}")
  if [[ "$name" == prepare-* && "${SKIP_UPSTREAM_PREPARE:-0}" == 1 ]]; then
    printf '%-22s %10d %14s %14s %8s  %s\n' "$name" "$bytes" "-" "$(mib "$ours")" "-" "upstream skipped"
    continue
  fi
  theirs=$(peak_kib theirs "$request" "${THEIRS[@]}")
  verdict="identical"
  if ! cmp -s "$WORK/answer-ours" "$WORK/answer-theirs"; then
    verdict="DIFFER"
    status=1
  fi
  if [[ "$name" == candidates-* ]]; then
    if [[ "$ours" -le "$GOAL_KIB" ]]; then verdict+=", goal ≤ 34 MB: ok"; else verdict+=", goal ≤ 34 MB: FAIL"; fi
  fi
  ratio=$(awk -v a="$theirs" -v b="$ours" 'BEGIN { printf "%.1f×", a / b }')
  printf '%-22s %10d %14s %14s %8s  %s\n' "$name" "$bytes" "$(mib "$theirs")" "$(mib "$ours")" "$ratio" "$verdict"
done
exit $status
