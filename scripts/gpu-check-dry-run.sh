#!/usr/bin/env bash
# Dry run of scripts/gpu-check.sh with the bundle, here, without a GPU: in a bare Debian 12 chroot
# (debootstrap minbase plus python3-minimal: no Debian package kiln uses, as on the lent machine)
# with the CUDA toolkit mounted, its cuDNN and NCCL moved where the lent machine has them (a
# Python virtual environment's site-packages/nvidia/{cudnn,nccl}/lib, found through python3's
# site folders, as PyTorch's wheels put them), and a stand-in nvidia-smi that answers like one
# H200 (plus a MIG line, which must not count as a GPU). The check is told the commit this tree
# is (--commit), as the first window's call is. Runs:
# 1. the whole check with a budget of each of KILN_DRY_BUDGETS (default "200 480") seconds: every
#    program must load from the bundle, cuDNN and NCCL from site-packages, every stage's limit
#    must be the budget's (scripts/gpu-check-budget.sh), memcheck's log must show the exact
#    allocator, and every stage must reach its "no GPU" end: each test suite skips (no device), no
#    suite crashes or times out, no stage or suite is left unreached;
# 2. a kill: the run is ended with SIGKILL during the memcheck stage (its stand-in sanitizer
#    waits), and $OUT must hold the summary and log archive of the stages done before.
# Exit 0 when so. Needs root (chroot, mounts) and, the first time, the Debian mirror (debootstrap
# is installed if missing; the base system is kept in /tmp/kiln-dry/base-python3.tar).
# Usage: scripts/gpu-check-dry-run.sh   (after scripts/gpu-bundle.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f gpu-bundle/BUILD-INFO ]] || { echo "no gpu-bundle/: run scripts/gpu-bundle.sh first" >&2; exit 2; }

cache=/tmp/kiln-dry
base=$cache/base-python3.tar
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
  debootstrap --variant=minbase --include=python3-minimal bookworm "$cache/build" "${mirror:-http://deb.debian.org/debian}" \
    >"$cache/debootstrap.log" 2>&1
  tar -C "$cache/build" -cf "$base" . && rm -rf "$cache/build"
fi
cleanup() {
  for m in proc sys dev usr/local/cuda-13.0/lib opt/cuda-libraries usr/local/cuda-13.0; do
    umount -l "$root/$m" 2>/dev/null || true
  done
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
# The lent machine's layout: CUDA's own folder without cuDNN and NCCL, which come with PyTorch's
# wheels in its virtual environment (/opt/torch/.venv, python3 there first on the PATH). Here:
# CUDA's lib folder seen through a tmpfs of links that leaves them out, and links to them in a
# venv's site-packages/nvidia/{cudnn,nccl}/lib.
mkdir -p "$root/opt/cuda-libraries"
mount --bind -o ro /usr/local/cuda-13.0/lib "$root/opt/cuda-libraries"
mount -t tmpfs tmpfs "$root/usr/local/cuda-13.0/lib"
venv=/opt/torch/.venv
py=$(chroot "$root" /usr/bin/python3 -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')
site=$venv/lib/$py/site-packages
mkdir -p "$root$venv/bin" "$root$site/nvidia/cudnn/lib" "$root$site/nvidia/nccl/lib"
printf 'home = /usr/bin\ninclude-system-site-packages = false\n' >"$root$venv/pyvenv.cfg"
ln -sfn /usr/bin/python3 "$root$venv/bin/python3"
for path in /usr/local/cuda-13.0/lib/*; do
  name=$(basename "$path")
  case $name in
    libcudnn*) ln -s "/opt/cuda-libraries/$name" "$root$site/nvidia/cudnn/lib/$name" ;;
    libnccl*) ln -s "/opt/cuda-libraries/$name" "$root$site/nvidia/nccl/lib/$name" ;;
    *) ln -s "/opt/cuda-libraries/$name" "$root/usr/local/cuda-13.0/lib/$name" ;;
  esac
done

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

# The commit the first window's call names: this tree's (HASH+uncommitted for a rehearsal of
# uncommitted changes, which gpu-bundle.sh then recorded too).
source scripts/gpu-check-commit.sh
expected=$(build_commit)
[[ $expected != *"(with uncommitted changes)" ]] || expected="${expected%% *}+uncommitted"

# check_in_chroot LOG BUDGET [VAR=VALUE...]: gpu-check.sh --commit $expected in the chroot with a
# budget of BUDGET s and $OUT at /root/out (emptied first); returns its exit status.
check_in_chroot() {
  local log=$1 budget=$2
  shift 2
  rm -rf "$root/root/out" && mkdir -p "$root/root/out"
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb OUT=/root/out KILN_GPU_CHECK_BUDGET="$budget" "$@" \
    PATH=$venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/kiln && exec bash scripts/gpu-check.sh --commit $expected" >"$log" 2>&1
}

# --- 1. the whole check, at each budget
problems=()
source scripts/gpu-check-budget.sh
for budget in ${KILN_DRY_BUDGETS:-200 480}; do
  log=$cache/gpu-check-$budget.log
  start=$SECONDS
  rc=0
  check_in_chroot "$log" "$budget" || rc=$?
  wall=$((SECONDS - start))
  summary=$out/gpu-check-summary-$budget.md
  cp "$root/root/out/gpu-check-summary.md" "$summary"
  cp "$root/root/out/gpu-check-logs.tar.gz" "$out/gpu-check-logs-$budget.tar.gz"
  tar -C "$cache" -xzf "$out/gpu-check-logs-$budget.tar.gz" ./memcheck/joined-1.log 2>/dev/null ||
    rm -f "$cache/memcheck/joined-1.log"
  # The verdict: what a run without a GPU must show.
  at="budget $budget s"
  ((rc == 1)) || problems+=("$at: gpu-check exited $rc, not 1 (no GPU)")
  grep -q '^| libraries | ok' "$summary" || problems+=("$at: the programs did not load from the bundle")
  for library in libcudnn.so.9:nvidia/cudnn/lib libnccl.so.2:nvidia/nccl/lib; do
    grep -qE "^    ${library%%:*}: $site/${library#*:}\$" "$log" ||
      problems+=("$at: ${library%%:*} was not found in python3's site-packages/${library#*:}")
  done
  suites=$(grep -cE '^\| [A-Za-z0-9_/]+ \| SKIPPED: no CUDA device' "$summary" || true)
  ((suites > 0)) || problems+=("$at: no test suite ran to its skip")
  if grep -qE 'CRASHED|TIMED OUT|not reached|incomplete' "$summary"; then
    problems+=("$at: a suite or stage crashed, timed out or was not reached: $(grep -m1 -E 'CRASHED|TIMED OUT|not reached|incomplete' "$summary")")
  fi
  grep -q '1 GPU(s)' "$log" || problems+=("$at: the MIG line was counted as a GPU")
  grep -q 'KILN_DEVICE_ALLOCATOR=exact' "$cache/memcheck/joined-1.log" 2>/dev/null ||
    problems+=("$at: memcheck's log does not show the exact allocator")
  # Every stage's limit, as the summary shows it, is the budget's (gpu-check-budget.sh).
  set_budget "$budget"
  for name in "${stage_order[@]}"; do
    row=$(grep -E "^\| $name \|" "$summary" || true)
    [[ -z $row || $row == *"| skipped: "* || $row == *"| ${limit[$name]} s |"* ]] ||
      problems+=("$at: stage $name: not limited to ${limit[$name]} s: $row")
  done
  echo "gpu-check dry run, budget $budget s: ${wall} s, exit $rc, $suites suites skipped for want of a device; summary in $summary"
done

# --- 2. a kill during memcheck: the stages done before must be in $OUT
kill_log=$cache/gpu-check-killed.log
# The last dry run's log reached memcheck: gone first, or the wait below can read it before the
# new run truncates it and kill the new run at once.
rm -f "$kill_log"
check_in_chroot "$kill_log" 200 KILN_DRY_SANITIZER_WAIT=60 &
runner=$!
killed=0
for _ in $(seq 1 600); do  # at most 60 s
  if grep -q '=== gpu-check memcheck: ' "$kill_log" 2>/dev/null; then
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
  exit 1
fi
echo "  ok: at each budget every program loaded (cuDNN and NCCL from site-packages), every stage"
echo "  reached its no-GPU end within its limit, memcheck ran with the exact allocator, and a run"
echo "  killed during memcheck left the summary of the stages before it ($out/gpu-check-summary-killed.md)"
