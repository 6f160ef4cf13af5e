# shellcheck shell=bash
# Sourced by gpu-check.sh: compute-sanitizer's stages. memcheck over the suites of kiln's own
# kernels, racecheck over those that share memory, each as ONE process over the suites' joined
# gtest filter, so that the sanitizer starts, and patches every kernel at its first launch, once
# per stage. memcheck runs with the exact device allocator (KILN_DEVICE_ALLOCATOR=exact: each
# block its request's size, nothing cached), so that an overrun of a few bytes leaves its
# allocation. The per-suite rows are read from the process's log: a finding belongs to the suite
# of the last test started before it. If the process dies (a crash, a hang), the suite it was in
# gets that verdict and the suites it never reached run in another joined process. Only then,
# after a joined process failed, is each failed suite rerun alone, so that its row says whether
# the failure is its own (a neighbour's sticky error fails the tests after it); a rerun never
# clears a failure. Uses gpu-check.sh's and gpu-check-suites.sh's variables and functions.

# memcheck judges kiln's own kernels: these suites. The others run cuBLAS, cuBLASLt, cuDNN or
# NCCL (whose kernels and API errors kiln does not own, and the sanitizer would spend its time
# instrumenting them) or no kernel of kiln's: left out, each named. The op harness's suites are
# OpParity_<group> (tests/ops/gpu/); the hand-written ones they replace are listed too, for a
# bundle built before it.
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
# What each stage's test process runs with beyond kiln_env, and the line its log opens with.
declare -A sanitizer_env=([memcheck]=KILN_DEVICE_ALLOCATOR=exact [racecheck]="")
declare -A sanitizer_note=(
  [memcheck]="device allocations of the exact size, no cache (KILN_DEVICE_ALLOCATOR=exact)"
  [racecheck]="the caching device allocator"
)

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

# sanitizer_suites STAGE: the suites of STAGE's list in the program's order (one process runs
# them in that order anyway); for memcheck, then every other suite, each to be left out with its
# reason (sanitizer_leaves_out).
sanitizer_suites() {
  local stage=$1 suite
  local -a patterns=("${memcheck_suites[@]}") listed=() rest=()
  [[ $stage == memcheck ]] || patterns=("${racecheck_suites[@]}")
  for suite in "${suite_names[@]}"; do
    if matches_any "$suite" "${patterns[@]}"; then listed+=("$suite"); else rest+=("$suite"); fi
  done
  printf '%s\n' "${listed[@]}" | sed '/^$/d'
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
  local -a long
  read -ra long <<<"${long_tests[$suite]:-}"
  if ((${#long[@]} > 0 && ${#long[@]} >= ${suite_tests[$suite]:-0})); then
    echo "every test over ${sanitizer_max_test_ms} ms in the plain run"
    return 0
  fi
  return 1
}

# joined_filter SUITE...: one --gtest_filter for the suites, less the two-GPU test on one GPU and
# the tests too long for a sanitizer.
joined_filter() {
  local suite filter="" negative=() extra
  for suite in "$@"; do
    filter+="${filter:+:}$suite.*"
    if ((gpu_count < 2)) && [[ $two_gpu_test == "$suite".* ]]; then negative+=("$two_gpu_test"); fi
    read -ra extra <<<"${long_tests[$suite]:-}"
    negative+=("${extra[@]}")
  done
  if ((${#negative[@]} > 0)); then filter+=-$(IFS=:; echo "${negative[*]}"); fi
  echo "$filter"
}

# The log lines that are findings: memcheck's kernel memory errors and hardware exceptions
# (leaks are not counted: the device allocators are never torn down), racecheck's race errors.
finding_pattern() {
  if [[ $1 == memcheck ]]; then
    echo '^========= (Invalid |Warp |Out-of-range |Misaligned |Illegal |Hardware )'
  else
    echo '^========= (Error|ERROR): Race reported'
  fi
}

# sanitizer_process STAGE LOG LIMIT SUITE...: one process over the suites under the stage's
# wrapper (sanitizer_wrapper), within LIMIT seconds. Sets proc_rc, proc_placed (findings the log
# puts in no suite: racecheck's summary counts beyond its placed lines, or lines before any test)
# and, for each suite that started, proc_result[SUITE] and proc_counts[SUITE] ("passed failed
# skipped seconds"); a suite that never started is not in proc_result.
sanitizer_process() {
  local stage=$1 log=$2 cap=$3
  shift 3
  local -a suites=("$@") extra_env=()
  [[ -z ${sanitizer_env[$stage]:-} ]] || extra_env=("${sanitizer_env[$stage]}")
  local filter
  filter=$(joined_filter "${suites[@]}")
  {
    echo "=== gpu-check $stage: ${#suites[@]} suite(s) in one process (limit ${cap} s), ${sanitizer_note[$stage]}"
    echo "    --gtest_filter=$filter"
  } | tee "$log"
  proc_rc=0
  # The wrapper (compute-sanitizer) runs with this machine's environment, the tests with kiln's.
  run_limited "$cap" "$log" "${sanitizer_wrapper[@]}" env "${kiln_env[@]}" "${extra_env[@]}" \
    "$gpu_tests" --gtest_filter="$filter" --gtest_output="xml:${log%.log}.xml" || proc_rc=$?
  proc_result=() proc_counts=()
  local ended=0 suite passed failed skipped ms found open
  grep -qE '^\[==========\] [0-9]+ tests? from [0-9]+ test suites? ran\.' "$log" && ended=1
  # One line per suite that started: suite passed failed skipped ms findings open-test; then
  # "- orphans N" for findings before any test.
  while read -r suite passed failed skipped ms found open; do
    if [[ $suite == - ]]; then proc_placed=$passed; continue; fi
    local result=ok what="memory errors"
    [[ $stage == memcheck ]] || what="race hazards"
    if [[ $open != - ]]; then
      case $proc_rc in
        124 | 137) result="TIMED OUT after ${cap} s in $open" ;;
        *) result="CRASHED (exit $proc_rc) in $open" ;;
      esac
      failed=$((failed + 1))
    elif ((failed > 0)); then result=FAILED
    elif ((skipped > 0)); then result="SKIPPED: $(skip_reason "$log")"
    fi
    if ((found > 0)); then
      if [[ $result == ok ]]; then result="FAILED: $found $what"; else result+=", $found $what"; fi
    fi
    proc_result[$suite]=$result
    proc_counts[$suite]="$passed $failed $skipped $((ms / 1000))"
  done < <(awk -v pattern="$(finding_pattern "$stage")" -v racecheck="$([[ $stage == racecheck ]] && echo 1 || echo 0)" '
    function name_of(rest) { sub(/[ ,].*/, "", rest); return rest }
    function suite_of(name) { sub(/\..*/, "", name); return name }
    function ms_of(line) { match(line, /\(([0-9]+) ms\)$/); return substr(line, RSTART + 1, RLENGTH - 5) + 0 }
    function add(s) { if (!(s in seen)) { seen[s] = 1; order[++n] = s } }
    /^\[ RUN      \] / { t = name_of(substr($0, 14)); cur = suite_of(t); add(cur); open[cur] = t; next }
    /^\[       OK \] .* \([0-9]+ ms\)$/ { t = name_of(substr($0, 14)); s = suite_of(t); add(s); ok[s]++; ms[s] += ms_of($0); open[s] = ""; next }
    /^\[  FAILED  \] .* \([0-9]+ ms\)$/ { t = name_of(substr($0, 14)); s = suite_of(t); add(s); bad[s]++; ms[s] += ms_of($0); open[s] = ""; next }
    /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ { t = name_of(substr($0, 14)); s = suite_of(t); add(s); skip[s]++; ms[s] += ms_of($0); open[s] = ""; next }
    $0 ~ pattern { if (cur != "") found[cur]++; else orphans++; placed++ }
    racecheck && /^========= RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?/ {
      match($0, /\(([0-9]+) error/); summary += substr($0, RSTART + 1, RLENGTH - 7) + 0 }
    END {
      for (i = 1; i <= n; ++i) { s = order[i]
        printf "%s %d %d %d %d %d %s\n", s, ok[s], bad[s], skip[s], ms[s], found[s], (open[s] == "" ? "-" : open[s]) }
      extra = summary - placed; if (extra < 0) extra = 0
      printf "- %d\n", orphans + extra
    }' "$log")
  # A suite the filter named but the process, ended normally, never started: no test of it ran.
  if ((ended)); then
    for suite in "${suites[@]}"; do
      [[ -n ${proc_result[$suite]+x} ]] || { proc_result[$suite]="FAILED: no test ran"; proc_counts[$suite]="0 0 0 0"; }
    done
  fi
}

# run_sanitizer STAGE DIR BUDGET WRAPPER...: the stage's suites under WRAPPER, within BUDGET
# seconds: joined processes until each suite has a verdict or the time is spent, then each failed
# suite alone; a row per suite in the stage's table and one for the stage.
run_sanitizer() {
  local stage_name=$1 dir=$2 stage_budget=$3 start=$SECONDS
  shift 3
  sanitizer_wrapper=("$@")
  local -n table=${stage_name}_rows  # memcheck_rows, racecheck_rows
  if ((${#suite_names[@]} == 0)) && ! list_suites >"$dir/list.log"; then
    fail "$stage_name" "kiln_gpu_tests --gtest_list_tests failed: $(tail -n 1 "$dir/list.log")"
    return
  fi
  local -a order=() pending=() isolate=()
  local -A result=() counts=()
  declare -gA proc_result=() proc_counts=()
  local suite reason n_left_out=0 n_ok=0 n_bad=0 n_unreached=0 round=0 cap unplaced=0
  mapfile -t order < <(sanitizer_suites "$stage_name")
  for suite in "${order[@]}"; do
    if reason=$(sanitizer_leaves_out "$stage_name" "$suite"); then
      table+=("| $suite | left out: $reason | | | | |")
      n_left_out=$((n_left_out + 1))
    else
      pending+=("$suite")
    fi
  done
  local stage_end=$((SECONDS + stage_budget))
  time_left() {  # the time this stage may still spend
    local left=$((stage_end - SECONDS))
    ((left < deadline - SECONDS)) || left=$((deadline - SECONDS))
    echo "$left"
  }
  while ((${#pending[@]} > 0)); do
    cap=$(time_left)
    ((cap >= 5)) || break
    round=$((round + 1))
    sanitizer_process "$stage_name" "$dir/joined-$round.log" "$cap" "${pending[@]}"
    unplaced=$((unplaced + proc_placed))
    local -a next=()
    for suite in "${pending[@]}"; do
      if [[ -z ${proc_result[$suite]+x} ]]; then next+=("$suite"); continue; fi
      result[$suite]=${proc_result[$suite]}
      counts[$suite]=${proc_counts[$suite]}
      if [[ ${result[$suite]} != ok && ${result[$suite]} != SKIPPED* ]] && ((${#pending[@]} > 1)); then
        isolate+=("$suite")
      fi
    done
    after_suite "$stage_name"
    if ((${#next[@]} == ${#pending[@]})); then  # it ended before any test: no round would do better
      for suite in "${pending[@]}"; do
        result[$suite]="FAILED: the process ended (exit $proc_rc) before a test: $(grep -v '^\(===\|    --gtest\)' "$dir/joined-$round.log" | tail -n 1 | cut -c1-100)"
        counts[$suite]="0 0 0 0"
      done
      next=()
    fi
    pending=("${next[@]}")
  done
  # Each failed suite alone, while time is left; its row keeps what the joined process showed.
  for suite in "${isolate[@]}"; do
    cap=$(time_left)
    ((cap < suite_limit)) || cap=$suite_limit
    if ((cap < 5)); then
      result[$suite]+=" (in a joined process; not rerun alone: the stage's time was spent)"
      continue
    fi
    sanitizer_process "$stage_name" "$dir/${suite//\//_}.log" "$cap" "$suite"
    result[$suite]="${proc_result[$suite]:-FAILED: no test ran} alone; in the joined process: ${result[$suite]}"
    after_suite "$stage_name"
  done
  local passed failed skipped seconds
  for suite in "${order[@]}"; do
    if [[ -n ${result[$suite]+x} ]]; then
      read -r passed failed skipped seconds <<<"${counts[$suite]}"
      table+=("| $suite | ${result[$suite]} | $passed | $failed | $skipped | $seconds s |")
      if [[ ${result[$suite]} == ok ]]; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); fi
    elif matches_any "$suite" "${pending[@]}"; then
      table+=("| $suite | not reached: the stage's ${stage_budget} s were spent | | | | |")
      n_unreached=$((n_unreached + 1))
    fi
  done
  if ((unplaced > 0)); then
    table+=("| (no suite) | FAILED: $unplaced findings the logs place in no suite (joined-*.log) | | | | |")
    n_bad=$((n_bad + 1))
  fi
  stage_row "$stage_name" "$stage_budget" "$start" "$((${#order[@]} + (unplaced > 0)))" "$n_ok" "$n_bad" \
    "$n_unreached" "$n_left_out"
}
