#!/usr/bin/env bash
# Installs every Debian package softik needs. Idempotent; quiet when everything is there.
# Usage: scripts/setup.sh        (run as root, or with sudo available)
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config
  libeigen3-dev            # fixed-size linear algebra used by host and device code
  libsuitesparse-dev       # CHOLMOD (sparse Cholesky)
  libopenblas-dev libopenblas0-pthread  # OpenBLAS: CHOLMOD is ~4x slower on reference BLAS
  libgtest-dev             # unit tests
  libbenchmark-dev         # bench/
  libyaml-cpp-dev          # scene files (YAML)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
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
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "softik setup: done"
