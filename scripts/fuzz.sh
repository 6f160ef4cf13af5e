#!/usr/bin/env bash
# The fuzz phase of scripts/test.sh: builds the libFuzzer targets of tests/fuzz/ with clang in
# build-fuzz/ (ASan + UBSan) and runs each for FUZZ_SECONDS (default 15) on its seed corpus,
# tests/fuzz/corpus/<target>/, which also keeps every crash input found so far as a regression
# input. New inputs go to build-fuzz/corpus/, never into the repository. Exits non-zero on any
# crash, leak, timeout, out-of-memory or sanitizer report, printing the end of the report and
# where the input was saved.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${FUZZ_SECONDS:-15}
# The targets that parse a file by path rewrite one per input: in memory, a hundred times faster
# than on a disk file system (ext4 flushes a truncated file on close).
if [[ -w /dev/shm ]]; then export TMPDIR=/dev/shm; fi
targets=(npy safetensors idx csv image state_json excerpt tokens)
cmake -S tests/fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build-fuzz -j"$(nproc)"

mkdir -p build-fuzz/artifacts
fuzz_one() {  # fuzz_one TARGET: fuzzes it for $seconds; prints one line, or the report's end
  local target=$1 work=build-fuzz/corpus/$1 log=build-fuzz/fuzz_$1.log
  mkdir -p "$work"
  # -rss_limit_mb / -malloc_limit_mb: an allocation a header merely claims is a finding too.
  if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build-fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$target-" \
    "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    echo "fuzz.sh: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs in ${seconds} s, no finding"
  else
    { echo "fuzz.sh: $target FAILED; the end of $log:"
      tail -n 40 "$log"
      echo "fuzz.sh: fix it, then keep the input (build-fuzz/artifacts/$target-*) in tests/fuzz/corpus/$target/"
    } >&2
    return 1
  fi
}

# One fuzzer a core: each still runs its full $seconds, the phase takes 1/nproc of the time.
status=0
running=0
for target in "${targets[@]}"; do
  if ((running >= $(nproc))); then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
