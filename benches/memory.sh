#!/usr/bin/env bash
# Peak memory of `prepare::prepare` on one session of 1 000 000 messages
# against the snapshot's own size (goal: peak ≤ 3× the snapshot).
#
#   benches/memory.sh              # 1 000 000 messages
#   benches/memory.sh 200000       # another session size
#
# Builds examples/prepare_memory.rs (release) and runs it under
# /usr/bin/time -v. The example prints VmRSS/VmHWM (from /proc/self/status)
# before and after prepare, with the high-water mark reset after the build,
# and the exact heap counts of a counting allocator; this script adds the
# whole process's peak RSS as /usr/bin/time sees it. The example's last line
# (`json: {...}`) is what benches/side-by-side.sh reads.
#
# Exit status: 2 when a tool is missing, 1 when the build or the run fails,
# 0 otherwise (a FAIL against the goal is printed, not an error).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MESSAGES="${1:-1000000}"

if ! command -v cargo >/dev/null 2>&1; then
  echo "memory.sh: missing tool: cargo" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "memory.sh: missing tool: /usr/bin/time (Debian: apt-get install -y time)" >&2
  exit 2
fi

TARGET_DIR="${CARGO_TARGET_DIR:-$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')}"
TARGET_DIR="${TARGET_DIR:-target}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/prepare-memory.XXXXXX")"

if ! cargo build --release --example prepare_memory >"$WORK/build.log" 2>&1; then
  echo "memory.sh: building examples/prepare_memory failed; log: $WORK/build.log" >&2
  tail -20 "$WORK/build.log" >&2
  exit 1
fi

status=0
/usr/bin/time -v -o "$WORK/time.txt" "$TARGET_DIR/release/examples/prepare_memory" "$MESSAGES" \
  >"$WORK/out.txt" || status=$?
cat "$WORK/out.txt"
if [[ $status -ne 0 ]]; then
  echo "memory.sh: prepare_memory exited with status $status" >&2
  cat "$WORK/time.txt" >&2 || true
  exit 1
fi

max_kib="$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$WORK/time.txt")"
wall="$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time.txt")"
snapshot_bytes="$(sed -n 's/^json: .*"snapshot_bytes":\([0-9]*\).*/\1/p' "$WORK/out.txt")"
ratio="$(awk -v rss="$max_kib" -v snap="$snapshot_bytes" 'BEGIN { printf "%.2f", rss * 1024 / snap }')"
echo "whole process (/usr/bin/time -v): maximum resident set size $((max_kib / 1024)) MiB" \
  "($max_kib kB) = ${ratio}× the snapshot's own size (build, baseline and prepare), wall clock $wall"
rm -rf "$WORK"
