#!/usr/bin/env bash
# Checks the CMake package end to end (docs/embedding.md): builds softik, installs it into a
# temporary prefix, configures the consumer project examples/embedding/ out of tree against that
# prefix (CMAKE_PREFIX_PATH, find_package(softik)), builds it and runs its programs (a forward
# solve, an inverse step loop and a batch, each checking its own result). .ci/run's third step.
# Usage: scripts/check_install.sh [CMAKE_ARGS...]   (arguments go to softik's configure)
# Environment:
#   SOFTIK_INSTALL_CHECK_BUILD  softik's build folder (default build-install-check/). A folder
#                               that is already configured is used as it is (built, installed):
#                               .ci/run passes the build of its first step, so nothing is
#                               compiled again. A new one is configured Release without tests,
#                               benchmarks, examples and the CUDA backend: the library and the
#                               CLI only, through ccache when it is installed.
#   SOFTIK_INSTALL_CHECK_DIR    where the prefix and the consumer's build go (default: a new
#                               temporary folder, removed at the end unless the check failed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOFTIK_INSTALL_CHECK_BUILD:-$root/build-install-check}"
jobs="$(nproc)"

if [ -n "${SOFTIK_INSTALL_CHECK_DIR:-}" ]; then
  work="$SOFTIK_INSTALL_CHECK_DIR"
  rm -rf "$work/prefix" "$work/consumer"
  mkdir -p "$work"
  keep=1
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/softik-install-check.XXXXXX")"
  keep=0
fi
prefix="$work/prefix"
consumer="$work/consumer"
# The temporary folder goes only when every step passed: on failure it holds what to look at.
cleanup() {
  local status=$?
  if [ "$status" -eq 0 ] && [ "$keep" -eq 0 ]; then
    rm -rf "$work"
  elif [ "$status" -ne 0 ]; then
    echo "check_install: FAILED (exit $status); prefix and consumer build kept in $work" >&2
  fi
}
trap cleanup EXIT

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  echo "check_install: configuring softik in $build (library and CLI only)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOFTIK_CUDA=OFF \
        -DSOFTIK_BUILD_TESTS=OFF -DSOFTIK_BUILD_BENCH=OFF -DSOFTIK_BUILD_EXAMPLES=OFF \
        "${launcher[@]}" "$@" >"$work/configure-softik.log" 2>&1 || { cat "$work/configure-softik.log" >&2; exit 1; }
  grep -E "^-- softik:" "$work/configure-softik.log" || true
elif [ $# -gt 0 ]; then
  echo "check_install: $build is configured already; CMake arguments are only for a new build folder" >&2
  exit 1
fi
echo "check_install: building the library and the CLI in $build"
cmake --build "$build" --parallel "$jobs" --target softik softik_cli
echo "check_install: installing into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

# The layout docs/embedding.md promises.
libdir="$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")"
for path in bin/softik include/softik/scene.hpp include/softik/fem/tensor.hpp \
            "$libdir/cmake/softik/softikConfig.cmake" "$libdir/cmake/softik/softikConfigVersion.cmake" \
            "$libdir/cmake/softik/softikTargets.cmake"; do
  [ -e "$prefix/$path" ] || { echo "check_install: the install has no $path" >&2; exit 1; }
done
if ! ls "$prefix/$libdir"/libsoftik.* >/dev/null 2>&1; then
  echo "check_install: the install has no $libdir/libsoftik.*" >&2
  exit 1
fi
# Nothing private reaches the prefix: the headers are the public tree only, and the exported
# targets name no folder of the source or build tree (an absolute path of this machine would
# break the package once the prefix moves or the build folder goes).
if find "$prefix/include" -type f ! -path "$prefix/include/softik/*" | grep -q .; then
  echo "check_install: files outside include/softik/ were installed:" >&2
  find "$prefix/include" -type f ! -path "$prefix/include/softik/*" >&2
  exit 1
fi
if grep -rlF -e "$root" -e "$build" "$prefix/$libdir/cmake/softik"; then
  echo "check_install: the package files above name the source or build folder" >&2
  exit 1
fi
"$prefix/bin/softik" --version

echo "check_install: building examples/embedding against the installed softik"
cmake -S "$root/examples/embedding" -B "$consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure-consumer.log" 2>&1 \
  || { cat "$work/configure-consumer.log" >&2; exit 1; }
cmake --build "$consumer" --parallel "$jobs"
ctest --test-dir "$consumer" --output-on-failure --timeout 300
echo "check_install: passed"
