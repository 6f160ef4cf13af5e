#!/usr/bin/env bash
# Proves the CUDA backend on a machine with an NVIDIA GPU in at most 8 minutes, most valuable
# first: every GPU test suite in its own process (op parity; a sticky CUDA error then voids one
# suite, not the run; a skip fails the check), the article's CPU-vs-GPU table in fp32, a small
# GPT trained on the GPU against the same run on the CPU, compute-sanitizer memcheck over kiln's
# own kernels (exact-size device allocations) and racecheck over those that share memory, each
# one process, data-parallel training (NCCL), a large GEMM-bound MLP step against cuBLAS's own
# rate, the table in TF32, bf16 and with CUDA graphs, kiln against PyTorch eager, mpirun with
# NCCL, and kiln-doctor. Each stage has its own limit (scripts/gpu-check-budget.sh: a floor it
# needs, plus a share of KILN_GPU_CHECK_BUDGET seconds, default 480; docs/gpu-check.md sets it
# from the lease), so a hang costs its stage and a short lease still gives the first verdicts.
#
# Two ways to get the programs:
# - gpu-bundle/ present (scripts/gpu-bundle.sh made it on the development machine): the lent GPU
#   machine runs another image with no Debian packages and no network, so it runs the bundle's
#   programs against its own CUDA, cuBLAS, cuDNN and NCCL libraries (found here, below). The run
#   must name the commit it expects (--commit, `git rev-parse --short HEAD` where the bundle was
#   built): a bundle of another commit is refused at once (scripts/gpu-check-commit.sh).
#   Device tool: docs/gpu-check.md ("The first window": the command, timeout_s and carry).
# - otherwise, on a GPU machine with kiln's Debian dependencies, it configures and builds
#   build-gpu/ first (minutes more, outside the budget); --commit, if given, must be HEAD.
#
# After every stage and suite it rewrites $OUT/gpu-check-summary.md (date, GPU, commit, result,
# limit and wall time per stage and per suite, failed and skipped tests, figures) and
# $OUT/gpu-check-logs.tar.gz (every log, each suite's gtest XML); without $OUT, into the build
# folder. A run killed at any moment, SIGKILL included, leaves the summary of what it had done.
# Exit status: 0 when every stage passed, 1 when one failed, 3 when nothing failed but the budget
# ran out before every verdict, 2 when the check could not start: a budget that is not usable, a
# bundle of another commit or no --commit for a bundle (the reason printed and in the summary).
# Usage: [KILN_GPU_CHECK_BUDGET=SECONDS] scripts/gpu-check.sh [--commit HASH]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
here=$PWD

expected_commit=""
while (($# > 0)); do
  case $1 in
    --commit) expected_commit=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
    --commit=*) expected_commit=${1#--commit=}; shift ;;
    *) echo "gpu-check: unknown argument '$1' (usage: [KILN_GPU_CHECK_BUDGET=SECONDS] scripts/gpu-check.sh [--commit HASH])" >&2
       exit 2 ;;
  esac
done

bundle="gpu-bundle"
if [[ -f $bundle/BUILD-INFO ]]; then
  build=$bundle
else
  build=${KILN_GPU_BUILD_DIR:-build-gpu}
fi
out=${OUT:-$build}

# The programs must be of the commit this run expects, before anything else is spent.
# shellcheck source=scripts/gpu-check-commit.sh
source scripts/gpu-check-commit.sh
refuse() {  # refuse REASON: exit 2 at once, the reason on stderr and as the summary
  echo "gpu-check: REFUSED: $1" >&2
  mkdir -p "$out" && printf '# kiln gpu-check\n\n**REFUSED** (exit 2): %s\n' "$1" >"$out/gpu-check-summary.md"
  exit 2
}
if [[ $build == "$bundle" ]]; then
  commit=$(sed -n 's/^commit: //p' "$bundle/BUILD-INFO")
  [[ -n $expected_commit ]] ||
    refuse "$bundle/ holds the programs of commit ${commit:-(none recorded)}: name the commit this run expects with --commit \$(git rev-parse --short HEAD) of the build machine, so that a stale bundle is refused"
  if reason=$(commit_mismatch "$expected_commit" "$commit"); then refuse "$bundle/: $reason"; fi
else
  commit=$(build_commit)
  if [[ -n $expected_commit ]] && reason=$(commit_mismatch "$expected_commit" "$commit"); then
    refuse "this checkout (the programs are built from it): $reason"
  fi
fi
# Logs in a fixed folder (kept for a rerun on the warm machine), published into $out as an archive.
logs=${KILN_GPU_CHECK_LOGS:-/tmp/kiln-gpu-check-logs}
rm -rf "$logs"
mkdir -p "$out" "$logs/suites" "$logs/memcheck" "$logs/racecheck"
jobs=$(nproc)
cuda_bin=/usr/local/cuda/bin
export PATH="$PATH:$cuda_bin"

# shellcheck source=scripts/gpu-check-budget.sh
source scripts/gpu-check-budget.sh
set_budget "${KILN_GPU_CHECK_BUDGET:-$base_budget}" || exit 2
deadline=$((SECONDS + budget))  # a second guard: no stage starts past it (set again below)

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
gpu="none"
driver="-"
declare -a rows=() gpu_tests_rows=() memcheck_rows=() racecheck_rows=()
status=0
incomplete=0

# kiln's own commands run under `env "${kiln_env[@]}"`: the libraries they load (in bundle mode)
# and the libraries' diagnostics, so that one run carries what a second would otherwise be needed
# for. Nothing is exported: PyTorch keeps the cuBLAS/cuDNN/NCCL of its own wheels.
kiln_env=(
  NCCL_DEBUG=WARN                 # kiln's NCCL errors tell the user to set it
  NCCL_SOCKET_RETRY_CNT=3         # an unreachable bootstrap socket fails in about a second,
  NCCL_SOCKET_RETRY_SLEEP_MSEC=100  # not after NCCL's default minute of retries
  CUDNN_LOGLEVEL_DBG=1 CUDNN_LOGDEST_DBG=stderr  # cuDNN: errors, to stderr
  CUBLASLT_LOG_LEVEL=1            # cuBLASLt: errors (to stdout, which the logs hold too)
)

# run_limited LIMIT LOG COMMAND...: COMMAND under LIMIT seconds (its kill included), its output
# added to LOG and shown on the console; returns its exit status (124 or 137 when stopped).
run_limited() {
  local seconds=$1 log=$2 rc=0
  shift 2
  timeout --kill-after=2 $((seconds - 2)) "$@" 2>&1 | tee -a "$log" || rc=$?
  return $rc
}

# not_reached NAME: the row of a stage started with less time left than its floor, which it needs
# to give a verdict at all (gpu-check-budget.sh).
not_reached() {
  rows+=("| $1 | not reached: $((deadline - SECONDS > 0 ? deadline - SECONDS : 0)) s left, it needs ${floor_limit[$1]} s | ${limit[$1]} s | 0 s |")
  incomplete=1
  publish "$1"
}

# stage NAME COMMAND...: COMMAND under min(its limit, time left), its output in $logs/NAME.log;
# records ok / FAILED / TIMED OUT, the limit and the wall time, then publishes the summary.
stage() {
  local name=$1 start=$SECONDS rc=0 result cap
  shift
  cap=${limit[$name]}
  local left=$((deadline - SECONDS))
  ((cap < left)) || cap=$left
  if ((left < floor_limit[$name])); then
    not_reached "$name"
    return 1
  fi
  echo "=== gpu-check: $name (limit ${cap} s)"
  run_limited "$cap" "$logs/$name.log" "$@" || rc=$?
  case $rc in
    0) result=ok ;;
    124 | 137) result="TIMED OUT after ${cap} s" ;;
    *) result="FAILED (exit $rc)" ;;
  esac
  rows+=("| $name | $result | ${cap} s | $((SECONDS - start)) s |")
  [[ $rc == 0 ]] || status=1
  publish "$name"
  return $rc
}
skip() {  # skip NAME REASON
  rows+=("| $1 | skipped: $2 | | 0 s |")
  publish "$1"
}
fail() {  # fail NAME REASON: a check that is not a command of its own
  rows+=("| $1 | FAILED: $2 | | 0 s |")
  status=1
  publish "$1"
}
after_suite() {  # called by run_suites after each suite: a kill mid-stage keeps the suites done
  publish "$1 (a suite of it)"
}

# shellcheck source=scripts/gpu-check-suites.sh
source scripts/gpu-check-suites.sh
# shellcheck source=scripts/gpu-check-sanitizers.sh
source scripts/gpu-check-sanitizers.sh
# shellcheck source=scripts/gpu-check-summary.sh
source scripts/gpu-check-summary.sh
trap summary EXIT
publish "the start"

# --- the GPU
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  fail nvidia-smi "no NVIDIA GPU or driver answers"
  exit 1
fi
gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu_count=$(nvidia-smi -L | grep -c '^GPU ' || true)  # MIG devices are listed below their GPU
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
  library_path=$here/$bundle/lib
  for library in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libnccl.so.2 \
      libnvidia-ml.so.1; do
    dir=$(library_dir "$library")
    if [[ -n $dir && :$library_path: != *:$dir:* ]]; then library_path+=:$dir; fi
    echo "    $library: ${dir:-not found}"
  done
  unresolved() {  # libraries (or symbol versions) the programs cannot find; ldd's stderr too
    local program
    for program in "$bundle"/apps/* "$bundle"/tests/* "$bundle"/benchmarks/*; do
      env LD_LIBRARY_PATH="$library_path" ldd "$program" 2>&1 | grep 'not found' || true
    done | sort -u | tr -s ' \t\n' ' '
  }
  missing=$(unresolved)
  if [[ $missing == *GLIBCXX* || $missing == *GCC_* ]]; then  # an older C++ runtime here
    echo "    this machine's C++ runtime is older than the bundle's: using the bundle's"
    library_path=$here/$bundle/lib-fallback:$library_path
    missing=$(unresolved)
  fi
  if [[ -n $missing ]]; then
    fail libraries "not found on this machine: $missing"
    exit 1
  fi
  kiln_env=(LD_LIBRARY_PATH="$library_path" "${kiln_env[@]}")
  rows+=("| libraries | ok: every library the programs load was found | | 0 s |")
else
  # --- configure and build (only what the later stages run), before the budget starts
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DKILN_BUILD_TESTS=ON -DKILN_BUILD_BENCHMARKS=ON >"$logs/configure.log" 2>&1 ||
    { fail configure "cmake (see configure.log)"; exit 1; }
  cmake --build "$build" -j"$jobs" --target kiln_gpu_tests train bench kiln-doctor kiln_gpu_mlp_benchmark \
    >"$logs/build.log" 2>&1 || { fail build "cmake --build (see build.log)"; exit 1; }
fi
deadline=$((SECONDS + budget))  # the stages' budget starts here, after the set-up

# Why mpirun cannot start the programs here, or nothing. The bundle's libmpi loads its plugins
# from the folder it was built with, so the machine's mpirun must be that same Open MPI release
# with that folder present; a build of our own uses whatever mpirun is installed with it.
mpirun_unusable_reason() {
  command -v mpirun >/dev/null || { echo "no mpirun on this machine"; return; }
  [[ $build == "$bundle" ]] || return 0
  local want plugins have
  want=$(sed -n 's/^openmpi: \([^ ]*\) .*/\1/p' "$bundle/BUILD-INFO")
  plugins=$(sed -n 's/^openmpi: [^ ]* //p' "$bundle/BUILD-INFO")
  have=$(mpirun --version 2>&1 | sed -n 's/.*(Open MPI) \([0-9.]*\).*/\1/p' | head -n 1)
  if [[ -z $want ]]; then echo "the bundle records no Open MPI release"
  elif [[ $have != "$want" ]]; then echo "mpirun here is ${have:+Open MPI $have}${have:-not Open MPI}, the bundle's libmpi is Open MPI $want"
  elif [[ ! -d $plugins ]]; then echo "Open MPI's plugin folder $plugins is missing"
  fi
}

# --- every GPU test suite in its own process (op parity first of all); each test must run, not skip
run_suites gpu-tests "$logs/suites" "${limit[gpu-tests]}"
publish gpu-tests

# --- the article's speedup table on this GPU (40,000 samples, scaled to the 160,000-sample
# epoch), beside the article's own figures
stage bench-fp32 env "${kiln_env[@]}" "$build/apps/bench" --gpu-only --samples 40000 --precision fp32 \
  --out "$logs/bench-fp32" || true

# --- a small GPT trained 30 steps on the GPU and on the CPU from the same text, the same seed:
# the loss must fall and the two devices' losses agree (scripts/gpu-check-gpt.sh)
stage gpt-train env "${kiln_env[@]}" bash scripts/gpu-check-gpt.sh "$build/apps/train" "$logs/gpt-train" || true

# --- compute-sanitizer: memcheck over kiln's own kernels (with exact-size device allocations, no
# cache), racecheck over those with shared memory, each one process over the suites' joined
# filter (gpu-check-sanitizers.sh says which suites and tests each leaves out, and why; a failed
# suite is rerun alone). API errors are not reported: kiln checks every call itself, and the
# libraries' internal failing calls are theirs. Judged by the findings in the logs, not by the
# sanitizer's exit code.
sanitizer=$(command -v compute-sanitizer || true)
if [[ -z $sanitizer && -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ]]; then
  sanitizer=/usr/local/cuda/compute-sanitizer/compute-sanitizer
fi
for tool in memcheck racecheck; do
  if [[ -z $sanitizer ]]; then
    fail "$tool" "compute-sanitizer not found in PATH or $cuda_bin"
  elif ((deadline - SECONDS < floor_limit[$tool])); then
    not_reached "$tool"
  else
    tool_options=(--tool "$tool" --report-api-errors no)
    [[ $tool != memcheck ]] || tool_options+=(--leak-check no)
    left=$((deadline - SECONDS))
    run_sanitizer "$tool" "$logs/$tool" "$((limit[$tool] < left ? limit[$tool] : left))" \
      "$sanitizer" "${tool_options[@]}" --target-processes all
  fi
  publish "$tool"
done

# --- data-parallel training on every GPU in one process, a thread per GPU (ncclCommInitAll).
# One GPU runs the code path; more prove the all-reduce across devices.
gpu_list=$(seq -s, 0 $((gpu_count - 1)))
train_job=(--model article --data article --samples 40000 --epochs 1 --batch-size $((256 * gpu_count))
           --workers 4 --pin-memory --schedule constant --dist-timeout 20)
stage train-gpus env "${kiln_env[@]}" "$build/apps/train" --gpus "$gpu_list" "${train_job[@]}" || true

# --- a large GEMM-bound MLP step (batch 4096, width 4096) against cuBLAS's own GEMM rate
stage gpu-mlp-benchmark env "${kiln_env[@]}" "$build/benchmarks/kiln_gpu_mlp_benchmark" || true

# --- the table in TF32 and bf16 and with CUDA graphs
for precision in tf32 bf16; do
  stage "bench-$precision" env "${kiln_env[@]}" "$build/apps/bench" --gpu-only --samples 40000 --precision "$precision" \
    --out "$logs/bench-$precision" || true
done
stage bench-fp32-cuda-graph env "${kiln_env[@]}" "$build/apps/bench" --gpu-only --samples 40000 --cuda-graph \
  --out "$logs/bench-fp32-cuda-graph" || true

# --- kiln against PyTorch eager on this GPU, same network, data and batch sizes (the script
# says so and shows kiln alone where PyTorch is missing). Python runs with this machine's
# environment; only the kiln subprocess gets kiln's.
kiln_env_args=()
for assignment in "${kiln_env[@]}"; do kiln_env_args+=(--kiln-env "$assignment"); done
stage compare-pytorch env PYTHONUNBUFFERED=1 python3 scripts/compare-pytorch.py --device gpu \
  --build "$build" --batch-sizes 256 1024 --samples 40000 --repeats 1 "${kiln_env_args[@]}" || true

# --- one process per GPU under mpirun (rank 0's ncclUniqueId broadcast by MPI), only where
# mpirun can start the bundle's programs: the same Open MPI release, with its plugins where
# the bundle's libmpi looks for them.
mpi_reason=$(mpirun_unusable_reason)
if [[ -n $mpi_reason ]]; then
  skip train-mpirun-nccl "$mpi_reason"
else
  mpi_env=()
  for assignment in "${kiln_env[@]}"; do mpi_env+=(-x "$assignment"); done
  stage train-mpirun-nccl env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none -np "$gpu_count" \
    "${mpi_env[@]}" "$build/apps/train" --device=gpu "${train_job[@]}" || true
fi

# --- kiln-doctor on this machine: copies, the PCIe link under load, clocks, other processes
if [[ -x $build/apps/kiln-doctor ]]; then
  stage kiln-doctor env "${kiln_env[@]}" "$build/apps/kiln-doctor" --quick --json "$logs/doctor.json" || true
else
  skip kiln-doctor "$build/apps/kiln-doctor is missing (a bundle made before it: rerun scripts/gpu-bundle.sh)"
fi

if ((status == 0 && incomplete != 0)); then exit 3; fi
exit $status
