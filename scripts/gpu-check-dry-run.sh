#!/usr/bin/env bash
# Dry run of scripts/gpu-check.sh with the bundle, here, without a GPU: in a bare Debian 12 chroot
# (debootstrap minbase: no Debian package kiln uses, as on the lent machine) with only the CUDA
# toolkit mounted and a stand-in nvidia-smi that answers like one H200. Every program must load
# from the bundle and every stage must reach its "no GPU" end inside the budget: each test suite
# skips (no device), no suite crashes or times out, no stage is left unreached. Exit 0 when so.
# Needs root (chroot, mounts) and, the first time, the Debian mirror (the base system is kept in
# /tmp/kiln-dry/base.tar). Usage: scripts/gpu-check-dry-run.sh   (after scripts/gpu-bundle.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f gpu-bundle/BUILD-INFO ]] || { echo "no gpu-bundle/: run scripts/gpu-bundle.sh first" >&2; exit 2; }

cache=/tmp/kiln-dry
base=$cache/base.tar
root=$cache/root
out=${OUT:-$cache/out}
if [[ ! -f $base ]]; then
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
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)" ;;
  *name,memory.total*) echo "NVIDIA H200, 143771 MiB" ;;
  *driver_version*) echo "580.159.04" ;;
  *) echo "stand-in nvidia-smi of scripts/gpu-check-dry-run.sh" ;;
esac
EOF
chmod +x "$root/usr/local/bin/nvidia-smi"
# The toolkit here may lack compute-sanitizer (the lent machine has it): a stand-in that drops its
# options and runs the program, so that the memcheck stage's per-suite runs are exercised too.
if [[ ! -x /usr/local/cuda/bin/compute-sanitizer && ! -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ]]; then
  cat >"$root/usr/local/bin/compute-sanitizer" <<'SANITIZER'
#!/bin/bash
# The dry run's stand-in for compute-sanitizer: runs the program without checking it.
while [[ $1 == --* ]]; do
  case $1 in --tool | --error-exitcode | --leak-check | --target-processes) shift 2 ;; *) shift ;; esac
done
"$@"
rc=$?
echo "========= ERROR SUMMARY: 0 errors (stand-in: nothing was checked)"
exit $rc
SANITIZER
  chmod +x "$root/usr/local/bin/compute-sanitizer"
fi

start=$SECONDS
rc=0
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb OUT=/root/out \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd /root/kiln && bash scripts/gpu-check.sh' >"$cache/gpu-check.log" 2>&1 || rc=$?
wall=$((SECONDS - start))
mkdir -p "$out"
cp "$root/root/out/gpu-check-summary.md" "$root/root/out/gpu-check-logs.tar.gz" "$out/"
summary=$out/gpu-check-summary.md

# The verdict: what a run without a GPU must show.
problems=()
((rc == 1)) || problems+=("gpu-check exited $rc, not 1 (no GPU)")
grep -q '^| libraries | ok' "$summary" || problems+=("the programs did not load from the bundle")
suites=$(grep -cE '^\| [A-Za-z0-9_/]+ \| SKIPPED: no CUDA device' "$summary" || true)
((suites > 0)) || problems+=("no test suite ran to its skip")
if grep -qE 'CRASHED|TIMED OUT|not reached' "$summary"; then
  problems+=("a suite or stage crashed, timed out or was not reached")
fi
echo "gpu-check dry run: ${wall} s, exit $rc, $suites suites skipped for want of a device; summary in $summary"
if ((${#problems[@]} > 0)); then
  printf '  FAIL: %s\n' "${problems[@]}"
  tail -n 30 "$cache/gpu-check.log"
  exit 1
fi
echo "  ok: every program loaded and every stage reached its no-GPU end"
