#!/usr/bin/env bash
# The per-suite runner, the sanitizer stages, the budget and the summary of scripts/gpu-check.sh
# (gpu-check-suites.sh, gpu-check-sanitizers.sh, gpu-check-budget.sh, gpu-check-summary.sh)
# against a stand-in gtest program whose suites pass, fail, crash, hang, skip, report, write out
# of bounds, race, or need two GPUs: each suite's row must say what happened to it; each
# sanitizer stage must run its suites in one process over a joined filter, with memcheck's exact
# allocator set, go on in another process after a crash, rerun only the failed suites alone, leave
# out the timed-out and the long ones, judge memcheck by its "Invalid" lines and racecheck by its
# race lines and summary; a spent budget must show as "not reached" and make the stage incomplete,
# not failed; every limit must keep its floor and share the rest of the budget; the summary
# published after a stage must say the run had not ended. No GPU needed.
# Usage: gpu_check_suites_test.sh REPO_ROOT
set -euo pipefail
repo=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests"
cat >"$work/tests/kiln_gpu_tests" <<'FAKE'
#!/usr/bin/env bash
# Runs the suites its filter names (A.*:B.*-negatives) in the program's order, as gtest does.
order=(NcclCommunicator Good Fail Crash Hang Skip TwoGpus Oob Racy LinearParity OpParity_Elementwise)
for a in "$@"; do
  case $a in
    --gtest_list_tests)
      printf 'NcclCommunicator.\n  A\nGood.\n  A\nFail.\n  A\nCrash.\n  A\nHang.\n  A\nSkip.\n  A\nTwoGpus.\n  A\n'
      printf 'Oob.\n  A\nRacy.\n  A\nLinearParity.\n  A\n'
      printf 'OpParity_Elementwise.\n  MatchesTheReference/binary  # GetParam() = "binary"\n  MatchesTheReference/unary\n'
      exit 0 ;;
    --gtest_filter=*) filter=${a#--gtest_filter=} ;;
    --gtest_output=xml:*) xml=${a#--gtest_output=xml:} ;;
  esac
done
echo "filter $filter"
echo "allocator ${KILN_DEVICE_ALLOCATOR:-caching}"
positive=${filter%%-*}
rc=0 hazards=0 ran=0 xml_body=""
for suite in "${order[@]}"; do
  [[ ":$positive:" == *":$suite.*:"* ]] || continue
  ran=$((ran + 1))
  [[ $suite == OpParity_Elementwise ]] || echo "[ RUN      ] $suite.A"
  case $suite in
    Good) echo "kiln-report: $suite says hello"; echo "[       OK ] $suite.A (4000 ms)"; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"0\" disabled=\"0\" skipped=\"0\" errors=\"0\">" ;;
    NcclCommunicator) echo "[       OK ] $suite.A (10 ms)"; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"0\" disabled=\"0\" skipped=\"0\" errors=\"0\">" ;;
    Fail) echo "x.cpp:3: Failure"; echo "Expected: 1"; echo "[  FAILED  ] $suite.A (3 ms)"; rc=1; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"1\" disabled=\"0\" skipped=\"0\" errors=\"0\">" ;;
    Crash) kill -SEGV $$ ;;
    Hang) sleep 100 ;;
    Skip) echo "x.cpp:9: Skipped"; echo "no CUDA device: test"; echo "[  SKIPPED ] $suite.A (0 ms)"; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"0\" disabled=\"0\" skipped=\"1\" errors=\"0\">" ;;
    # What compute-sanitizer adds to a log: its lines come out under any wrapper here.
    Oob) echo "========= Invalid __global__ write of size 4 bytes"; echo "[       OK ] $suite.A (5 ms)"; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"0\" disabled=\"0\" skipped=\"0\" errors=\"0\">" ;;
    Racy) echo "========= Error: Race reported between Write access at 0x10 in k()"; echo "========= Error: Race reported between Read access at 0x20 in k()"
          hazards=2; echo "[       OK ] $suite.A (5 ms)"; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"0\" disabled=\"0\" skipped=\"0\" errors=\"0\">" ;;
    LinearParity) echo "[       OK ] $suite.A (5 ms)"; xml_body+="<testsuite name=\"$suite\" tests=\"1\" failures=\"0\" disabled=\"0\" skipped=\"0\" errors=\"0\">" ;;
    # The op harness: one test per op, in gtest's XML as testcases.
    OpParity_Elementwise)
      echo "[ RUN      ] $suite.MatchesTheReference/binary"; echo "[       OK ] $suite.MatchesTheReference/binary (1 ms)"
      echo "[ RUN      ] $suite.MatchesTheReference/unary"; echo "[  FAILED  ] $suite.MatchesTheReference/unary, where GetParam() = \"unary\" (2 ms)"
      rc=1
      xml_body+="<testsuite name=\"$suite\" tests=\"2\" failures=\"1\" disabled=\"0\" skipped=\"0\" errors=\"0\">"
      xml_body+="  <testcase name=\"MatchesTheReference/binary\" status=\"run\" result=\"completed\" classname=\"$suite\" />"
      xml_body+="  <testcase name=\"MatchesTheReference/unary\" status=\"run\" result=\"completed\" classname=\"$suite\">"
      xml_body+="    <failure message=\"x\" type=\"\"></failure>  </testcase>" ;;
  esac
  xml_body+="</testsuite>"
  xml_body+=$'\n'
done
echo "[==========] $ran tests from $ran test suites ran. (9 ms total)"
if ((hazards > 0)); then echo "========= RACECHECK SUMMARY: $hazards hazards displayed ($hazards errors, 0 warnings)"; fi
{ echo "<testsuites>"; printf '%s' "$xml_body" | sed -E 's/> *</>\n</g'; echo "</testsuites>"; } >"$xml"
exit $rc
FAKE
chmod +x "$work/tests/kiln_gpu_tests"

build=$work logs=$work/logs out=$work/out
mkdir -p "$logs/suites" "$logs/memcheck" "$logs/racecheck" "$out"
kiln_env=(KILN_FAKE=1) gpu_count=1 deadline=$((SECONDS + 300)) status=0 incomplete=0
rows=() gpu_tests_rows=() memcheck_rows=() racecheck_rows=()
started=now commit=abc gpu=none driver=- cuda_bin=/nonexistent bundle=none
run_limited() {
  local seconds=$1 log=$2 rc=0
  shift 2
  timeout --kill-after=1 $((seconds - 2)) "$@" >>"$log" 2>&1 || rc=$?
  return $rc
}
fail() { rows+=("| $1 | FAILED: $2 | | 0 s |"); status=1; }
published=0
after_suite() { published=$((published + 1)); }
# shellcheck source=scripts/gpu-check-budget.sh
source "$repo/scripts/gpu-check-budget.sh"
# shellcheck source=scripts/gpu-check-suites.sh
source "$repo/scripts/gpu-check-suites.sh"
# shellcheck source=scripts/gpu-check-sanitizers.sh
source "$repo/scripts/gpu-check-sanitizers.sh"
# shellcheck source=scripts/gpu-check-summary.sh
source "$repo/scripts/gpu-check-summary.sh"
memcheck_suites=(Good Fail Crash Hang Skip Oob Racy)  # the stand-in's "own kernels"
racecheck_suites=(Racy Good)

errors=0
expect() {  # expect WHAT PATTERN TEXT
  if ! grep -qE -- "$2" <<<"$3"; then
    echo "FAIL: $1: no line matches '$2' in:"
    echo "$3" | sed 's/^/    /'
    errors=$((errors + 1))
  fi
}

# The budget: every stage keeps its floor and shares the rest; the limits add up to the budget
# at most, give the base limits at 480 s and the floors at the floors' sum; an unusable budget is
# refused.
limits() { for n in "${stage_order[@]}"; do printf '%s ' "${limit[$n]}"; done; echo "$suite_limit"; }
set_budget 200
expect "a budget near the floors' sum gives the floors" '^60 10 10 30 15 10 8 6 6 6 20 6 12 18$' "$(limits)"
set_budget 300
expect "a budget shares what the floors leave" '^97 15 13 47 23 15 12 8 8 8 25 9 13 28$' "$(limits)"
for b in 60 200 300 480 900; do
  set_budget "$b"
  total=0
  for n in "${stage_order[@]}"; do
    total=$((total + limit[$n]))
    ((limit[$n] >= floor_limit[$n])) || { echo "FAIL: $n below its floor at $b s"; errors=$((errors + 1)); }
  done
  ((b < floor_sum || total <= b)) || { echo "FAIL: the limits add up to $total s, over the $b s budget"; errors=$((errors + 1)); }
done
set_budget 480
expect "the base budget gives the base limits" '^165 25 20 80 40 25 20 14 14 12 35 15 15 45$' "$(limits)"
if set_budget 30 2>/dev/null || set_budget abc 2>/dev/null; then echo "FAIL: an unusable budget was accepted"; errors=$((errors + 1)); fi
set_budget 480
suite_limit=5

run_suites gpu-tests "$logs/suites" 60
run_sanitizer memcheck "$logs/memcheck" 60 env
memcheck_rows_full=("${memcheck_rows[@]}")
run_sanitizer racecheck "$logs/racecheck" 40 env
rows_before_spent=("${rows[@]}")
status_before_spent=$status
status=0
memcheck_rows=()
mkdir -p "$logs/memcheck-spent"
run_sanitizer memcheck "$logs/memcheck-spent" 4 env  # a budget already spent
spent_row=${rows[-1]}
status_after_spent=$status
rows=("${rows_before_spent[@]}")
status=$status_before_spent
report=$(figures)
publish memcheck
interim=$(cat "$out/gpu-check-summary.md")

plain=$(printf '%s\n' "${gpu_tests_rows[@]}")
expect "a passing suite" '^\| Good \| ok \| 1 \| 0 \| 0 \|' "$plain"
expect "a failing suite" '^\| Fail \| FAILED \| 0 \| 1 \| 0 \|' "$plain"
expect "a crash names its test" '^\| Crash \| CRASHED \(exit 139\) in Crash\.A \| 0 \| 1 \|' "$plain"
expect "a hang names its test" '^\| Hang \| TIMED OUT after 5 s in Hang\.A \| 0 \| 1 \|' "$plain"
expect "a skip gives its reason" '^\| Skip \| SKIPPED: no CUDA device: test \| 0 \| 0 \| 1 \|' "$plain"
expect "the plain run judges no sanitizer line" '^\| Oob \| ok \|' "$plain"
expect "two-GPU suite left out" '^\| TwoGpus \| left out: needs two GPUs, 1 here' "$plain"
expect "NCCL runs last" '^\| NcclCommunicator \|' "$(tail -n 1 <<<"$plain")"
expect "the two-GPU NCCL test is filtered out" "filter NcclCommunicator\.\*-$two_gpu_test" "$(cat "$logs/suites/NcclCommunicator.log")"
expect "the stage row counts suites" '^\| gpu-tests \| FAILED: 5 of 10 suites ok, 5 not ok' "$(printf '%s\n' "${rows[@]}")"
memcheck=$(printf '%s\n' "${memcheck_rows_full[@]}")
joined=$(cat "$logs/memcheck/joined-1.log" 2>/dev/null || true)
expect "memcheck runs its suites in one process" '^filter Fail\.\*:Crash\.\*:Skip\.\*:Oob\.\*:Racy\.\*$' "$joined"
expect "memcheck's process runs with the exact allocator" '^allocator exact$' "$joined"
expect "memcheck's log says so" 'KILN_DEVICE_ALLOCATOR=exact' "$(head -n 1 <<<"$joined")"
expect "after a crash the rest run in another process" '^filter Skip\.\*:Oob\.\*:Racy\.\*$' \
  "$(cat "$logs/memcheck/joined-2.log" 2>/dev/null || true)"
expect "a failed suite is rerun alone" '^filter Fail\.\*$' "$(cat "$logs/memcheck/Fail.log" 2>/dev/null || true)"
[[ ! -e $logs/memcheck/Skip.log && ! -e $logs/memcheck/Racy.log ]] ||
  { echo "FAIL: a suite that did not fail was rerun alone"; errors=$((errors + 1)); }
expect "a crash names its test, alone and joined" '^\| Crash \| CRASHED \(exit 139\) in Crash\.A alone; in the joined process: CRASHED \(exit 139\) in Crash\.A \|' "$memcheck"
expect "memcheck leaves out a timed-out suite" '^\| Hang \| left out: timed out in the plain run' "$memcheck"
expect "memcheck leaves out a suite of long tests" '^\| Good \| left out: every test over 3000 ms' "$memcheck"
expect "memcheck judges by its Invalid lines" '^\| Oob \| FAILED: 1 memory errors alone; in the joined process: FAILED: 1 memory errors \|' "$memcheck"
expect "a suite with no memory error is ok" '^\| Racy \| ok \| 1 \| 0 \| 0 \|' "$memcheck"
expect "memcheck leaves out library-backed suites" "^\| LinearParity \| left out: not kiln's own kernels" "$memcheck"
expect "the memcheck stage fails" '^\| memcheck \| FAILED: 1 of 5 suites ok \(5 left out\), 4 not ok' "$(printf '%s\n' "${rows[@]}")"
if grep -q '^| NcclCommunicator | [^l]' <<<"$memcheck"; then
  echo "FAIL: memcheck ran the NCCL suite"
  errors=$((errors + 1))
fi
racecheck=$(printf '%s\n' "${racecheck_rows[@]}")
expect "racecheck judges by its hazard summary" '^\| Racy \| FAILED: 2 race hazards \|' "$racecheck"
if grep -qE '^\| (Fail|Oob|LinearParity) \|' <<<"$racecheck"; then
  echo "FAIL: racecheck ran a suite outside its list"
  errors=$((errors + 1))
fi
expect "a spent budget is not reached" '^\| Fail \| not reached' "$(printf '%s\n' "${memcheck_rows[@]}")"
expect "a spent budget makes the stage incomplete" '^\| memcheck \| incomplete: 0 of [0-9]+ suites ok' "$spent_row"
((status_after_spent == 0 && incomplete == 1)) ||
  { echo "FAIL: an unreached suite failed the run (status $status_after_spent, incomplete $incomplete)"; errors=$((errors + 1)); }
((published > 10)) || { echo "FAIL: the summary was published after $published suites only"; errors=$((errors + 1)); }
expect "kiln-report lines are gathered" '^- Good says hello' "$report"
expect "failures are quoted" 'x\.cpp:3: Failure' "$report"
expect "the memcheck table is shown" "compute-sanitizer memcheck" "$report"
expect "an op that matches has its row" '^\| binary \| Elementwise \| ok \|$' "$report"
expect "an op that differs has its row" '^\| unary \| Elementwise \| FAILED \|$' "$report"
expect "an interim summary says the run had not ended" '^\*\*INCOMPLETE\*\*: written after memcheck' "$interim"
expect "stages not run yet are listed with their limit" '^\| bench-tf32 \| not reached \(yet\) \| 14 s \|' "$interim"
[[ -f $out/gpu-check-logs.tar.gz ]] || { echo "FAIL: no log archive in \$OUT"; errors=$((errors + 1)); }
final=$(write_summary)
expect "the final summary fails a failed run" '^\*\*FAIL\*\*' "$final"
((status == 1)) || { echo "FAIL: status stayed $status"; errors=$((errors + 1)); }
if ((errors > 0)); then exit 1; fi
echo "gpu-check suite runner: every case reported as expected"
