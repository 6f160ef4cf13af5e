#!/usr/bin/env bash
# bench --scaling across two hosts made on this machine (scripts/netns-hosts.sh): the article
# workload as 1 rank, then as 2 ranks (one per namespace) whose gradients cross a veth TCP link,
# with a separate control link for Open MPI's own traffic. Needs root (CAP_NET_ADMIN).
#   scripts/hosts-scaling.sh [BUILD_DIR] [bench options...]   (default: build, --samples 12800)
# Both "hosts" share this machine's cores, so the table measures the TCP path's cost, not a gain
# from a second machine; on real hosts run bench --scaling with --mpirun-args (README).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/netns-hosts.sh"
build=${1:-build}
shift || true
(($# > 0)) || set -- --samples 12800
bench=$(realpath "$build/apps/bench")
reason=$(hosts_can_run) || { echo "hosts-scaling: $reason" >&2; exit 1; }
hosts_clean_leftovers
trap hosts_down EXIT
trap 'exit 1' INT TERM HUP
hosts_up scaling control
# The agent's path and the subnets have no spaces, so the words survive bench's splitting.
ip netns exec "$HOSTS_A" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  "$bench" --scaling 1,2 --out "$(pwd)/bench-results" --mpirun-args="${HOSTS_MPIRUN_ARGS[*]}" "$@"
