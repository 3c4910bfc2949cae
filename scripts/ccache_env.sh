# Sourced by scripts/build.sh and scripts/check_wheel.sh: compile through ccache when it is
# installed (scripts/setup.sh installs it), so that a second build of the same sources in another
# folder takes its objects from the first one's. In CI, the wheel's SOFTIK_CUDA=OFF build
# (check_wheel.sh) follows the default build (test.sh) and recompiles only the files whose
# preprocessed text depends on the CUDA backend. CCACHE_BASEDIR makes the paths under the
# source tree relative to each build folder, so the folders' own paths (generated sources, the
# tests' unity files) do not set the objects apart. SOFTIK_CCACHE=OFF compiles without it.
# Sets: ccache_cmake_args (CMake arguments: the launcher, or none).
root="${root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
ccache_cmake_args=()
if [ "${SOFTIK_CCACHE:-ON}" != "OFF" ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$root"
  # ccache keys objects by the compiler's name too: CMake finds c++ in one build and the wheel's
  # CMake (scikit-build-core) g++, the same program, and nothing would be shared. Name it once
  # (a compiler given by the caller, e.g. CXX=clang++ for the sanitizer build, is kept).
  export CC="${CC:-cc}" CXX="${CXX:-c++}"
  ccache_cmake_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
