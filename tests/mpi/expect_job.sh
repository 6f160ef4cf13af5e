#!/usr/bin/env bash
# Runs an mpirun job and checks how it ended, for the ctest label mpi:
#   expect_job.sh success|failure LIMIT_S PATTERN [--once ONCE_PATTERN] -- COMMAND...
# The job must end within LIMIT_S seconds with the expected status, its output (stdout and stderr)
# must match the extended regex PATTERN and, when given, ONCE_PATTERN exactly once.
set -uo pipefail
expect=$1 limit=$2 pattern=$3
shift 3
once=""
if [[ $1 == "--once" ]]; then once=$2; shift 2; fi
shift  # --

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
rc=$?
elapsed=$((SECONDS - start))
cat "$log"
echo "--- expect_job: exit status $rc after ${elapsed} s"
fail() { echo "--- expect_job: FAILED: $*"; exit 1; }
if [[ $rc == 124 || $rc == 137 ]]; then fail "the job did not end within ${limit} s"; fi
if [[ $expect == success && $rc != 0 ]]; then fail "expected success, got exit status $rc"; fi
if [[ $expect == failure && $rc == 0 ]]; then fail "expected the job to fail, it exited 0"; fi
grep -qE -- "$pattern" "$log" || fail "no line matches '$pattern'"
if [[ -n $once ]]; then
  count=$(grep -cE -- "$once" "$log")
  [[ $count == 1 ]] || fail "'$once' appears $count times, expected once"
fi
echo "--- expect_job: ok"
