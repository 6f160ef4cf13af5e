#!/usr/bin/env bash
# Builds, here on the development machine, what scripts/gpu-check.sh runs on a GPU machine, and
# gathers it into gpu-bundle/ (ignored by git) with the shared libraries that machine lacks.
# Why: the lent GPU machine runs another image (CUDA toolkit, PyTorch with cuDNN and NCCL as pip
# wheels, no Debian packages, no network: /work/.library/device/KINDS.md), so it cannot build
# kiln; this machine has every dependency and the same CUDA 13.0. The binaries target sm_90
# (H100/H200) and a generic x86-64 CPU (no -march=native: that CPU is another), with Eigen's CPU
# GEMM and the CPU reference path (OpenBLAS would add 30 MB to carry, oneDNN 40 MB). The C library and the CUDA libraries are not carried
# (gpu-check.sh finds that machine's CUDA, cuDNN and NCCL); the C++ runtime goes to lib-fallback/,
# used there only if the machine's own is older.
# BUILD-INFO records the commit (scripts/gpu-check-commit.sh): gpu-check.sh refuses the bundle
# when its --commit is another, so rerun this after every commit meant for a GPU run.
# Then, with the device tool: docs/gpu-check.md ("The first window") gives the run call.
# Usage: scripts/gpu-bundle.sh     (about 30 minutes on 2 cores from scratch, minutes with ccache)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/gpu-check-commit.sh
source scripts/gpu-check-commit.sh

build=${KILN_GPU_BUNDLE_BUILD_DIR:-build-gpu-bundle}
bundle="gpu-bundle"
targets=(kiln_gpu_tests train bench kiln-doctor kiln_gpu_mlp_benchmark)

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DKILN_NATIVE=OFF -DKILN_OPENBLAS=OFF -DKILN_ONEDNN=OFF -DKILN_BUILD_TESTS=ON -DKILN_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

rm -rf "$bundle"
mkdir -p "$bundle/apps" "$bundle/tests" "$bundle/benchmarks" "$bundle/lib" "$bundle/lib-fallback"
cp "$build/apps/train" "$build/apps/bench" "$build/apps/kiln-doctor" "$bundle/apps/"
cp "$build/tests/kiln_gpu_tests" "$bundle/tests/"
cp "$build/benchmarks/kiln_gpu_mlp_benchmark" "$bundle/benchmarks/"

# Every shared library the programs load, except what the GPU machine provides itself.
for program in "$bundle"/apps/* "$bundle"/tests/* "$bundle"/benchmarks/*; do
  ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  case $name in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    # Used only if that machine's C++ runtime is older than this one's (gpu-check.sh decides).
    libstdc++.so.* | libgcc_s.so.*) cp -L "$path" "$bundle/lib-fallback/$name" ;;
    libcuda.so.* | libcudart.so.* | libcublas.so.* | libcublasLt.so.* | libcudnn*.so.* | \
      libnccl.so.* | libnvidia-ml.so.*) ;;
    *) cp -L "$path" "$bundle/lib/$name" ;;
  esac
done

{
  echo "commit: $(build_commit)"
  echo "built: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n), $(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p'), sm_90, Release, Eigen CPU GEMM"
  echo "libraries carried: $(cd "$bundle/lib" && echo *)"
  # The Open MPI release the carried libmpi is and the folder it loads its plugins from:
  # gpu-check.sh runs mpirun only where the machine's matches.
  if command -v ompi_info >/dev/null; then
    echo "openmpi: $(ompi_info --version 2>/dev/null | sed -n 's/.*Open MPI v\([0-9.]*\).*/\1/p' | head -n 1) $(ompi_info --path pkglibdir | sed 's/.*: *//')"
  fi
} >"$bundle/BUILD-INFO"
cat "$bundle/BUILD-INFO"
du -sh "$bundle"
