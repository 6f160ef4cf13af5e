# shellcheck shell=bash
# Sourced by gpu-check.sh: the stages in the order they run, most valuable first (parity, then
# the article's CPU-vs-GPU table and a GPT trained on both devices, then the sanitizers, then the
# rest, so that a short lease still gives the verdicts that matter most), and each stage's limit
# in seconds. The base limits add up to at most 480 s, 8 minutes of a 15-minute lease;
# KILN_GPU_CHECK_BUDGET=SECONDS scales every limit, the per-suite one too, by SECONDS / 480
# (docs/gpu-check.md: set it from the device tool's budget_left_s, less start-up).
# The split (issue 23): gpt-train's 20 s came from the TF32, bf16 and CUDA-graph tables (20 s
# each before, now 14, 14 and 12), the least valuable stages: bench-fp32's table again in other
# precisions. Unmeasured on a GPU so far: the first run's wall times say whether they fit.

base_budget=480
stage_order=(gpu-tests bench-fp32 gpt-train memcheck racecheck train-gpus gpu-mlp-benchmark
             bench-tf32 bench-bf16 bench-fp32-cuda-graph compare-pytorch train-mpirun-nccl kiln-doctor)
declare -A base_limit=(
  [gpu-tests]=170 [bench-fp32]=25 [gpt-train]=20 [memcheck]=80 [racecheck]=40 [train-gpus]=25
  [gpu-mlp-benchmark]=20 [bench-tf32]=14 [bench-bf16]=14 [bench-fp32-cuda-graph]=12
  [compare-pytorch]=40 [train-mpirun-nccl]=15 [kiln-doctor]=5
)
base_suite_limit=45  # one suite at most, so that a hang leaves time for the others
min_suite_limit=10

# set_budget SECONDS: sets budget, limit[STAGE] and suite_limit for a budget of SECONDS. Returns 2
# with a message for a budget that is not whole seconds of at least 60, or when an edit made the
# base limits add up to more than the base budget.
set_budget() {
  local seconds=$1 name sum=0
  for name in "${stage_order[@]}"; do sum=$((sum + base_limit[$name])); done
  if ((sum > base_budget)); then
    echo "gpu-check: the stage limits add up to ${sum} s, over the ${base_budget} s base budget" >&2
    return 2
  fi
  if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 60)); then
    echo "gpu-check: KILN_GPU_CHECK_BUDGET='$seconds': expected whole seconds, at least 60" >&2
    return 2
  fi
  budget=$seconds
  declare -gA limit=()
  for name in "${stage_order[@]}"; do limit[$name]=$((base_limit[$name] * seconds / base_budget)); done
  suite_limit=$((base_suite_limit * seconds / base_budget))
  ((suite_limit >= min_suite_limit)) || suite_limit=$min_suite_limit
}
