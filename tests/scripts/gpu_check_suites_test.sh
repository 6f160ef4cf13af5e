#!/usr/bin/env bash
# The per-suite runner of scripts/gpu-check.sh (gpu-check-suites.sh, gpu-check-summary.sh)
# against a stand-in gtest program whose suites pass, fail, crash, hang, skip, report, or need two
# GPUs: each suite's row must say what happened to it, memcheck must run the failed suites first
# and leave out the timed-out and the long ones, and a spent budget must show as "not reached".
# No GPU needed. Usage: tests/scripts/gpu_check_suites_test.sh REPO_ROOT
set -euo pipefail
repo=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests"
cat >"$work/tests/kiln_gpu_tests" <<'FAKE'
#!/usr/bin/env bash
for a in "$@"; do
  case $a in
    --gtest_list_tests)
      printf 'NcclCommunicator.\n  A\nGood.\n  A\nFail.\n  A\nCrash.\n  A\nHang.\n  A\nSkip.\n  A\nTwoGpus.\n  A\n'
      exit 0 ;;
    --gtest_filter=*) filter=${a#--gtest_filter=}; suite=${filter%%.*} ;;
    --gtest_output=xml:*) xml=${a#--gtest_output=xml:} ;;
  esac
done
echo "[ RUN      ] $suite.A"
report() { echo "<testsuites><testsuite name=\"$suite\" tests=\"1\" failures=\"$1\" disabled=\"0\" skipped=\"$2\" errors=\"0\">" >"$xml"; }
case $suite in
  Good) echo "kiln-report: $suite says hello"; echo "[       OK ] $suite.A (4000 ms)"; report 0 0 ;;
  NcclCommunicator) echo "filter $filter"; echo "[       OK ] $suite.A (10 ms)"; report 0 0 ;;
  Fail) echo "x.cpp:3: Failure"; echo "Expected: 1"; echo "[  FAILED  ] $suite.A (3 ms)"; report 1 0; exit 1 ;;
  Crash) kill -SEGV $$ ;;
  Hang) sleep 100 ;;
  Skip) echo "x.cpp:9: Skipped"; echo "no CUDA device: test"; echo "[  SKIPPED ] $suite.A (0 ms)"; report 0 1 ;;
  *) echo "unexpected suite $suite"; exit 3 ;;
esac
FAKE
chmod +x "$work/tests/kiln_gpu_tests"

build=$work logs=$work/logs
mkdir -p "$logs/suites" "$logs/sanitizer"
kiln_env=(KILN_FAKE=1) gpu_count=1 suite_limit=5 deadline=$((SECONDS + 300)) status=0 budget=60
rows=() suite_rows=() sanitizer_rows=() stage_order=(gpu-tests compute-sanitizer)
run_limited() {
  local seconds=$1 log=$2 rc=0
  shift 2
  timeout --kill-after=1 $((seconds - 2)) "$@" >"$log" 2>&1 || rc=$?
  return $rc
}
fail() { rows+=("| $1 | FAILED: $2 | 0 s |"); status=1; }
# shellcheck source=scripts/gpu-check-suites.sh
source "$repo/scripts/gpu-check-suites.sh"
# shellcheck source=scripts/gpu-check-summary.sh
source "$repo/scripts/gpu-check-summary.sh"

run_suites gpu-tests "$logs/suites" 40
run_suites compute-sanitizer "$logs/sanitizer" 40 env
sanitizer_rows_full=("${sanitizer_rows[@]}")
sanitizer_rows=()
run_suites compute-sanitizer "$logs/sanitizer" 4 env  # a budget already spent
report=$(figures)

errors=0
expect() {  # expect WHAT PATTERN TEXT
  if ! grep -qE -- "$2" <<<"$3"; then
    echo "FAIL: $1: no line matches '$2' in:"
    echo "$3" | sed 's/^/    /'
    errors=$((errors + 1))
  fi
}
plain=$(printf '%s\n' "${suite_rows[@]}")
expect "a passing suite" '^\| Good \| ok \| 1 \| 0 \| 0 \|' "$plain"
expect "a failing suite" '^\| Fail \| FAILED \| 0 \| 1 \| 0 \|' "$plain"
expect "a crash names its test" '^\| Crash \| CRASHED \(exit 139\) in Crash\.A \| 0 \| 1 \|' "$plain"
expect "a hang names its test" '^\| Hang \| TIMED OUT after 5 s in Hang\.A \| 0 \| 1 \|' "$plain"
expect "a skip gives its reason" '^\| Skip \| SKIPPED: no CUDA device: test \| 0 \| 0 \| 1 \|' "$plain"
expect "two-GPU suite left out" '^\| TwoGpus \| left out: needs two GPUs, 1 here' "$plain"
expect "NCCL runs last" '^\| NcclCommunicator \|' "$(tail -n 1 <<<"$plain")"
expect "the two-GPU NCCL test is filtered out" "filter NcclCommunicator\.\*-$two_gpu_test" "$(cat "$logs/suites/NcclCommunicator.log")"
expect "the stage row counts suites" '^\| gpu-tests \| FAILED: 2 of 6 suites ok, 4 not ok' "$(printf '%s\n' "${rows[@]}")"
memcheck=$(printf '%s\n' "${sanitizer_rows_full[@]}")
expect "memcheck starts with the failed suites" '^\| Fail \|' "$(head -n 1 <<<"$memcheck")"
expect "memcheck leaves out a timed-out suite" '^\| Hang \| left out: timed out in the plain run' "$memcheck"
expect "memcheck leaves out a suite of long tests" '^\| Good \| left out: every test over 3000 ms' "$memcheck"
if grep -q '^| NcclCommunicator ' <<<"$memcheck"; then
  echo "FAIL: memcheck ran the NCCL suite"
  errors=$((errors + 1))
fi
expect "a spent budget is not reached" '^\| Fail \| not reached' "$(printf '%s\n' "${sanitizer_rows[@]}")"
expect "kiln-report lines are gathered" '^- Good says hello' "$report"
expect "failures are quoted" 'x\.cpp:3: Failure' "$report"
((status == 1)) || { echo "FAIL: status stayed $status"; errors=$((errors + 1)); }
if ((errors > 0)); then exit 1; fi
echo "gpu-check suite runner: every case reported as expected"
