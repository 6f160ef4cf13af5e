#!/usr/bin/env bash
# README's second command, and what CI runs (.ci/run). Installs what is missing, then:
#   0. format:     every tracked C++/CUDA source as clang-format writes it (scripts/check-format.sh).
#   1. build/      Release, CUDA backend compiled in whenever the toolkit is at /usr/local/cuda;
#                  ctest runs every label (cpu, gpu, install); GPU tests skip visibly without a GPU.
#   2. build-asan/ Debug with AddressSanitizer + UBSan, CPU only, kiln as a static archive (the
#                  build that would drop self-registering kernels); ctest -L cpu on the reference
#                  CPU path (KILN_CPU_COMPUTE=reference), so both CPU paths pass the whole suite:
#                  phase 1 ran it on oneDNN, and the oneDNN parity tests run here too (they pick
#                  each path themselves). The library is built -O1 -g1 (line tables only: ASan's
#                  stack traces, a quarter less compile time), the tests -O0 (tests/CMakeLists.txt):
#                  the library at -O0 built 46 s faster but its tests ran 90 s slower.
#   3. build-fuzz/ the libFuzzer targets of every file parser (clang, ASan + UBSan), each run
#                  for FUZZ_SECONDS (default 15) on its corpus: scripts/fuzz.sh.
# Tests that check an output with its real consumer get a Python venv outside the tree
# (scripts/test-venv.sh) as KILN_TEST_PYTHON, and Debian's chromium for the HTML pages; they skip,
# visibly, where either cannot be had.
# Exits non-zero if a build or any test fails; the later phases run even if phase 1's tests fail.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=$(nproc)
declare -a summary=()
status=0
phase() {  # phase NAME COMMAND...: runs and times one phase; a failure is remembered, not fatal
  local name=$1 start=$SECONDS rc=0
  shift
  echo "=== test.sh: $name"
  "$@" || rc=$?
  summary+=("$(printf '%-22s %5d s  %s' "$name" $((SECONDS - start)) "$([[ $rc == 0 ]] && echo ok || echo "FAILED ($rc)")")")
  [[ $rc == 0 ]] || status=1
  return $rc
}
report() {
  echo "=== test.sh: summary"
  printf '  %s\n' "${summary[@]}"
}
trap report EXIT

if [[ -x /usr/local/cuda/bin/nvcc ]]; then cuda=ON; else cuda=AUTO; fi

phase "install-deps" bash scripts/install-deps.sh || exit 1
# Ninja, where it is installed (install-deps.sh installs it): on 2 cores it overlaps one target's
# links with the next one's compiles, which make's per-target steps do not.
if [[ -z ${CMAKE_GENERATOR:-} ]] && command -v ninja >/dev/null; then export CMAKE_GENERATOR=Ninja; fi

# The test venv is optional: without it the tests that need it skip, visibly.
if python=$(bash scripts/test-venv.sh); then
  export KILN_TEST_PYTHON=$python
else
  echo "test.sh: no test venv (scripts/test-venv.sh failed): tests that need it skip"
fi

# Headless Chromium for the tests that open kiln's HTML pages (about 290 MB with its dependencies,
# so not in install-deps' list): installed when missing and possible; otherwise they skip, visibly.
if ! command -v chromium >/dev/null; then
  if ((EUID == 0)) || command -v sudo >/dev/null; then
    sudo=(); ((EUID == 0)) || sudo=(sudo)
    echo "test.sh: installing chromium for the HTML page tests"
    { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
        --no-install-recommends chromium; } >/dev/null 2>&1 ||
      echo "test.sh: chromium could not be installed: the HTML page tests skip"
  else
    echo "test.sh: no chromium and no root to install it: the HTML page tests skip"
  fi
fi

# Formatting first: seconds, and a failure is reported with the build's, not instead of it.
phase "format (clang-format)" bash scripts/check-format.sh || true

# Unity builds: much of a test file's 2 s at -O1 is what every file repeats (the precompiled
# header's load, GoogleTest's and fmt's instantiations). Eight files a source cut kiln_tests'
# compiler time from 190 s to 117 s; sixteen a source, the cold Release build's from about 800 s
# to 560 s. File-scope names must then differ between the files of one target.
unity="-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16"
phase "build (Release)" bash -c "
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=$cuda $unity &&
  cmake --build build -j$jobs" || exit 1
phase "ctest (all labels)" \
  ctest --test-dir build --output-on-failure --no-tests=error --timeout 600 -j"$jobs" || true

phase "build (ASan+UBSan)" bash -c "
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug '-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1' \
        -DKILN_CUDA=OFF -DKILN_SANITIZE=ON -DKILN_BUILD_BENCHMARKS=OFF -DKILN_BUILD_APPS=OFF \
        -DBUILD_SHARED_LIBS=OFF $unity &&
  cmake --build build-asan -j$jobs" || exit 1
phase "ctest -L cpu (ASan, reference CPU path)" \
  env KILN_CPU_COMPUTE=reference ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -L cpu --output-on-failure --no-tests=error --timeout 600 -j"$jobs" || true

phase "fuzz (7 parsers, excerpts)" bash scripts/fuzz.sh || true

exit $status
