#!/usr/bin/env bash
# Proves the CUDA backend on a machine with an NVIDIA GPU, in about 8 minutes on an H100/H200:
# the GPU tests (each must run: a skip fails the check), the article's table in fp32, TF32 and
# bf16 and with CUDA graphs, a large GEMM-bound MLP step against cuBLAS's own rate, kiln against
# PyTorch eager on the same GPU (where PyTorch is installed), data-parallel training on every GPU
# (--gpus; mpirun with NCCL where mpirun exists), and compute-sanitizer memcheck over the GPU
# tests, in that order, so that what is cut when time runs out matters least. Each stage has a
# timeout inside one overall deadline.
#
# Two ways to get the programs:
# - gpu-bundle/ present (scripts/gpu-bundle.sh made it on the development machine): the lent GPU
#   machine runs another image with no Debian packages and no network, so it runs the bundle's
#   programs against its own CUDA, cuBLAS, cuDNN and NCCL libraries (found here, below).
#   Device tool: command "bash scripts/gpu-check.sh", carry ["gpu-bundle"], timeout_s 580.
# - otherwise, on a GPU machine with kiln's Debian dependencies, it configures and builds
#   build-gpu/ first (minutes more).
#
# Writes $OUT/gpu-check-summary.md (date, GPU, commit, result and wall time per stage, failures,
# figures; also printed) and $OUT/gpu-check-logs.tar.gz (every stage's log and the bench
# tables); without $OUT, into the build folder. Exit status 0 only when every stage passed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bundle="gpu-bundle"
if [[ -f $bundle/BUILD-INFO ]]; then
  build=$bundle
else
  build=${KILN_GPU_BUILD_DIR:-build-gpu}
fi
out=${OUT:-$build}
logs=$(mktemp -d /tmp/gpu-check-logs.XXXX)
mkdir -p "$out"
jobs=$(nproc)
deadline=$((SECONDS + 510))  # 8 min 30 s for the stages, whatever each one's own limit
cuda_bin=/usr/local/cuda/bin
export PATH="$PATH:$cuda_bin"

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
if [[ $build == "$bundle" ]]; then
  commit=$(sed -n 's/^commit: //p' "$bundle/BUILD-INFO")
else
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
  if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then commit+=" (with uncommitted changes)"; fi
fi
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
fail() {  # fail NAME REASON: a check that is not a command of its own
  rows+=("| $1 | FAILED: $2 | 0 s |")
  status=1
}

# The failures and figures from the stage logs, so that the summary alone can be recorded in
# docs/gpu-check.md.
# shellcheck disable=SC2317  # called through the EXIT trap
figures() {
  local log name
  for log in "$logs/gpu-tests.log" "$logs/compute-sanitizer.log"; do
    [[ -f $log ]] || continue
    if grep -qE '^\[  FAILED  \]|^\[  SKIPPED \]|========= (Invalid|Program hit|ERROR)' "$log"; then
      echo
      echo "## Failed or skipped in $(basename "$log" .log)"
      echo
      grep -E '^\[  FAILED  \]|^\[  SKIPPED \]|========= (Invalid|Program hit|ERROR)' "$log" |
        grep -vE 'tests?, listed below' | sed -E 's/ \([0-9]+ ms\)$//' | sort -u | head -40 |
        sed 's/^/    /' || true
    fi
  done
  # The end of every failed stage's log: often the reason in one line.
  for log in "$logs"/*.log; do
    name=$(basename "$log" .log)
    [[ $name != gpu-tests && $name != compute-sanitizer ]] || continue
    if printf '%s\n' "${rows[@]}" | grep -qE "^\| $name \| (FAILED|TIMED OUT)"; then
      echo
      echo "## Why $name failed (end of its log)"
      echo
      tail -n 5 "$log" | sed 's/^/    /'
    fi
  done
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
    if [[ $build == "$bundle" ]]; then echo "- programs: $(sed -n 's/^built: //p' "$bundle/BUILD-INFO")"; fi
    echo "- total wall time: ${SECONDS} s"
    echo
    echo "| stage | result | wall |"
    echo "| --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    if [[ $status == 0 ]]; then echo "**PASS**"; else echo "**FAIL** (logs: gpu-check-logs.tar.gz)"; fi
    figures
  } >"$out/gpu-check-summary.md"
  tar -czf "$out/gpu-check-logs.tar.gz" -C "$logs" . 2>/dev/null || true
  echo "=== gpu-check: summary"
  cat "$out/gpu-check-summary.md"
}
trap summary EXIT

# --- the GPU
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  fail nvidia-smi "no NVIDIA GPU or driver answers"
  exit 1
fi
gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu_count=$(nvidia-smi -L | wc -l)
echo "=== gpu-check: $gpu, driver $driver, $gpu_count GPU(s), $jobs cores"
nvidia-smi

# The folder holding the first file named $1 in the places CUDA, the driver and Python's
# packages (PyTorch's cuDNN and NCCL wheels) keep their libraries; nothing if none.
library_dir() {
  local root hit
  local -a roots=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib
                  /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu)
  # shellcheck disable=SC2207  # site folders hold no spaces
  roots+=($(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true))
  for root in "${roots[@]}"; do
    [[ -d $root ]] || continue
    hit=$(find "$root" -maxdepth 5 -name "$1" -print -quit 2>/dev/null || true)
    if [[ -n $hit ]]; then
      dirname "$hit"
      return
    fi
  done
}

if [[ $build == "$bundle" ]]; then
  # --- the bundle's programs against this machine's CUDA libraries
  echo "=== gpu-check: programs from $bundle/ ($(sed -n 's/^built: //p' "$bundle/BUILD-INFO"))"
  library_path=$PWD/$bundle/lib
  for library in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libnccl.so.2 \
      libnvidia-ml.so.1; do
    dir=$(library_dir "$library")
    if [[ -n $dir && :$library_path: != *:$dir:* ]]; then library_path+=:$dir; fi
    echo "    $library: ${dir:-not found}"
  done
  export LD_LIBRARY_PATH=$library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  unresolved() {  # libraries (or symbol versions) the programs cannot find
    local program
    for program in "$bundle"/apps/* "$bundle"/tests/* "$bundle"/benchmarks/*; do
      ldd "$program" 2>&1 | grep 'not found' || true
    done | sort -u | tr -s ' \t\n' ' '
  }
  missing=$(unresolved)
  if [[ $missing == *GLIBCXX* || $missing == *GCC_* ]]; then  # an older C++ runtime here
    echo "    this machine's C++ runtime is older than the bundle's: using the bundle's"
    export LD_LIBRARY_PATH=$PWD/$bundle/lib-fallback:$LD_LIBRARY_PATH
    missing=$(unresolved)
  fi
  if [[ -n $missing ]]; then
    fail libraries "not found on this machine: $missing"
    exit 1
  fi
  rows+=("| libraries | ok: every library the programs load was found | 0 s |")
else
  # --- configure and build (only what the later stages run)
  if ! stage configure 90 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DKILN_BUILD_TESTS=ON -DKILN_BUILD_BENCHMARKS=ON; then
    exit 1
  fi
  stage build 300 cmake --build "$build" -j"$jobs" \
    --target kiln_gpu_tests train bench kiln_gpu_mlp_benchmark || exit 1
fi

# --- the GPU tests, straight from the gtest program (the bundle carries no CTest files); each
# must run, not skip. With one GPU the test that needs two is left out by name.
filter=()
if ((gpu_count < 2)); then filter=(--gtest_filter='-NcclCommunicator.TrainingOnEveryGpuFollowsOneGpuAtTheSameGlobalBatch')
fi
if stage gpu-tests 150 "$build/tests/kiln_gpu_tests" "${filter[@]}"; then
  if grep -q '^\[  SKIPPED \]' "$logs/gpu-tests.log"; then
    fail "gpu-tests: no skips" "some GPU tests skipped (see the list below)"
  else
    rows+=("| gpu-tests: no skips | ok: $(grep -oE '^\[  PASSED  \] [0-9]+ tests?' "$logs/gpu-tests.log" | tail -1 || true) | 0 s |")
  fi
fi

# --- the article's speedup table on this GPU in each precision (40,000 samples, scaled to the
# 160,000-sample epoch), beside the article's own figures
for precision in fp32 tf32 bf16; do
  stage "bench-$precision" 45 "$build/apps/bench" --gpu-only --samples 40000 --precision "$precision" \
    --out "$logs/bench-$precision" || true
done
stage bench-fp32-cuda-graph 45 "$build/apps/bench" --gpu-only --samples 40000 --cuda-graph \
  --out "$logs/bench-fp32-cuda-graph" || true

# --- a large GEMM-bound MLP step (batch 4096, width 4096) against cuBLAS's own GEMM rate
stage gpu-mlp-benchmark 60 "$build/benchmarks/kiln_gpu_mlp_benchmark" || true

# --- kiln against PyTorch eager on this GPU, same network, data and batch sizes (the script
# says so and shows kiln alone where PyTorch is missing)
stage compare-pytorch 90 env PYTHONUNBUFFERED=1 python3 scripts/compare-pytorch.py --device gpu \
  --build "$build" --batch-sizes 256 1024 --samples 40000 --repeats 3 || true

# --- data-parallel training on every GPU: one process with a thread per GPU (ncclCommInitAll),
# then one process per GPU under mpirun (rank 0's ncclUniqueId broadcast by MPI). One GPU runs
# both code paths; more prove the all-reduce across devices.
gpu_list=$(seq -s, 0 $((gpu_count - 1)))
train_job=(--model article --data article --samples 40000 --epochs 1 --batch-size $((256 * gpu_count))
           --workers 4 --pin-memory --schedule constant)
stage train-gpus 60 "$build/apps/train" --gpus "$gpu_list" "${train_job[@]}" || true
if command -v mpirun >/dev/null; then
  stage train-mpirun-nccl 60 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none -np "$gpu_count" \
    -x LD_LIBRARY_PATH "$build/apps/train" --device=gpu "${train_job[@]}" || true
else
  skip train-mpirun-nccl "no mpirun on this machine"
fi

# --- memcheck over the GPU suite in one process, last: it takes what time is left. The NCCL
# suites are left to the plain run: memcheck would judge NCCL's own kernels and its cuMem
# allocations.
sanitizer=$(command -v compute-sanitizer || true)
if [[ -z $sanitizer && -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ]]; then
  sanitizer=/usr/local/cuda/compute-sanitizer/compute-sanitizer
fi
if [[ -z $sanitizer ]]; then
  fail compute-sanitizer "compute-sanitizer not found in PATH or $cuda_bin"
else
  stage compute-sanitizer 240 "$sanitizer" --tool memcheck --error-exitcode 1 --leak-check no \
    "$build/tests/kiln_gpu_tests" --gtest_filter='-NcclCommunicator.*' || true
  if grep -q '^\[  SKIPPED \]' "$logs/compute-sanitizer.log" 2>/dev/null; then
    fail "compute-sanitizer: no skips" "tests skipped under the sanitizer"
  fi
fi

exit $status
