#!/usr/bin/env bash
# The one step of the GitHub action (action.yml, issue #56): install the
# tool, run the conformance suite against the adapter, write the reports and
# the job summary, set the step's outputs, and exit as the command line did.
#
# Reads the action's inputs from DSH_* variables (action.yml maps each input
# to one) and the runner's GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and
# RUNNER_TEMP; runs anywhere bash does, so `tests/action.rs` runs it with a
# runner's environment and a fixture port.
set -euo pipefail

: "${DSH_ADAPTER:?the input adapter (the command that starts your adapter) is required}"
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
action_path=${DSH_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}
version=${DSH_VERSION:-$(sed -n 's/^version = "\(.*\)"/\1/p' "$action_path/Cargo.toml" | head -n 1)}

# The tool: the one given, else the wheel (pip, any platform with a wheel),
# else the release archive of this platform (checked against SHA256SUMS),
# else `cargo install` (compiles it: minutes).
install_tool() {
  local venv="$temp/dsh-session-reference-venv" bin
  if python3 -m venv "$venv" >/dev/null 2>&1; then
    bin="$venv/bin"
    [ -d "$bin" ] || bin="$venv/Scripts" # Windows
    if "$bin/python" -m pip install --quiet --disable-pip-version-check \
      "dsh-session-reference-conformance==$version" >&2; then
      echo "$bin/dsh-session-reference"
      return
    fi
  fi
  local target archive
  if target=$(archive_target) && [ -n "${DSH_ACTION_REPOSITORY:-}" ]; then
    archive="dsh-session-reference-$version-$target"
    if download "$archive.tar.gz" && download SHA256SUMS &&
      (cd "$temp" && grep " $archive.tar.gz\$" SHA256SUMS | sha256 -c - >&2) &&
      tar -xzf "$temp/$archive.tar.gz" -C "$temp"; then
      echo "$temp/$archive/dsh-session-reference"
      return
    fi
  fi
  cargo install --quiet --locked dsh-session-reference --version "$version" --root "$temp/dsh-session-reference-cargo" >&2
  echo "$temp/dsh-session-reference-cargo/bin/dsh-session-reference"
}

# One file of this version's GitHub release into $temp.
download() {
  curl --fail --silent --show-error --location --output "$temp/$1" \
    "https://github.com/$DSH_ACTION_REPOSITORY/releases/download/v$version/$1"
}

# sha256sum, or macOS's shasum.
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

# The Rust target of this runner's archive.
archive_target() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux-aarch64) echo aarch64-unknown-linux-gnu ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
    *) return 1 ;;
  esac
}

tool=${DSH_TOOL:-}
if [ -z "$tool" ]; then
  echo "installing dsh-session-reference $version"
  tool=$(install_tool)
fi
echo "tool: $("$tool" --version)"

reports="$temp/dsh-session-reference-reports"
mkdir -p "$reports"
arguments=(conformance --impl "$DSH_ADAPTER" --format json --junit "$reports/junit.xml")
[ -z "${DSH_RELEASE:-}" ] || arguments+=(--release "$DSH_RELEASE")
[ -z "${DSH_FEATURES:-}" ] || arguments+=(--features "$DSH_FEATURES")
[ -z "${DSH_BASELINE:-}" ] || arguments+=(--baseline "$DSH_BASELINE")
[ "${DSH_COST:-false}" != true ] || arguments+=(--cost)
# Extra arguments are split on white space, as a workflow writes them.
read -r -a extra <<<"${DSH_ARGS:-}"
# (An empty array under `set -u` is an error in macOS's bash 3.2.)
arguments+=(${extra[@]+"${extra[@]}"})

status=0
"$tool" "${arguments[@]}" >"$reports/report.json" || status=$?

# The counts, read from the report's summary member.
count() { grep -o "\"$1\":[0-9]*" "$reports/report.json" | head -n 1 | cut -d: -f2; }
if [ "$status" -le 1 ] && [ -s "$reports/report.json" ]; then
  passed=$(count passed) failed=$(count failed) skipped=$(count skipped)
  "$tool" report "$reports/report.json" --html "$reports/report.html" --markdown "$reports/summary.md" >/dev/null
  {
    echo "**session-reference conformance** of \`$DSH_ADAPTER\`: $passed passed, $failed failed, $skipped skipped (exit $status)"
    echo
    cat "$reports/summary.md"
  } >"$reports/summary-with-counts.md"
  mv "$reports/summary-with-counts.md" "$reports/summary.md"
else
  passed=0 failed=0 skipped=0
  echo "**session-reference conformance** of \`$DSH_ADAPTER\` could not run (exit $status): see the step's log." >"$reports/summary.md"
fi
cat "$reports/summary.md"
[ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$reports/summary.md" >>"$GITHUB_STEP_SUMMARY"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "passed=$passed"
    echo "failed=$failed"
    echo "skipped=$skipped"
    echo "exit-code=$status"
    echo "report-dir=$reports"
    echo "report-json=$reports/report.json"
    echo "junit=$reports/junit.xml"
    echo "summary=$reports/summary.md"
    echo "html=$reports/report.html"
  } >>"$GITHUB_OUTPUT"
fi
exit "$status"
