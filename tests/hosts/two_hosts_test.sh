#!/usr/bin/env bash
# Two hosts over TCP (ctest label hosts): two network namespaces made by scripts/netns-hosts.sh,
# one rank of an mpirun job in each, started through an rsh agent. Run as
#   two_hosts_test.sh CASE TRAIN COMPARE_WEIGHTS
# with CASE one of:
#   same-weights         2 hosts at global batch B == 2 ranks on one host, bit for bit (article
#                        model), and == 1 rank at batch B within 1e-6 (article model and an MLP)
#   data-link-down       the data link dies mid-epoch, Open MPI's own traffic has a control link:
#                        the job ends non-zero within --dist-timeout + 30 s, the message names the
#                        collective and the rank, no process of the job is left in either host
#   only-link-down       the same with a single link (both kinds of traffic on the dead one), on
#                        hosts whose TCP gives up on a dead peer in ~13 s (tcp_retries2=5)
#   killed-rank-resumes  rank 1 is SIGKILLed mid-epoch; the same command with --resume ends with
#                        the weights of an uninterrupted run, bit for bit
#   netem                50 ms delay and 1 % loss on the data link: the same weights, bit for bit
# Exit status 77 (ctest: skipped) with the reason where namespaces (or netem) cannot be had.
set -uo pipefail
case=$1 train=$2 compare=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../scripts/netns-hosts.sh"

skip() { echo "two_hosts_test: SKIPPED: $*"; exit 77; }
fail() {
  echo "two_hosts_test: FAILED ($case): $*"
  [[ -f ${work:-}/job.log ]] && { echo "--- the job's output:"; tail -40 "$work/job.log"; }
  exit 1
}
reason=$(hosts_can_run) || skip "$reason"
hosts_clean_leftovers

work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-two-hosts-$case.XXXXXX")
trap 'hosts_down; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

timeout_s=5  # --dist-timeout of the failure cases
one_host_mpirun=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                 mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none)
base=(--device=cpu --threads 1 --workers 0 --data article --schedule constant --quiet)

same_weights() {  # same_weights A_DIR B_DIR TOLERANCE WHAT
  echo "--- $4"
  "$compare" "$1/model.safetensors" "$2/model.safetensors" "$3" || fail "$4: the weights differ"
}

# Waits for the background job $job and for both namespaces to empty, until `deadline` seconds
# after `t0`; sets job_rc, ended_s (mpirun's end) and empty_s (the last process gone).
wait_for_the_end() {
  local deadline=$1
  ended_s="" empty_s=""
  while ((SECONDS - t0 <= deadline)); do
    if [[ -z $ended_s ]] && ! kill -0 "$job" 2>/dev/null; then
      wait "$job"; job_rc=$?
      ended_s=$((SECONDS - t0))
    fi
    if [[ -n $ended_s && -z $(hosts_pids) ]]; then
      empty_s=$((SECONDS - t0))
      return 0
    fi
    sleep 0.5
  done
  local left
  left=$(for p in $(hosts_pids); do ps -o pid=,comm= -p "$p"; done | tr '\n' ';')
  fail "${ended_s:+mpirun ended after ${ended_s} s, but }after ${deadline} s these are still in the hosts: ${left:-none}"
}

case_same_weights() {
  hosts_up same || fail "could not make the namespaces"
  local art=("${base[@]}" --model article --samples 256 --batch-size 64 --epochs 1 --optimizer momentum)
  "$train" "${art[@]}" --checkpoint "$work/alone" || fail "one rank failed"
  hosts_mpirun -np 2 "$train" "${art[@]}" --checkpoint "$work/two-hosts" >"$work/job.log" 2>&1 ||
    fail "the two-host job failed"
  "${one_host_mpirun[@]}" -np 2 "$train" "${art[@]}" --checkpoint "$work/one-host" >"$work/job.log" 2>&1 ||
    fail "the one-host job failed"
  same_weights "$work/two-hosts" "$work/one-host" 0 "article model: 2 hosts over TCP == 2 ranks on one host"
  same_weights "$work/two-hosts" "$work/alone" 1e-6 "article model: 2 hosts at batch 64 ~ 1 rank at batch 64"
  local mlp=("${base[@]}" --model mlp:784-97-33-10 --samples 448 --batch-size 32 --epochs 2 --optimizer adam --lr 0.003)
  "$train" "${mlp[@]}" --checkpoint "$work/mlp-alone" || fail "one rank failed (MLP)"
  hosts_mpirun -np 2 "$train" "${mlp[@]}" --checkpoint "$work/mlp-two-hosts" >"$work/job.log" 2>&1 ||
    fail "the two-host job failed (MLP)"
  same_weights "$work/mlp-two-hosts" "$work/mlp-alone" 1e-6 "MLP: 2 hosts at batch 32 ~ 1 rank at batch 32"
}

# Trains until the first epoch is logged, takes the data link down in the second, and checks how
# the job ended.
link_down() {
  local args=("${base[@]}" --model mlp:784-64-10 --samples 4096 --batch-size 64 --epochs 500
              --dist-timeout "$timeout_s" --log-json "$work/log.jsonl")
  hosts_mpirun -np 2 "$train" "${args[@]}" >"$work/job.log" 2>&1 &
  job=$!
  t0=$SECONDS
  until [[ -s $work/log.jsonl ]]; do
    kill -0 "$job" 2>/dev/null || fail "the job ended before its first epoch"
    ((SECONDS - t0 < 90)) || fail "no epoch within 90 s"
    sleep 0.2
  done
  sleep 1  # into the second epoch
  hosts_link_down || fail "could not take the data link down"
  t0=$SECONDS
  echo "--- the data link is down; the job must end within $timeout_s + 30 s"
  wait_for_the_end $((timeout_s + 30))
  echo "--- mpirun ended after $ended_s s (exit status $job_rc), the hosts were empty after $empty_s s"
  ((job_rc != 0)) || fail "the job exited 0"
  grep -E "kiln: rank [01] of 2 \(MPI\): [a-z (),-]+ #[0-9]+ \([0-9]+ [a-z]+\) did not finish within $timeout_s s \(--dist-timeout\)" \
    "$work/job.log" || fail "no watchdog message naming the rank and the collective"
}

case_data_link_down() {
  hosts_up down control || fail "could not make the namespaces"
  link_down
}

case_only_link_down() {
  hosts_up only || fail "could not make the namespaces"
  hosts_short_tcp_retries || fail "could not set net.ipv4.tcp_retries2 in the namespaces"
  link_down
}

case_killed_rank_resumes() {
  hosts_up resume control || fail "could not make the namespaces"
  # 8 steps per epoch: step 11 is the fourth of epoch 2, after rank 0 saved epoch 1.
  local args=("${base[@]}" --model mlp:784-97-10 --samples 512 --batch-size 64 --epochs 3 --optimizer momentum)
  hosts_mpirun -np 2 "$train" "${args[@]}" --checkpoint "$work/straight" >"$work/job.log" 2>&1 ||
    fail "the uninterrupted job failed"
  hosts_mpirun -np 2 -x KILN_INJECT_FAULT=kill:1:11 "$train" "${args[@]}" --checkpoint "$work/run" \
    >"$work/job.log" 2>&1 && fail "the job whose rank 1 was killed exited 0"
  grep -E "signal 9|Killed" "$work/job.log" || fail "mpirun did not report rank 1's SIGKILL"
  [[ -z $(hosts_pids) ]] || fail "processes were left in the hosts after the kill: $(hosts_pids | tr '\n' ' ')"
  local latest
  latest=$(readlink "$work/run/latest")
  echo "--- killed in epoch 2; the last checkpoint is $latest"
  [[ $latest == ckpt-000001 ]] || fail "expected the checkpoint of epoch 1, found '$latest'"
  hosts_mpirun -np 2 "$train" "${args[@]}" --checkpoint "$work/run" --resume >"$work/job.log" 2>&1 ||
    fail "the resumed job failed"
  same_weights "$work/run" "$work/straight" 0 "killed at step 11 and resumed == uninterrupted"
}

case_netem() {
  hosts_up netem control || fail "could not make the namespaces"
  command -v tc >/dev/null || skip "no tc command (Debian's iproute2) to add netem's delay and loss"
  local err
  err=$(ip netns exec "$HOSTS_A" tc qdisc add dev data0 root netem delay 50ms loss 1% 2>&1) ||
    skip "this kernel has no netem qdisc (sch_netem) for delay and loss: tc says: $err"
  ip netns exec "$HOSTS_A" tc qdisc del dev data0 root
  local args=("${base[@]}" --model mlp:784-32-10 --samples 256 --batch-size 64 --epochs 1)
  hosts_mpirun -np 2 "$train" "${args[@]}" --checkpoint "$work/clean" >"$work/job.log" 2>&1 ||
    fail "the job on a clean link failed"
  for ns in "$HOSTS_A" "$HOSTS_B"; do
    ip netns exec "$ns" tc qdisc add dev data0 root netem delay 50ms loss 1% || fail "netem on $ns"
  done
  hosts_mpirun -np 2 "$train" "${args[@]}" --checkpoint "$work/netem" >"$work/job.log" 2>&1 ||
    fail "the job over 50 ms delay and 1 % loss failed"
  same_weights "$work/netem" "$work/clean" 0 "50 ms delay and 1 % loss == a clean link"
}

case $case in
  same-weights) case_same_weights ;;
  data-link-down) case_data_link_down ;;
  only-link-down) case_only_link_down ;;
  killed-rank-resumes) case_killed_rank_resumes ;;
  netem) case_netem ;;
  *) echo "two_hosts_test: unknown case '$case'"; exit 2 ;;
esac
echo "two_hosts_test: $case: ok"
