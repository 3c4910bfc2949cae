#!/usr/bin/env bash
# Builds softik's libFuzzer targets with clang (ASan + UBSan, no CUDA, no tests) into build-fuzz/
# and runs
# each for SECONDS (default 600) on a copy of its seed corpus (fuzz/corpus/<target>/; new inputs
# stay in build-fuzz/corpus/, the repository's seeds are not touched). docs/fuzzing.md records
# the runs. Exits non-zero when a target finds a crash, leak, hang or escaped exception; its
# reproducer is then in build-fuzz/findings/<target>/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   targets: scene network gmsh vtk vtu obj stl batch expression
#        (default all)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(scene network gmsh vtk vtu obj stl batch expression)
build="${SOFTIK_FUZZ_DIR:-$root/build-fuzz}"
# shellcheck source=scripts/sanitize_env.sh
source "$root/scripts/sanitize_env.sh"
# SOFTIK_FUZZ_NO_BUILD=1: run the targets already built (e.g. several fuzz.sh at once, one per
# core, each with its own targets).
if [ "${SOFTIK_FUZZ_NO_BUILD:-0}" != 1 ]; then
  "$root/scripts/setup.sh" --sanitize
  CC=clang CXX=clang++ SOFTIK_BUILD_DIR="$build" "$root/scripts/build.sh" -DSOFTIK_FUZZ=ON -DSOFTIK_CUDA=OFF \
    -DSOFTIK_BUILD_TESTS=OFF -DSOFTIK_BUILD_BENCH=OFF -DSOFTIK_BUILD_EXAMPLES=OFF
fi
status=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t" findings="$build/findings/$t" log="$build/logs/$t.log"
  mkdir -p "$work" "$findings" "$(dirname "$log")"
  echo "softik fuzz: $t for $seconds s (log $log)"
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: a reader allocating 2 GB for a
  # small file is a finding; leaks are reported by LeakSanitizer at exit of each input batch.
  if ! "$build/fuzz/fuzz_$t" "$work" "$root/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
    echo "softik fuzz: $t FAILED; see $log and $findings/" >&2
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" "$log" | tr '\n' ' ' | sed "s/^/softik fuzz: $t: /"
  echo
done
exit $status
