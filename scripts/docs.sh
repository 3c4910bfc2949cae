#!/usr/bin/env bash
# Builds softik's C++ API reference from the public headers (include/softik/) with Doxygen
# (docs/Doxyfile) and fails on any warning. Writes only under the output folder.
#
# Usage: scripts/docs.sh [OUTPUT_DIR]     (default: build/docs, or $SOFTIK_BUILD_DIR/docs)
#   HTML: OUTPUT_DIR/html/index.html; warnings, if any: OUTPUT_DIR/doxygen-warnings.log.
# Needs the Debian package doxygen (scripts/setup.sh installs it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${SOFTIK_BUILD_DIR:-$root/build}/docs}"

if ! command -v doxygen >/dev/null 2>&1; then
  echo "softik docs: doxygen is not installed (scripts/setup.sh installs it, or apt-get install doxygen)" >&2
  exit 1
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log="$out/doxygen-warnings.log"
rm -f "$log"

version=$(sed -n 's/^project(softik VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt" | head -n 1)
cd "$root"
status=0
SOFTIK_DOCS_OUT="$out" SOFTIK_DOCS_VERSION="${version:-}" doxygen docs/Doxyfile || status=$?
if [ -s "$log" ]; then
  echo "softik docs: doxygen warnings ($log):" >&2
  cat "$log" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "softik docs: doxygen failed (exit status $status)" >&2
  exit "$status"
fi
echo "softik docs: $out/html/index.html"
