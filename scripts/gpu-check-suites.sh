# shellcheck shell=bash
# Sourced by gpu-check.sh: runs the GPU test program one suite per process, so that a sticky CUDA
# error (an illegal address, an NCCL abort) poisons that suite's context alone, and records each
# suite's passes, failures and skips from its gtest XML; notes the tests too long for the
# sanitizers (gpu-check-sanitizers.sh, which runs the sanitizer stages). Uses gpu-check.sh's
# $build, $logs, kiln_env, gpu_count, suite_limit, deadline, rows, status, incomplete and its
# after_suite hook.

gpu_tests=$build/tests/kiln_gpu_tests
# Need two GPUs; left out where there is one (the TwoGpus suite and one NCCL test).
two_gpu_suite=TwoGpus
two_gpu_test=NcclCommunicator.TrainingOnEveryGpuFollowsOneGpuAtTheSameGlobalBatch
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

# suite_filter SUITE: the --gtest_filter for SUITE in the plain run.
suite_filter() {
  local filter="$1.*"
  if ((gpu_count < 2)) && [[ $two_gpu_test == "$1".* ]]; then filter+=-$two_gpu_test; fi
  echo "$filter"
}

# xml_count FILE ATTRIBUTE: the attribute of the file's (one) <testsuite> element, 0 if absent.
xml_count() {
  local value
  value=$(grep -m1 -oE "<testsuite [^>]*" "$1" 2>/dev/null | grep -oE " $2=\"[0-9]+\"" | grep -oE '[0-9]+')
  echo "${value:-0}"
}

# run_suites STAGE DIR BUDGET: each suite in its own process, within BUDGET seconds in all and
# $suite_limit each; adds a row per suite to the stage's table and one row for the stage.
run_suites() {
  local stage_name=$1 dir=$2 stage_budget=$3 start=$SECONDS
  local -a order=()
  local -n table=${stage_name//-/_}_rows  # gpu_tests_rows
  if ((${#suite_names[@]} == 0)) && ! list_suites >"$dir/list.log"; then
    fail "$stage_name" "kiln_gpu_tests --gtest_list_tests failed: $(tail -n 1 "$dir/list.log")"
    return
  fi
  order=("${suite_names[@]}")
  ((two_gpu_left_out == 0)) ||
    table+=("| $two_gpu_suite | left out: needs two GPUs, $gpu_count here | | | | |")
  local stage_end=$((SECONDS + stage_budget)) suite cap rc xml tests failed skipped disabled result
  local n_ok=0 n_bad=0 n_unreached=0 n_left_out=0 reason
  for suite in "${order[@]}"; do
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
    run_limited "$cap" "$log" env "${kiln_env[@]}" "$gpu_tests" \
      --gtest_filter="$(suite_filter "$suite")" --gtest_output="xml:$xml" || rc=$?
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
    suite_result[$stage_name/$suite]=$result
    note_long_tests "$suite" "$log"
    suite_tests[$suite]=$tests
    table+=("| $suite | $result | $((tests - failed - skipped - disabled)) | $failed | $skipped | $((SECONDS - started)) s |")
    if [[ $result == ok ]]; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); fi
    after_suite "$stage_name"
  done
  stage_row "$stage_name" "$stage_budget" "$start" "${#order[@]}" "$n_ok" "$n_bad" "$n_unreached" "$n_left_out"
}

# stage_row STAGE BUDGET START SUITES OK BAD UNREACHED LEFT_OUT: the stage's row from its suites'.
# Suites the budget did not reach are a verdict not given, not a failure.
stage_row() {
  local name=$1 stage_budget=$2 start=$3 total=$(($4 - $8)) n_ok=$5 n_bad=$6 n_unreached=$7 n_left_out=$8 text
  text="$n_ok of $total suites ok"
  ((n_left_out == 0)) || text+=" ($n_left_out left out)"
  ((n_bad == 0)) || text+=", $n_bad not ok"
  ((n_unreached == 0)) || text+=", $n_unreached not reached"
  if ((n_ok == total)); then
    rows+=("| $name | ok: $text | ${stage_budget} s | $((SECONDS - start)) s |")
  elif ((n_bad == 0)); then
    rows+=("| $name | incomplete: $text (table below) | ${stage_budget} s | $((SECONDS - start)) s |")
    incomplete=1
  else
    rows+=("| $name | FAILED: $text (table below) | ${stage_budget} s | $((SECONDS - start)) s |")
    status=1
  fi
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
