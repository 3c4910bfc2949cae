#!/usr/bin/env bash
# Builds softik for a separate GPU machine (docs/gpu.md) into build-gpu/: CUDA backend ON,
# CHOLMOD OFF, sm_90 (H100/H200), Release; then stages what a device run carries:
#   build-gpu/bin/   the built programs, stripped (RUNPATH $ORIGIN/../lib)
#   build-gpu/lib/   the shared libraries they need that the GPU machine lacks (it has CUDA 13
#                    and nothing else: yaml-cpp, Google Benchmark, zlib, ...; GoogleTest is
#                    linked statically, Debian ships only libgtest.a)
#   build-gpu/pack.tar.gz  bin/ and lib/ gzip'd into one file (~38 MiB for every default target;
#                    bin/ alone is ~100 MiB, over what a device call carries)
#   build-gpu/cudss/ libcudss.so.1 (160 MB, over the 64 MiB a device call carries) in parts of
#                    SOFTIK_CUDSS_PART_MB (40) MiB, and its sha256 in build-gpu/lib/
# softik opens libcudss.so.1 at run time, so everything but the cuDSS solver runs without it
# (its tests skip, naming what was tried).
#
# Usage: scripts/gpu_build.sh [TARGET...]
#   TARGETs default to softik_cuda_tests, the softik CLI (softik_cli), bench_linear_solver,
#   bench_batch_designs and every bench_cuda_* program.
#   SOFTIK_GPU_CMAKE_ARGS adds CMake arguments; SOFTIK_GPU_BUILD_DIR replaces build-gpu/.
#
# On the device: one call carrying build-gpu/pack.tar.gz runs everything except cuDSS, e.g.
# `scripts/gpu_run.sh tests` (it unpacks the file). For cuDSS too,
# first carry each part in its own call, back to back (the machine stays warm 30 s after a call):
#   carry ["build-gpu/cudss/libcudss.so.1.part-aa"]:
#       mkdir -p /tmp/softik-cudss && cp build-gpu/cudss/libcudss.so.1.part-* /tmp/softik-cudss/
#   ... the same for part-ab, part-ac, ...; then carry ["build-gpu/pack.tar.gz"]:
#       scripts/gpu_run.sh      (joins the parts, checks their sha256, unpacks, runs)
# (libcudss.so.1 needs CUDA 13's libcublas.so.13 and libnvrtc.so.13, hence /usr/local/cuda/lib64.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOFTIK_GPU_BUILD_DIR:-$root/build-gpu}"
part_mb="${SOFTIK_CUDSS_PART_MB:-40}"

# Keep the build folder out of git (it is carried to the device as an ignored path).
exclude="$(git -C "$root" rev-parse --git-path info/exclude 2>/dev/null || true)"
if [ -n "$exclude" ]; then
  case "$exclude" in /*) ;; *) exclude="$root/$exclude" ;; esac
  mkdir -p "$(dirname "$exclude")"
  entry="/$(realpath --relative-to="$root" "$build")/"
  grep -qxF "$entry" "$exclude" 2>/dev/null || echo "$entry" >>"$exclude"
fi

extra=()
if [ -n "${SOFTIK_GPU_CMAKE_ARGS:-}" ]; then
  read -r -a extra <<<"$SOFTIK_GPU_CMAKE_ARGS"
fi
# shellcheck disable=SC2016  # $ORIGIN is for the linker, not the shell
if ! log=$(cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DSOFTIK_CUDA=ON -DSOFTIK_WITH_CHOLMOD=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  '-DCMAKE_BUILD_RPATH=$ORIGIN/../lib;$ORIGIN/lib' "${extra[@]}" 2>&1); then
  printf '%s\n' "$log" >&2
  exit 1
fi
printf '%s\n' "$log" | grep -E "^-- softik:" || true

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(softik_cuda_tests softik_cli)
  while read -r t; do targets+=("$t"); done < <(ninja -C "$build" -t targets all |
    sed -n 's/^\(bench_cuda_[A-Za-z0-9_]*\|bench_linear_solver\|bench_batch_designs\): phony$/\1/p' | sort -u)
fi
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"

# ---- stage bin/ and lib/ -------------------------------------------------------------------
rm -rf "${build:?}/bin" "${build:?}/lib" "${build:?}/cudss"
mkdir -p "$build/bin" "$build/lib"
for t in "${targets[@]}"; do
  name="$t"
  [ "$t" = softik_cli ] && name=softik  # the CLI target's program is build/softik
  exe=$(find "$build" -path "$build/bin" -prune -o -type f -executable -name "$name" -print | head -n 1)
  if [ -z "$exe" ]; then
    echo "softik gpu_build: no program named $name was built (not an executable target?)" >&2
    exit 1
  fi
  cp "$exe" "$build/bin/$name"
  strip --strip-unneeded "$build/bin/$name"
done
# Shared libraries from outside glibc, the GCC runtime and the CUDA toolkit (the GPU machine has
# those) go to lib/.
for exe in "$build"/bin/*; do
  ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
    case "$soname" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) continue ;;
      libcuda.so*|libcudart.so*|libcublas*|libcusolver*|libcusparse*|libnvJitLink*|libnvrtc*|libcufft*|libcurand*) continue ;;
    esac
    case "$path" in /usr/local/cuda*) continue ;; esac
    [ -e "$build/lib/$soname" ] || cp -L "$path" "$build/lib/$soname"
  done
done

# ---- cuDSS, in parts -------------------------------------------------------------------------
cudss=$(sed -n 's/^CUDSS_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if grep -q '^SOFTIK_WITH_CUDSS:STRING=OFF' "$build/CMakeCache.txt" 2>/dev/null || [ -z "$cudss" ] ||
  [ ! -f "$cudss" ]; then
  echo "softik gpu_build: built without cuDSS (scripts/setup.sh installs it); nothing staged for it"
else
  mkdir -p "$build/cudss"
  (cd "$(dirname "$cudss")" && sha256sum "$(basename "$cudss")") |
    awk '{print $1 "  libcudss.so.1"}' >"$build/lib/libcudss.so.1.sha256"
  split -b "${part_mb}M" -a 2 "$cudss" "$build/cudss/libcudss.so.1.part-"
fi

# bin/ and lib/ as one compressed file: the programs are ~100 MiB, over what a device call carries.
tar -C "$build" -czf "$build/pack.tar.gz" bin lib
echo "softik gpu_build: staged in $build (carry pack.tar.gz, which scripts/gpu_run.sh unpacks; the cuDSS parts each alone):"
du -sh "$build/pack.tar.gz" "$build/bin" "$build/lib" "$build/cudss"/* 2>/dev/null | sed 's/^/  /'
carried=$(du -sb "$build/pack.tar.gz" | awk '{print $1}')
if [ "$carried" -gt $((56 * 1024 * 1024)) ]; then
  echo "softik gpu_build: pack.tar.gz is $((carried / 1024 / 1024)) MiB, over what one device call carries" \
    "with the source tree (64 MiB): build fewer targets (scripts/gpu_build.sh softik_cuda_tests)" >&2
fi
