#!/usr/bin/env bash
# Proves the CUDA backend on a machine with an NVIDIA GPU, in under 8 minutes on a 16-core
# H100/H200 box: builds for sm_90 in build-gpu/, runs the GPU test label (failing if any test
# skips instead of running), runs the GPU tests under compute-sanitizer memcheck, trains briefly
# data-parallel on every GPU present (--gpus, and mpirun with NCCL bootstrapped over MPI), prints
# the article table in fp32, TF32 and bf16, the large-MLP step against cuBLAS's GEMM rate, and
# kiln against PyTorch eager on the same GPU (where PyTorch is installed). Every stage has a timeout inside one overall
# deadline; a summary (date, GPU, commit, result and wall time per stage) is printed and written to
# ${OUT:-build-gpu}/gpu-check-summary.md, with each stage's log beside it.
# Usage: scripts/gpu-check.sh        (exit status 0 only when every stage passed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${KILN_GPU_BUILD_DIR:-build-gpu}  # another folder only for trying the script out
out=${OUT:-$build}
logs=$out/gpu-check-logs
mkdir -p "$out" "$logs"
jobs=$(nproc)
deadline=$((SECONDS + 470))  # 7 min 50 s for everything, whatever each stage's own limit
cuda_bin=/usr/local/cuda/bin
export PATH="$PATH:$cuda_bin"

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then commit+=" (with uncommitted changes)"; fi
gpu="none"
driver="-"
declare -a rows=()
status=0

# stage NAME LIMIT_S COMMAND...: runs COMMAND with its output in $logs/NAME.log (and on the
# console), under min(LIMIT_S, time left); records ok / FAILED / TIMED OUT and the wall time.
stage() {
  local name=$1 limit=$2 start=$SECONDS rc=0 result
  shift 2
  local left=$((deadline - SECONDS))
  ((limit < left)) || limit=$left
  if ((limit < 5)); then
    rows+=("| $name | not run: out of time | 0 s |")
    status=1
    return 1
  fi
  echo "=== gpu-check: $name (limit ${limit} s)"
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$logs/$name.log" || rc=$?
  case $rc in
    0) result=ok ;;
    124 | 137) result="TIMED OUT after ${limit} s" ;;
    *) result="FAILED (exit $rc)" ;;
  esac
  rows+=("| $name | $result | $((SECONDS - start)) s |")
  [[ $rc == 0 ]] || status=1
  return $rc
}
skip() {  # skip NAME REASON
  rows+=("| $1 | skipped: $2 | 0 s |")
}

# The figures and failures from the stage logs, so that the summary alone can be recorded in
# docs/gpu-check.md.
# shellcheck disable=SC2317  # called through the EXIT trap
figures() {
  local log
  if [[ -f $logs/ctest-gpu.log ]] && grep -qE '\(Failed\)|\(Timeout\)' "$logs/ctest-gpu.log"; then
    echo
    echo "## Failed GPU tests"
    echo
    grep -E '\(Failed\)|\(Timeout\)' "$logs/ctest-gpu.log" | head -30 | sed 's/^/    /' || true
  fi
  for log in "$logs"/bench-*.log; do
    [[ -f $log ]] || continue
    echo
    echo "## $(basename "$log" .log)"
    echo
    grep -E 'per epoch' "$log" | sed 's/^/    /' || true
  done
  for log in "$logs/gpu-mlp-benchmark.log" "$logs/compare-pytorch.log"; do
    [[ -f $log ]] || continue
    echo
    echo "## $(basename "$log" .log)"
    echo
    grep -E '^\||^GPU:|^article|^PyTorch|compare-pytorch:' "$log" || true
  done
}

# shellcheck disable=SC2317  # called through the EXIT trap
summary() {
  {
    echo "# kiln gpu-check"
    echo
    echo "- date: $started"
    echo "- host: $(uname -n)"
    echo "- GPU: $gpu (driver $driver)"
    echo "- CUDA: $("$cuda_bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || echo '?')"
    echo "- commit: $commit"
    echo "- total wall time: ${SECONDS} s"
    echo
    echo "| stage | result | wall |"
    echo "| --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    if [[ $status == 0 ]]; then echo "**PASS**"; else echo "**FAIL** (logs: $logs/)"; fi
    figures
  } >"$out/gpu-check-summary.md"
  echo "=== gpu-check: summary"
  cat "$out/gpu-check-summary.md"
}
trap summary EXIT

# --- the GPU
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  rows+=("| nvidia-smi | FAILED: no NVIDIA GPU or driver answers | 0 s |")
  status=1
  exit 1
fi
gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
echo "=== gpu-check: $gpu, driver $driver, $jobs cores"
nvidia-smi

# --- build dependencies: install-deps.sh installs only what is missing; the GPU box may have no
# network, so a failure here is reported but the build is still tried.
if [[ -f scripts/install-deps.sh ]]; then
  stage install-deps 60 bash scripts/install-deps.sh || true
fi

# --- configure and build (only what the later stages run)
# CMake < 3.26 does not know nvcc's C++20 flag; the two CUDA20 variables supply it and are
# ignored by a CMake that knows it.
if ! stage configure 90 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DKILN_BUILD_TESTS=ON \
    -DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 \
    -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20; then
  exit 1
fi
targets=(kiln_gpu_tests train bench)
target_list=$(cmake --build "$build" --target help 2>/dev/null || true)  # no grep -q: pipefail
for benchmark in kiln_gpu_mlp_benchmark kiln_gemm_benchmark; do
  if [[ $target_list == *$benchmark* ]]; then targets+=("$benchmark"); fi
done
stage build 300 cmake --build "$build" -j"$jobs" --target "${targets[@]}" || exit 1

# --- the GPU tests through ctest; each one must run, not skip
gpu_tests=$build/tests/kiln_gpu_tests
if stage ctest-gpu 150 ctest --test-dir "$build" -L gpu --output-on-failure --no-tests=error \
    -j8 --timeout 120; then
  if grep -qE 'Skipped|Not Run|\[  SKIPPED \]' "$logs/ctest-gpu.log"; then
    rows+=("| ctest-gpu: no skips | FAILED: some GPU tests skipped (see ctest-gpu.log) | 0 s |")
    status=1
  else
    rows+=("| ctest-gpu: no skips | ok: $(grep -oE 'tests passed, [0-9]+ tests failed out of [0-9]+' "$logs/ctest-gpu.log" | tail -1 || true) | 0 s |")
  fi
fi

# --- memcheck over the whole GPU suite in one process
sanitizer=$(command -v compute-sanitizer || true)
if [[ -z $sanitizer && -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ]]; then
  sanitizer=/usr/local/cuda/compute-sanitizer/compute-sanitizer
fi
if [[ -z $sanitizer ]]; then
  rows+=("| compute-sanitizer | FAILED: compute-sanitizer not found in PATH or $cuda_bin | 0 s |")
  status=1
else
  # The NCCL suites are left to the plain run: memcheck would judge NCCL's own kernels and its
  # cuMem allocations (and the training comparisons would only add minutes).
  stage compute-sanitizer 180 "$sanitizer" --tool memcheck --error-exitcode 1 --leak-check no \
    "$gpu_tests" --gtest_filter='-NcclCommunicator.*' || true
  if grep -q '\[  SKIPPED \]' "$logs/compute-sanitizer.log" 2>/dev/null; then
    rows+=("| compute-sanitizer: no skips | FAILED: tests skipped under the sanitizer | 0 s |")
    status=1
  fi
fi

# --- data-parallel training on every GPU: one process with a thread per GPU (ncclCommInitAll),
# then one process per GPU under mpirun (rank 0's ncclUniqueId broadcast by MPI). One GPU is
# enough to run both code paths; more prove the all-reduce across devices.
gpu_count=$(nvidia-smi -L | wc -l)
gpu_list=$(seq -s, 0 $((gpu_count - 1)))
train_job=(--model article --data article --samples 40000 --epochs 1 --batch-size $((256 * gpu_count))
           --workers 4 --pin-memory --schedule constant)
stage train-gpus 90 "$build/apps/train" --gpus "$gpu_list" "${train_job[@]}" || true
if command -v mpirun >/dev/null; then
  stage train-mpirun-nccl 90 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none -np "$gpu_count" \
    "$build/apps/train" --device=gpu "${train_job[@]}" || true
else
  skip train-mpirun-nccl "no mpirun (install openmpi-bin)"
fi

# --- the article's speedup table on this GPU in each precision (40,000 samples, scaled to the
# 160,000-sample epoch), beside the article's own figures
for precision in fp32 tf32 bf16; do
  stage "bench-$precision" 45 "$build/apps/bench" --gpu-only --samples 40000 --precision "$precision" \
    --out "$out/bench-$precision" || true
done
stage bench-fp32-cuda-graph 45 "$build/apps/bench" --gpu-only --samples 40000 --cuda-graph \
  --out "$out/bench-fp32-cuda-graph" || true

# --- a large GEMM-bound MLP step (batch 4096, width 4096) against cuBLAS's own GEMM rate
if [[ -x $build/benchmarks/kiln_gpu_mlp_benchmark ]]; then
  stage gpu-mlp-benchmark 60 "$build/benchmarks/kiln_gpu_mlp_benchmark" || true
else
  skip gpu-mlp-benchmark "not built"
fi

# --- kiln against PyTorch eager on this GPU, same network, data and batch sizes (the script
# says so and shows kiln alone where PyTorch is missing)
stage compare-pytorch 60 python3 scripts/compare-pytorch.py --device gpu --build "$build" \
  --batch-sizes 256 1024 --samples 40000 --repeats 3 || true

exit $status
