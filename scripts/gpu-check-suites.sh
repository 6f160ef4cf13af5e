# shellcheck shell=bash
# Sourced by gpu-check.sh: runs the GPU test program one suite per process, so that a sticky CUDA
# error (an illegal address, an NCCL abort) poisons that suite's context alone, and records each
# suite's passes, failures and skips from its gtest XML; the same per suite under
# compute-sanitizer's memcheck and racecheck. Uses gpu-check.sh's $build, $logs, kiln_env,
# gpu_count, suite_limit, deadline, rows, status, incomplete and its after_suite hook.

gpu_tests=$build/tests/kiln_gpu_tests
# Need two GPUs; left out where there is one (the TwoGpus suite and one NCCL test).
two_gpu_suite=TwoGpus
two_gpu_test=NcclCommunicator.TrainingOnEveryGpuFollowsOneGpuAtTheSameGlobalBatch
# memcheck judges kiln's own kernels: these suites, failed ones first. The others run cuBLAS,
# cuBLASLt, cuDNN or NCCL (whose kernels and API errors kiln does not own, and each process would
# spend its time instrumenting them) or no kernel of kiln's: left out, each named. The op
# harness's suites are OpParity_<group> (tests/ops/gpu/); the hand-written ones they replace are
# listed too, for a bundle built before it.
memcheck_suites=(OpParity_Elementwise OpParity_Activation OpParity_Bias OpParity_Reduce
                 OpParity_Softmax OpParity_Metrics OpParity_Normalization OpParity_Dropout
                 OpParity_Random OpParity_Optimizer OpParity_Sequence CrossEntropyOnTheGpu OptimizerOnTheGpu
                 ElementwiseParity ActivationParity BiasParity ReduceParity SoftmaxParity
                 DropoutParity RandomParity OptimizerParity BatchNormParity CopyParity)
# racecheck: the suites of the kernels that share memory between threads (reductions, softmax,
# batch and layer norm, bias gradients, the fused optimizers, metrics).
racecheck_suites=(OpParity_Reduce OpParity_Softmax OpParity_Normalization OpParity_Bias
                  OpParity_Optimizer OpParity_Metrics
                  ReduceParity SoftmaxParity BatchNormParity BiasParity OptimizerParity)
sanitizer_max_test_ms=3000  # a test over 3 s in the plain run is left out of the sanitizers (10-100x slower)

declare -a suite_names=()
two_gpu_left_out=0
declare -A suite_result=() long_tests=() suite_tests=()

# The suites, in the program's order, NCCL last (its bootstrap is the least known on a new machine).
list_suites() {
  local listing
  listing=$(env "${kiln_env[@]}" "$gpu_tests" --gtest_list_tests 2>&1) || {
    echo "$listing" | tail -n 5
    return 1
  }
  mapfile -t suite_names < <(echo "$listing" | sed -nE 's/^([^ #][^ ]*)\.( .*)?$/\1/p' |
    { if ((gpu_count < 2)); then grep -vx "$two_gpu_suite"; else cat; fi; } |
    awk '$0 != "NcclCommunicator" {print} $0 == "NcclCommunicator" {last = $0} END {if (last) print last}')
  if ((gpu_count < 2)) && grep -qx "$two_gpu_suite\." <<<"$listing"; then two_gpu_left_out=1; fi
  ((${#suite_names[@]} > 0))
}

# suite_filter SUITE MODE: the --gtest_filter for SUITE (MODE gpu-tests, memcheck or racecheck).
suite_filter() {
  local suite=$1 mode=$2 filter="$1.*" negative=()
  if ((gpu_count < 2)) && [[ $two_gpu_test == "$suite".* ]]; then negative+=("$two_gpu_test"); fi
  if [[ $mode != gpu-tests && -n ${long_tests[$suite]:-} ]]; then
    read -ra extra <<<"${long_tests[$suite]}"
    negative+=("${extra[@]}")
  fi
  if ((${#negative[@]} > 0)); then filter+=-$(IFS=:; echo "${negative[*]}"); fi
  echo "$filter"
}

# xml_count FILE ATTRIBUTE: the attribute of the file's (one) <testsuite> element, 0 if absent.
xml_count() {
  local value
  value=$(grep -m1 -oE "<testsuite [^>]*" "$1" 2>/dev/null | grep -oE " $2=\"[0-9]+\"" | grep -oE '[0-9]+')
  echo "${value:-0}"
}

# run_suites STAGE DIR BUDGET [WRAPPER...]: each suite (as STAGE orders it) in its own process,
# under WRAPPER if given, within BUDGET seconds in all and $suite_limit each; adds a row per suite
# to that stage's table and one row for the stage.
run_suites() {
  local stage_name=$1 dir=$2 stage_budget=$3 start=$SECONDS
  shift 3
  local -a wrapper=("$@") order=()
  local table_name=${stage_name//-/_}_rows  # gpu_tests_rows, memcheck_rows, racecheck_rows
  local -n table=$table_name
  if ((${#suite_names[@]} == 0)) && ! list_suites >"$dir/list.log"; then
    fail "$stage_name" "kiln_gpu_tests --gtest_list_tests failed: $(tail -n 1 "$dir/list.log")"
    return
  fi
  if [[ $stage_name == gpu-tests ]]; then
    order=("${suite_names[@]}")
    ((two_gpu_left_out == 0)) ||
      table+=("| $two_gpu_suite | left out: needs two GPUs, $gpu_count here | | | | |")
  else
    mapfile -t order < <(sanitizer_suites "$stage_name")
  fi
  local stage_end=$((SECONDS + stage_budget)) suite cap rc xml tests failed skipped disabled result
  local n_ok=0 n_bad=0 n_unreached=0 n_left_out=0 reason
  for suite in "${order[@]}"; do
    if [[ $stage_name != gpu-tests ]] && reason=$(sanitizer_leaves_out "$stage_name" "$suite"); then
      table+=("| $suite | left out: $reason | | | | |")
      n_left_out=$((n_left_out + 1))
      continue
    fi
    cap=$suite_limit
    ((cap < stage_end - SECONDS)) || cap=$((stage_end - SECONDS))
    ((cap < deadline - SECONDS)) || cap=$((deadline - SECONDS))
    if ((cap < 5)); then
      table+=("| $suite | not reached: the stage's ${stage_budget} s were spent | | | | |")
      n_unreached=$((n_unreached + 1))
      continue
    fi
    local log=$dir/${suite//\//_}.log started=$SECONDS  # a typed suite's "Prefix/Name" too
    xml=$dir/${suite//\//_}.xml
    rm -f "$xml"
    echo "=== gpu-check: $stage_name $suite (limit ${cap} s)"
    rc=0
    # The wrapper (compute-sanitizer) runs with this machine's environment, the tests with kiln's.
    run_limited "$cap" "$log" "${wrapper[@]}" env "${kiln_env[@]}" "$gpu_tests" \
      --gtest_filter="$(suite_filter "$suite" "$stage_name")" --gtest_output="xml:$xml" || rc=$?
    tests=$(xml_count "$xml" tests)
    failed=$(( $(xml_count "$xml" failures) + $(xml_count "$xml" errors) ))
    skipped=$(xml_count "$xml" skipped)
    disabled=$(xml_count "$xml" disabled)
    if [[ ! -f $xml ]]; then  # the process died before gtest wrote its report
      tests=$(grep -cE '^\[ RUN      \]' "$log" || true)
      skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$log" || true)
      # The test it died in counts as failed.
      failed=$((tests - skipped - $(grep -cE '^\[       OK \] ' "$log" || true)))
    fi
    case $rc in
      124 | 137) result="TIMED OUT after ${cap} s in $(last_test "$log")" ;;
      0) if ((tests == 0)); then result="FAILED: no test ran"
         elif ((skipped > 0)); then result="SKIPPED: $(skip_reason "$log")"
         else result=ok; fi ;;
      *) if [[ ! -f $xml ]]; then result="CRASHED (exit $rc) in $(last_test "$log")"
         elif ((failed > 0)); then result=FAILED
         else result="FAILED (exit $rc)"; fi ;;
    esac
    local findings=0
    [[ $stage_name == gpu-tests ]] || findings=$(sanitizer_findings "$stage_name" "$log")
    if ((findings > 0)); then
      local what="memory errors"
      [[ $stage_name == memcheck ]] || what="race hazards"
      if [[ $result == ok ]]; then result="FAILED: $findings $what"; else result+=", $findings $what"; fi
    fi
    suite_result[$stage_name/$suite]=$result
    if [[ $stage_name == gpu-tests ]]; then
      note_long_tests "$suite" "$log"
      suite_tests[$suite]=$tests
    fi
    table+=("| $suite | $result | $((tests - failed - skipped - disabled)) | $failed | $skipped | $((SECONDS - started)) s |")
    if [[ $result == ok ]]; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); fi
    after_suite "$stage_name"
  done
  local total=$((${#order[@]} - n_left_out)) summary_text
  summary_text="$n_ok of $total suites ok"
  ((n_left_out == 0)) || summary_text+=" ($n_left_out left out)"
  ((n_bad == 0)) || summary_text+=", $n_bad not ok"
  ((n_unreached == 0)) || summary_text+=", $n_unreached not reached"
  # Suites the budget did not reach are a verdict not given, not a failure.
  if ((n_ok == total)); then
    rows+=("| $stage_name | ok: $summary_text | ${stage_budget} s | $((SECONDS - start)) s |")
  elif ((n_bad == 0)); then
    rows+=("| $stage_name | incomplete: $summary_text (table below) | ${stage_budget} s | $((SECONDS - start)) s |")
    incomplete=1
  else
    rows+=("| $stage_name | FAILED: $summary_text (table below) | ${stage_budget} s | $((SECONDS - start)) s |")
    status=1
  fi
}

# sanitizer_findings STAGE LOG: how many errors compute-sanitizer reported in LOG. memcheck: its
# lines on kernel memory errors ("Invalid __global__ read", hardware exceptions); leaks are not
# counted (the device allocators are never torn down: a report would list their cache). racecheck:
# the errors of its hazard summary.
sanitizer_findings() {
  local count
  if [[ $1 == memcheck ]]; then
    count=$(grep -cE '^========= (Invalid |Warp |Out-of-range |Misaligned |Illegal |Hardware )' "$2" || true)
  else
    count=$(grep -oE '^========= RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?' "$2" |
      grep -oE '[0-9]+ errors?' | grep -oE '[0-9]+' | awk '{n += $1} END {print n + 0}')
  fi
  echo "${count:-0}"
}

# matches_any NAME PATTERN...: whether NAME matches one of the glob patterns.
matches_any() {
  local name=$1 pattern
  shift
  for pattern in "$@"; do
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ $name == $pattern ]] && return 0
  done
  return 1
}

# sanitizer_suites STAGE: the suites of STAGE's list, in the program's order, those that failed
# or crashed in the plain run first (the sanitizer may say why); for memcheck, then every other
# suite, each to be left out with its reason (sanitizer_leaves_out).
sanitizer_suites() {
  local stage=$1 suite
  local -a patterns=("${memcheck_suites[@]}")
  [[ $stage == memcheck ]] || patterns=("${racecheck_suites[@]}")
  local -a first=() then=() rest=()
  for suite in "${suite_names[@]}"; do
    local plain=${suite_result[gpu-tests/$suite]:-ok}
    if ! matches_any "$suite" "${patterns[@]}"; then
      rest+=("$suite")
    elif [[ $plain != ok && $plain != SKIPPED* ]]; then
      first+=("$suite")
    else
      then+=("$suite")
    fi
  done
  printf '%s\n' "${first[@]}" "${then[@]}" | sed '/^$/d'
  [[ $stage != memcheck ]] || printf '%s\n' "${rest[@]}" | sed '/^$/d'
}

# Why STAGE (a sanitizer) leaves SUITE out (status 0), if it does: not one of kiln's own kernels
# (memcheck's list), it timed out in the plain run (it would again, 10-100x slower), or every test
# it ran there is too long.
sanitizer_leaves_out() {
  local stage=$1 suite=$2
  if [[ $stage == memcheck ]] && ! matches_any "$suite" "${memcheck_suites[@]}"; then
    echo "not kiln's own kernels (cuBLAS, cuDNN, NCCL or no kernel of kiln's)"
    return 0
  fi
  local plain=${suite_result[gpu-tests/$suite]:-}
  if [[ $plain == "TIMED OUT"* ]]; then echo "timed out in the plain run"; return 0; fi
  local long=(${long_tests[$suite]:-})
  if ((${#long[@]} > 0 && ${#long[@]} >= ${suite_tests[$suite]:-0})); then
    echo "every test over ${sanitizer_max_test_ms} ms in the plain run"
    return 0
  fi
  return 1
}

# note_long_tests SUITE LOG: the suite's tests that took over $sanitizer_max_test_ms in the plain
# run, left out of memcheck (the summary names them).
note_long_tests() {
  long_tests[$1]=$(sed -nE 's/^\[       OK \] ([^ ]+) \(([0-9]+) ms\)$/\1 \2/p' "$2" |
    awk -v max="$sanitizer_max_test_ms" '$2 > max {printf "%s ", $1}')
}

last_test() {  # the test a log was running when it ended
  local name
  name=$(grep -E '^\[ RUN      \]' "$1" | tail -n 1 | sed 's/^\[ RUN      \] //')
  echo "${name:-start-up}"
}

skip_reason() {  # the first skip's reason (gtest prints it on the line after "...: Skipped")
  grep -m1 -A1 -E ': Skipped$' "$1" | tail -n 1 | cut -c1-120
}
