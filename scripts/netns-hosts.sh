#!/usr/bin/env bash
# Two "hosts" on one Linux machine: network namespaces A and B joined by a data link (veth,
# 10.211.1.1 <-> 10.211.1.2) and, when asked, a second control link for Open MPI's own traffic
# (10.211.2.1 <-> 10.211.2.2), with an rsh agent that starts Open MPI's daemon in the namespace
# that owns an address. Every address lives inside the namespaces; the root namespace gains
# nothing. Needs root with CAP_NET_ADMIN. Sourced by tests/hosts/ and scripts/hosts-scaling.sh:
#   hosts_can_run              prints why not and returns 1 where namespaces cannot be made
#   hosts_clean_leftovers      removes the namespaces of earlier runs whose owner process is gone
#   hosts_up TAG [control]     makes kiln-hosts-$$-TAG-{a,b}, the links and $HOSTS_DIR/rsh-agent
#   hosts_mpirun ARGS...       mpirun, run in A, with one slot on each host (-H by data address)
#   hosts_short_tcp_retries    net.ipv4.tcp_retries2=5 in both: TCP gives up on a dead peer in ~13 s
#   hosts_link_down            takes the data link down (both ends lose carrier, as a pulled cable)
#   hosts_pids                 the processes still in either namespace
#   hosts_down                 kills whatever is left in them and removes both (trap it on EXIT)
# As a command: `netns-hosts.sh clean` runs hosts_clean_leftovers.

HOSTS_PREFIX=kiln-hosts
HOSTS_DATA_NET=10.211.1
HOSTS_CONTROL_NET=10.211.2
HOSTS_A_ADDR=$HOSTS_DATA_NET.1
HOSTS_B_ADDR=$HOSTS_DATA_NET.2

hosts_can_run() {
  if ! command -v ip >/dev/null; then
    echo "needs the ip command (Debian's iproute2) to make network namespaces"
    return 1
  fi
  if ((EUID != 0)); then
    echo "needs root with CAP_NET_ADMIN to make network namespaces (running as uid $EUID)"
    return 1
  fi
  local probe="$HOSTS_PREFIX-$$-probe" err
  if ! err=$(ip netns add "$probe" 2>&1); then
    echo "this process may not make network namespaces (it lacks CAP_NET_ADMIN or CAP_SYS_ADMIN, or the kernel or container refuses them): ip netns add: $err"
    return 1
  fi
  if ! err=$(ip link add kiln-probe0 netns "$probe" type veth peer name kiln-probe1 netns "$probe" 2>&1); then
    ip netns del "$probe" 2>/dev/null
    echo "this kernel refuses veth pairs: ip link add ... type veth: $err"
    return 1
  fi
  ip netns del "$probe"
}

# Namespaces are named after the process that made them, so a run killed before its trap could
# clean up is recognised by a later one: its owner no longer exists.
hosts_clean_leftovers() {
  local ns owner
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$HOSTS_PREFIX-[0-9]+-"); do
    owner=${ns#"$HOSTS_PREFIX"-}
    owner=${owner%%-*}
    if ! kill -0 "$owner" 2>/dev/null; then
      echo "netns-hosts: removing $ns, left by process $owner that no longer runs"
      hosts_kill_in "$ns"
      ip netns del "$ns" 2>/dev/null
    fi
  done
}

hosts_kill_in() {  # hosts_kill_in NS: SIGKILL to every process in it
  local pids
  pids=$(ip netns pids "$1" 2>/dev/null)
  # shellcheck disable=SC2086  # one word per process id
  [[ -n $pids ]] && kill -9 $pids 2>/dev/null
  return 0
}

hosts_up() {  # hosts_up TAG [control]
  local tag=$1 control=${2:-}
  HOSTS_A="$HOSTS_PREFIX-$$-$tag-a"
  HOSTS_B="$HOSTS_PREFIX-$$-$tag-b"
  HOSTS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kiln-hosts-$tag.XXXXXX")
  ip netns add "$HOSTS_A" && ip netns add "$HOSTS_B" || return 1
  ip -n "$HOSTS_A" link set lo up && ip -n "$HOSTS_B" link set lo up || return 1
  # Both ends made straight inside their namespaces: no interface ever appears in the root one.
  ip link add data0 netns "$HOSTS_A" type veth peer name data0 netns "$HOSTS_B" || return 1
  ip -n "$HOSTS_A" addr add "$HOSTS_A_ADDR/24" dev data0 &&
    ip -n "$HOSTS_B" addr add "$HOSTS_B_ADDR/24" dev data0 &&
    ip -n "$HOSTS_A" link set data0 up && ip -n "$HOSTS_B" link set data0 up || return 1
  local oob_net=$HOSTS_DATA_NET
  if [[ $control == control ]]; then
    ip link add ctl0 netns "$HOSTS_A" type veth peer name ctl0 netns "$HOSTS_B" || return 1
    ip -n "$HOSTS_A" addr add "$HOSTS_CONTROL_NET.1/24" dev ctl0 &&
      ip -n "$HOSTS_B" addr add "$HOSTS_CONTROL_NET.2/24" dev ctl0 &&
      ip -n "$HOSTS_A" link set ctl0 up && ip -n "$HOSTS_B" link set ctl0 up || return 1
    oob_net=$HOSTS_CONTROL_NET
  fi
  # What `ssh HOST COMMAND...` does for Open MPI: the words joined into one shell command, run on
  # the host that owns the address (leading options, as mpirun gives ssh, are skipped).
  cat >"$HOSTS_DIR/rsh-agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case \$host in
  $HOSTS_A_ADDR|$HOSTS_CONTROL_NET.1) ns=$HOSTS_A ;;
  $HOSTS_B_ADDR|$HOSTS_CONTROL_NET.2) ns=$HOSTS_B ;;
  *) echo "rsh-agent: no namespace for host '\$host'" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" /bin/sh -c "\$*"
EOF
  chmod +x "$HOSTS_DIR/rsh-agent"
  # shellcheck disable=SC2054  # tcp,self is one word
  HOSTS_MPIRUN_ARGS=(--mca plm_rsh_agent "$HOSTS_DIR/rsh-agent"
                     --mca btl tcp,self
                     --mca btl_tcp_if_include "$HOSTS_DATA_NET.0/24"
                     --mca oob_tcp_if_include "$oob_net.0/24"
                     -H "$HOSTS_A_ADDR,$HOSTS_B_ADDR")
}

# A TCP connection to a host that vanished is retried for about 15 minutes by default
# (tcp_retries2=15); 5 gives up after about 13 s, so mpirun and its daemons notice a dead host.
hosts_short_tcp_retries() {
  ip netns exec "$HOSTS_A" sysctl -qw net.ipv4.tcp_retries2=5 &&
    ip netns exec "$HOSTS_B" sysctl -qw net.ipv4.tcp_retries2=5
}

hosts_mpirun() {
  ip netns exec "$HOSTS_A" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun "${HOSTS_MPIRUN_ARGS[@]}" "$@"
}

hosts_link_down() { ip -n "$HOSTS_A" link set data0 down; }

hosts_pids() {
  { ip netns pids "$HOSTS_A" 2>/dev/null; ip netns pids "$HOSTS_B" 2>/dev/null; } | sort -n
}

hosts_down() {
  [[ -n ${HOSTS_A:-} ]] || return 0
  local ns
  for ns in "$HOSTS_A" "$HOSTS_B"; do
    hosts_kill_in "$ns"
    ip netns del "$ns" 2>/dev/null
  done
  [[ -n ${HOSTS_DIR:-} ]] && rm -rf "$HOSTS_DIR"
  HOSTS_A=
  return 0
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  case ${1:-} in
    clean) hosts_clean_leftovers ;;
    *) echo "usage: netns-hosts.sh clean   (or source it: see its first lines)" >&2; exit 2 ;;
  esac
fi
