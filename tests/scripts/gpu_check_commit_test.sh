#!/usr/bin/env bash
# scripts/gpu-check.sh refuses a bundle of another commit: run from a copy of the scripts with a
# stand-in gpu-bundle/, it must exit 2 at once (before it asks for the GPU) with both commits
# named and a REFUSED summary in $OUT, when --commit names another commit, when --commit is
# missing, or when the bundle was built with uncommitted changes and the run expects a clean
# commit; a bundle of the expected commit (a longer hash of it too, or HASH+uncommitted for a
# dirty one) goes on to the GPU check, which the stand-in nvidia-smi fails. No GPU needed.
# Usage: gpu_check_commit_test.sh REPO_ROOT
set -euo pipefail
repo=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree/gpu-bundle" "$work/bin"
cp -r "$repo/scripts" "$work/tree/"
cat >"$work/bin/nvidia-smi" <<FAKE
#!/bin/sh
# Records that the check got as far as the GPU, then answers as a machine without one.
touch "$work/asked-for-the-gpu"
exit 1
FAKE
chmod +x "$work/bin/nvidia-smi"

errors=0
# check RECORDED EXPECTED_ARGS...: runs the check with BUILD-INFO's commit RECORDED; sets rc, log.
check() {
  local recorded=$1
  shift
  printf 'commit: %s\nbuilt: stand-in\n' "$recorded" >"$work/tree/gpu-bundle/BUILD-INFO"
  rm -rf "$work/out" "$work/asked-for-the-gpu"
  rc=0
  log=$(cd "$work/tree" && OUT=$work/out PATH="$work/bin:$PATH" KILN_GPU_CHECK_LOGS=$work/logs \
          timeout 60 bash scripts/gpu-check.sh "$@" 2>&1) || rc=$?
}
refused() {  # refused WHAT PATTERN: the last check exited 2 at once with PATTERN in its message
  if ((rc != 2)) || [[ -e $work/asked-for-the-gpu ]] || ! grep -qE -- "$2" <<<"$log" ||
      ! grep -q '^\*\*REFUSED\*\* (exit 2): ' "$work/out/gpu-check-summary.md" 2>/dev/null; then
    echo "FAIL: $1: expected exit 2 before the GPU, '$2' and a REFUSED summary; got exit $rc:"
    echo "$log" | sed 's/^/    /'
    errors=$((errors + 1))
  fi
}
went_on() {  # went_on WHAT: the last check passed the commit and reached the GPU
  if ((rc != 1)) || [[ ! -e $work/asked-for-the-gpu ]] || grep -q REFUSED <<<"$log"; then
    echo "FAIL: $1: expected the check to reach the GPU (exit 1 without one); got exit $rc:"
    echo "$log" | sed 's/^/    /'
    errors=$((errors + 1))
  fi
}

check 1111111 --commit 2222222
refused "a bundle of another commit" 'the programs are of commit 1111111, this run expects 2222222.*rerun scripts/gpu-bundle.sh'
check 1111111
refused "a bundle without --commit" 'holds the programs of commit 1111111: name the commit this run expects with --commit'
check "1111111 (with uncommitted changes)" --commit 1111111
refused "a bundle with uncommitted changes for a committed run" 'of commit 1111111 with uncommitted changes, this run expects 1111111 as committed'
check 1111111 --commit 1111111+uncommitted
refused "a committed bundle for a run expecting changes" 'expects 1111111 with uncommitted changes'
check 1111111 --commit not-a-hash
refused "a --commit that is no hash" "--commit 'not-a-hash' is not a commit hash"
check 1111111 --commit 1111111abcdef
went_on "a bundle of the expected commit, named by a longer hash"
check "1111111 (with uncommitted changes)" --commit=1111111+uncommitted
went_on "a rehearsal's bundle with uncommitted changes, expected so"
if ((errors > 0)); then exit 1; fi
echo "gpu-check commit guard: every bundle judged as expected"
