#!/usr/bin/env bash
# Installs every Debian package softik needs, and, where the CUDA toolkit (nvcc) is installed,
# NVIDIA cuDSS from PyPI for the GPU sparse direct solver. Idempotent; quiet when everything is
# there.
# Usage: scripts/setup.sh [--sanitize | --calculix]   (run as root, or with sudo available;
#        --sanitize: also clang and libomp, for scripts/test.sh --sanitize and scripts/fuzz.sh;
#        --calculix: also CalculiX, the peer bench/calculix_compare.py runs softik against, and
#                    GNU time, which measures both programs' peak memory)
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config
  ccache                   # compiler cache: CI's second build of the sources reuses the first's objects
  libeigen3-dev            # fixed-size linear algebra used by host and device code
  libsuitesparse-dev       # CHOLMOD (sparse Cholesky)
  libopenblas-dev libopenblas0-pthread  # OpenBLAS: CHOLMOD is ~4x slower on reference BLAS
  libgtest-dev             # unit tests
  libbenchmark-dev         # bench/
  libyaml-cpp-dev          # scene files (YAML)
  zlib1g-dev               # zlib: compressed .vtu output and input
  libspectra-dev           # Spectra: shift-invert Lanczos for natural frequencies (modes:)
  doxygen                  # the C++ API reference (scripts/docs.sh)
  libopenmpi-dev openmpi-bin  # softik batch --mpi and its test (optional: without it, SOFTIK_MPI=AUTO builds without)
)

SUDO=""
apt_updated=0
# apt_install PACKAGE...: installs those not installed yet (quiet when there are none).
apt_install() {
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "softik setup: missing Debian packages: ${missing[*]}" >&2
      echo "softik setup: run this script as root, or install sudo, or install them yourself with apt-get" >&2
      exit 1
    fi
    SUDO="sudo"
  fi
  echo "softik setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if [ "$apt_updated" -eq 0 ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "softik setup: done"
}

apt_install "${packages[@]}"
# scripts/test.sh --sanitize and scripts/fuzz.sh build with clang (libFuzzer comes with it).
if [ "${1:-}" = "--sanitize" ]; then
  apt_install clang
fi
if [ "${1:-}" = "--calculix" ]; then
  apt_install calculix-ccx time  # time: GNU time, the peak memory of each run
fi

# ---- Python: the module softik's build and tests (scripts/requirements-python.txt) -------------
# numpy, pytest, meshio, matplotlib, nanobind and scikit-build-core for the first python3 on PATH
# (the one CMake's SOFTIK_PYTHON=AUTO finds). Optional: when they cannot be installed the build
# goes on with "Python module OFF" and the Python tests skip. Before the cuDSS section, which
# ends the script early on machines without nvcc.
py_requirements="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/requirements-python.txt"
py_modules="import numpy, pytest, meshio, matplotlib, nanobind, scikit_build_core"
if command -v python3 >/dev/null 2>&1 && ! python3 -c "$py_modules" >/dev/null 2>&1; then
  py="$(command -v python3)"
  if [ "$py" = /usr/bin/python3 ]; then
    # Debian's python3: its headers (the extension's build) and pip come as Debian packages.
    apt_install python3-dev python3-pip
  fi
  py_args=(install -q --disable-pip-version-check --no-input -r "$py_requirements")
  [ "$(id -u)" -ne 0 ] && py_args+=(--user)
  echo "softik setup: installing the Python packages of $py_requirements with $py -m pip"
  export PIP_ROOT_USER_ACTION=ignore
  if ! py_log=$("$py" -m pip "${py_args[@]}" 2>&1); then
    if printf '%s' "$py_log" | grep -q "externally-managed-environment"; then
      # Debian's own python3 (PEP 668).
      "$py" -m pip "${py_args[@]}" --break-system-packages ||
        echo "softik setup: warning: could not install the Python packages; the Python module will be OFF" >&2
    else
      printf '%s\n' "$py_log" >&2
      echo "softik setup: warning: could not install the Python packages; the Python module will be OFF" >&2
    fi
  fi
fi

# ---- cuDSS (GPU sparse direct solver), only useful with the CUDA backend ----------------------
# The PyPI wheel nvidia-cudss-cu13 holds cudss.h and libcudss.so.1 (under
# <site-packages>/nvidia/cu13/{include,lib}, where CMake looks for them). Installed without its
# pip dependencies (cuBLAS and NVRTC wheels, ~700 MB): the CUDA toolkit already has
# libcublas.so.13 and libnvrtc.so.13.
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  exit 0
fi
cudss_spec='nvidia-cudss-cu13>=1.0,<2'
# cudss_installed PYTHON: whether PYTHON sees the wheel's header and library.
cudss_installed() {
  "$1" - <<'PY' 2>/dev/null
import importlib.util, os, sys
try:
    spec = importlib.util.find_spec("nvidia.cu13")
except Exception:
    spec = None
for root in (spec.submodule_search_locations or []) if spec else []:
    if os.path.isfile(os.path.join(root, "include", "cudss.h")) and os.path.isfile(os.path.join(root, "lib", "libcudss.so.1")):
        sys.exit(0)
sys.exit(1)
PY
}
pythons=()
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1; then pythons+=("$(command -v "$py")"); fi
done
for py in "${pythons[@]}"; do
  if cudss_installed "$py"; then exit 0; fi
done
# pip: that of the first python3 that has one, else Debian's python3-pip.
python=""
for py in "${pythons[@]}"; do
  if "$py" -m pip --version >/dev/null 2>&1; then python="$py"; break; fi
done
if [ -z "$python" ]; then
  apt_install python3-pip
  python=/usr/bin/python3
fi
pip_args=(install -q --no-deps --disable-pip-version-check --no-input)
[ "$(id -u)" -ne 0 ] && pip_args+=(--user)
echo "softik setup: installing $cudss_spec with $python -m pip (the cuDSS GPU solver)"
export PIP_ROOT_USER_ACTION=ignore
if ! log=$("$python" -m pip "${pip_args[@]}" "$cudss_spec" 2>&1); then
  if printf '%s' "$log" | grep -q "externally-managed-environment"; then
    # Debian's own python3 (PEP 668): a wheel of shared libraries touches no Debian package.
    "$python" -m pip "${pip_args[@]}" --break-system-packages "$cudss_spec"
  else
    # cuDSS is optional: the build goes on without it (CMake prints "cuDSS OFF").
    printf '%s\n' "$log" >&2
    echo "softik setup: warning: could not install $cudss_spec; the cudss solver will be unavailable" >&2
    exit 0
  fi
fi
if ! cudss_installed "$python"; then
  echo "softik setup: $cudss_spec installed, but $python finds no nvidia/cu13/include/cudss.h and lib/libcudss.so.1" >&2
  exit 1
fi
echo "softik setup: done"
