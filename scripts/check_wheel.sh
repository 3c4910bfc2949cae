#!/usr/bin/env bash
# Proves what a Python user runs and what a user without the CUDA toolkit builds, with one
# compile of softik (.ci/run's step 3):
#   1. `pip install .` as docs/python.md shows it (scikit-build-core, the build options of
#      pyproject.toml: no CUDA backend), into a new virtual environment that holds nothing else
#      but the test requirements (scripts/requirements-python.txt). The C++ tests are switched on
#      in that same build (-Ccmake.define.SOFTIK_BUILD_TESTS=ON: the wheel still installs only the
#      Python component), so its build folder is also a plain SOFTIK_CUDA=OFF build;
#   2. every C++ test in that CUDA-off build (ctest; the sanitizer build of step 2 leaves out the
#      long ones of tests/sanitizer_long_tests.txt);
#   3. the Python tests (tests/python/) against the installed package, from a folder outside the
#      source tree, so that `import softik` can only find the wheel.
# Usage: scripts/check_wheel.sh
# Environment:
#   SOFTIK_WHEEL_BUILD  the build folder pip uses (default build-wheel/; kept, so a second run
#                       compiles only what changed)
#   SOFTIK_WHEEL_VENV   where the virtual environment goes (default: a new temporary folder,
#                       removed at the end unless the check failed)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOFTIK_WHEEL_BUILD:-$root/build-wheel}"
if [ -n "${SOFTIK_WHEEL_VENV:-}" ]; then
  venv="$SOFTIK_WHEEL_VENV"
  rm -rf "$venv"
  keep=1
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/softik-wheel.XXXXXX")"
  venv="$work/venv"
  keep=0
fi
"$root/scripts/setup.sh"  # the Debian packages the C++ build needs
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)
export PIP_ROOT_USER_ACTION=ignore
"${pip[@]}" install -q -r "$root/scripts/requirements-python.txt"
# shellcheck source=scripts/ccache_env.sh
source "$root/scripts/ccache_env.sh"
wheel_args=()
for a in "${ccache_cmake_args[@]}"; do wheel_args+=("-Ccmake.define.${a#-D}"); done
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "${pip[@]}" install "$root" -Cbuild-dir="$build" \
  -Ccmake.define.SOFTIK_BUILD_TESTS=ON "${wheel_args[@]}"
echo "-- check_wheel: pip install . took $((SECONDS - start)) s"
"$venv/bin/python" - <<'EOF'
import pathlib, softik
if softik._import_error is not None:
    raise SystemExit(f"check_wheel: the installed softik has no extension: {softik._import_error}")
print(f"-- check_wheel: softik imported from {pathlib.Path(softik.__file__).parent}")
EOF
# The C++ tests of the CUDA-off build (the Python ones run below, against the wheel).
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" --timeout 600 --exclude-regex '^Python\.pytest$'
outside="$(mktemp -d "${TMPDIR:-/tmp}/softik-wheel-tests.XXXXXX")"
(
  cd "$outside"
  SOFTIK_CLI="$build/softik" MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$outside" "$root/tests/python"
)
rm -rf "$outside"
[ "$keep" -eq 0 ] && rm -rf "$work"
echo "-- check_wheel: passed"
