# Sourced by scripts/test.sh --sanitize and scripts/fuzz.sh: how the sanitizers report. Any
# finding stops the process with a non-zero status (a failed test, a fuzzer crash).
root="${root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
