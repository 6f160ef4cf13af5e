#!/usr/bin/env bash
# Dry run of scripts/gpu-check.sh with the bundle, here, without a GPU: in a bare Debian 12 chroot
# (debootstrap minbase: no Debian package kiln uses, as on the lent machine) with only the CUDA
# toolkit mounted and a stand-in nvidia-smi that answers like one H200 (plus a MIG line, which
# must not count as a GPU). Two runs, both with a budget of 200 s (KILN_GPU_CHECK_BUDGET):
# 1. the whole check: every program must load from the bundle, every stage's limit must be its
#    base limit scaled to 200/480, and every stage must reach its "no GPU" end: each test suite
#    skips (no device), no suite crashes or times out, no stage is left unreached;
# 2. a kill: the run is ended with SIGKILL during the memcheck stage (its stand-in sanitizer
#    waits), and $OUT must hold the summary and log archive of the stages done before.
# Exit 0 when so. Needs root (chroot, mounts) and, the first time, the Debian mirror (debootstrap
# is installed if missing; the base system is kept in /tmp/kiln-dry/base.tar).
# Usage: scripts/gpu-check-dry-run.sh   (after scripts/gpu-bundle.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f gpu-bundle/BUILD-INFO ]] || { echo "no gpu-bundle/: run scripts/gpu-bundle.sh first" >&2; exit 2; }

cache=/tmp/kiln-dry
base=$cache/base.tar
root=$cache/root
out=${OUT:-$cache/out}
mkdir -p "$cache" "$out"
if [[ ! -f $base ]]; then
  if ! command -v debootstrap >/dev/null; then
    echo "gpu-check dry run: installing debootstrap (once)"
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap; } >"$cache/apt.log" 2>&1 ||
      { echo "could not install debootstrap: see $cache/apt.log" >&2; exit 2; }
  fi
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  rm -rf "$cache/build"
  debootstrap --variant=minbase bookworm "$cache/build" "${mirror:-http://deb.debian.org/debian}" \
    >"$cache/debootstrap.log" 2>&1
  tar -C "$cache/build" -cf "$base" . && rm -rf "$cache/build"
fi
cleanup() {
  for m in proc sys dev usr/local/cuda-13.0; do umount -l "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
cleanup
rm -rf "$root" && mkdir -p "$root" && tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mkdir -p "$root/usr/local/cuda-13.0"
mount --bind -o ro /usr/local/cuda-13.0 "$root/usr/local/cuda-13.0"
ln -sfn /usr/local/cuda-13.0 "$root/usr/local/cuda"

# What the device tool sends (tracked and untracked-not-ignored files) and the carried bundle.
mkdir -p "$root/root/kiln"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -C "$root/root/kiln" -xf -
cp -a gpu-bundle "$root/root/kiln/"
cat >"$root/usr/local/bin/nvidia-smi" <<'EOF'
#!/bin/sh
# The dry run's stand-in: answers like one H200, though no GPU or driver is here.
case "$*" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
      echo "  MIG 1g.18gb     Device  0: (UUID: MIG-00000000-0000-0000-0000-000000000000)" ;;
  *name,memory.total*) echo "NVIDIA H200, 143771 MiB" ;;
  *driver_version*) echo "580.159.04" ;;
  *) echo "stand-in nvidia-smi of scripts/gpu-check-dry-run.sh" ;;
esac
EOF
chmod +x "$root/usr/local/bin/nvidia-smi"
# The toolkit here may lack compute-sanitizer (the lent machine has it): a stand-in that drops its
# options, runs the program and prints the tool's summary line, so that the sanitizer stages'
# per-suite runs are exercised too. With KILN_DRY_SANITIZER_WAIT=SECONDS it first waits (the kill
# rehearsal below ends the run during that wait).
if [[ ! -x /usr/local/cuda/bin/compute-sanitizer && ! -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ]]; then
  cat >"$root/usr/local/bin/compute-sanitizer" <<'SANITIZER'
#!/bin/bash
# The dry run's stand-in for compute-sanitizer: runs the program without checking it.
tool=memcheck
while [[ $1 == --* ]]; do
  case $1 in
    --tool) tool=$2; shift 2 ;;
    --error-exitcode | --leak-check | --target-processes | --report-api-errors) shift 2 ;;
    *) shift ;;
  esac
done
sleep "${KILN_DRY_SANITIZER_WAIT:-0}"
"$@"
rc=$?
if [[ $tool == racecheck ]]; then
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings) (stand-in: nothing was checked)"
else
  echo "========= ERROR SUMMARY: 0 errors (stand-in: nothing was checked)"
fi
exit $rc
SANITIZER
  chmod +x "$root/usr/local/bin/compute-sanitizer"
fi

budget=200
# check_in_chroot LOG [VAR=VALUE...]: gpu-check.sh in the chroot with a budget of $budget s and
# $OUT at /root/out (emptied first); returns its exit status.
check_in_chroot() {
  local log=$1
  shift
  rm -rf "$root/root/out" && mkdir -p "$root/root/out"
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb OUT=/root/out KILN_GPU_CHECK_BUDGET=$budget "$@" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c 'cd /root/kiln && exec bash scripts/gpu-check.sh' >"$log" 2>&1
}

# --- 1. the whole check
start=$SECONDS
rc=0
check_in_chroot "$cache/gpu-check.log" || rc=$?
wall=$((SECONDS - start))
cp "$root/root/out/gpu-check-summary.md" "$root/root/out/gpu-check-logs.tar.gz" "$out/"
summary=$out/gpu-check-summary.md

# The verdict: what a run without a GPU must show.
problems=()
((rc == 1)) || problems+=("gpu-check exited $rc, not 1 (no GPU)")
grep -q '^| libraries | ok' "$summary" || problems+=("the programs did not load from the bundle")
suites=$(grep -cE '^\| [A-Za-z0-9_/]+ \| SKIPPED: no CUDA device' "$summary" || true)
((suites > 0)) || problems+=("no test suite ran to its skip")
if grep -qE 'CRASHED|TIMED OUT|not reached|incomplete' "$summary"; then
  problems+=("a suite or stage crashed, timed out or was not reached")
fi
grep -q '1 GPU(s)' "$cache/gpu-check.log" || problems+=("the MIG line was counted as a GPU")
# Every stage's limit, as the summary shows it, is its base limit scaled to the budget.
source scripts/gpu-check-budget.sh
set_budget "$budget"
for name in "${stage_order[@]}"; do
  row=$(grep -E "^\| $name \|" "$summary" || true)
  [[ -z $row || $row == *"| skipped: "* || $row == *"| ${limit[$name]} s |"* ]] ||
    problems+=("stage $name: not limited to ${limit[$name]} s (${base_limit[$name]} s scaled to $budget s): $row")
done
echo "gpu-check dry run: ${wall} s, exit $rc, $suites suites skipped for want of a device; summary in $summary"

# --- 2. a kill during memcheck: the stages done before must be in $OUT
kill_log=$cache/gpu-check-killed.log
# The last dry run's log reached memcheck: gone first, or the wait below can read it before the
# new run truncates it and kill the new run at once.
rm -f "$kill_log"
check_in_chroot "$kill_log" KILN_DRY_SANITIZER_WAIT=60 &
runner=$!
killed=0
for _ in $(seq 1 600); do  # at most 60 s
  if grep -q '=== gpu-check: memcheck ' "$kill_log" 2>/dev/null; then
    sleep 1
    # As the end of a lease: SIGKILL to every process in the chroot (no trap runs).
    for proc in /proc/[0-9]*; do
      [[ $(readlink "$proc/root" 2>/dev/null) == "$root" ]] && kill -KILL "${proc#/proc/}" 2>/dev/null
    done
    killed=1
    break
  fi
  sleep 0.1
done
wait "$runner" 2>/dev/null || true
kill_summary=$root/root/out/gpu-check-summary.md
if ((killed == 0)); then
  problems+=("the kill rehearsal never reached memcheck (see $kill_log)")
elif [[ ! -f $kill_summary ]]; then
  problems+=("a killed run left no summary in \$OUT")
else
  cp "$kill_summary" "$out/gpu-check-summary-killed.md"
  grep -qE '^\| gpu-tests \| FAILED: ' "$kill_summary" || problems+=("the killed run's summary lacks the gpu-tests stage")
  grep -qE '^\| bench-fp32 \| FAILED' "$kill_summary" || problems+=("the killed run's summary lacks the bench-fp32 stage")
  grep -qE '^\| memcheck \| not reached \(yet\)' "$kill_summary" || problems+=("the killed run's summary does not show memcheck unfinished")
  grep -q '^\*\*INCOMPLETE\*\*: written after' "$kill_summary" || problems+=("the killed run's summary does not say the run had not ended")
  [[ -f $root/root/out/gpu-check-logs.tar.gz ]] || problems+=("a killed run left no log archive in \$OUT")
fi

if ((${#problems[@]} > 0)); then
  printf '  FAIL: %s\n' "${problems[@]}"
  tail -n 30 "$cache/gpu-check.log"
  exit 1
fi
echo "  ok: every program loaded, every stage reached its no-GPU end within its scaled limit, and a"
echo "  run killed during memcheck left the summary of the stages before it ($out/gpu-check-summary-killed.md)"
