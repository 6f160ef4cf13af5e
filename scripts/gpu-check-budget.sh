# shellcheck shell=bash
# Sourced by gpu-check.sh: the stages in the order they run, most valuable first (parity, then
# the article's CPU-vs-GPU table and a GPT trained on both devices, then the sanitizers, then the
# rest, so that a short lease still gives the verdicts that matter most), and each stage's limit
# in seconds for a budget of KILN_GPU_CHECK_BUDGET seconds (docs/gpu-check.md). Each stage has a
# base limit (the base limits add up to the 480 s base budget) and a floor, the least time in
# which it can do its work at all; a budget B gives every stage its floor and shares what is left
# (B minus the floors) in proportion to base minus floor, so the limits add up to B, and B = 480
# gives the base limits. Below the floors' sum (199 s) every stage keeps its floor and the budget
# reaches as many stages as it can, in order; a stage is started only with its floor left.
# Unmeasured on a GPU so far: the first run's wall times say whether these fit.

base_budget=480
stage_order=(gpu-tests bench-fp32 gpt-train memcheck racecheck train-gpus gpu-mlp-benchmark
             bench-tf32 bench-bf16 bench-fp32-cuda-graph compare-pytorch train-mpirun-nccl kiln-doctor)
declare -A base_limit=(
  [gpu-tests]=165 [bench-fp32]=25 [gpt-train]=20 [memcheck]=80 [racecheck]=40 [train-gpus]=25
  [gpu-mlp-benchmark]=20 [bench-tf32]=14 [bench-bf16]=14 [bench-fp32-cuda-graph]=12
  [compare-pytorch]=35 [train-mpirun-nccl]=15 [kiln-doctor]=15
)
# The floors, from what each stage must do before its verdict:
# - gpu-tests: about 45 suites, each a process that loads CUDA, cuBLAS, cuDNN and NCCL and makes a
#   context (about a second), before any test;
# - bench-*, train-gpus, gpu-mlp-benchmark: a process start, a context and a few seconds of work;
# - gpt-train: two process starts, 30 GPU steps, then the same 30 on the CPU (1.1 s wall on the
#   loaded 2-core development machine);
# - memcheck, racecheck: compute-sanitizer's start and its patching of every kernel at its first
#   launch, once per stage (one process), then the tests 10-100x slower;
# - compare-pytorch: importing PyTorch on a fresh machine (about 10 s) and one kiln run;
# - kiln-doctor --quick: a context, NVML and cuBLAS started (a few seconds in a fresh process), its
#   CPU measurements (1.4 s on this development machine), two 8 MiB copies timed and 20 GEMMs of
#   4096 x 4096 (about 3 ms each on an H100) while NVML reads the SM clock.
declare -A floor_limit=(
  [gpu-tests]=60 [bench-fp32]=10 [gpt-train]=10 [memcheck]=30 [racecheck]=15 [train-gpus]=10
  [gpu-mlp-benchmark]=8 [bench-tf32]=6 [bench-bf16]=6 [bench-fp32-cuda-graph]=6
  [compare-pytorch]=20 [train-mpirun-nccl]=6 [kiln-doctor]=12
)
base_suite_limit=45  # one suite of gpu-tests at most, so that a hang leaves time for the others
min_suite_limit=10

# set_budget SECONDS: sets budget, limit[STAGE] and suite_limit for a budget of SECONDS. Returns 2
# with a message for a budget that is not whole seconds of at least 60, or when an edit broke the
# tables (base limits over the base budget, a floor over its base or under 5 s).
set_budget() {
  local seconds=$1 name sum=0 floors=0
  for name in "${stage_order[@]}"; do
    sum=$((sum + base_limit[$name]))
    floors=$((floors + floor_limit[$name]))
    if ((floor_limit[$name] < 5 || floor_limit[$name] > base_limit[$name])); then
      echo "gpu-check: stage $name's floor ${floor_limit[$name]} s is not in [5, its base ${base_limit[$name]} s]" >&2
      return 2
    fi
  done
  if ((sum > base_budget || floors >= base_budget)); then
    echo "gpu-check: the stage limits add up to ${sum} s and their floors to ${floors} s; the base budget is ${base_budget} s" >&2
    return 2
  fi
  if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 60)); then
    echo "gpu-check: KILN_GPU_CHECK_BUDGET='$seconds': expected whole seconds, at least 60" >&2
    return 2
  fi
  budget=$seconds
  floor_sum=$floors
  local extra=$((seconds > floors ? seconds - floors : 0)) span=$((base_budget - floors))
  declare -gA limit=()
  for name in "${stage_order[@]}"; do
    limit[$name]=$((floor_limit[$name] + (base_limit[$name] - floor_limit[$name]) * extra / span))
  done
  suite_limit=$((base_suite_limit * seconds / base_budget))
  ((suite_limit >= min_suite_limit)) || suite_limit=$min_suite_limit
}
