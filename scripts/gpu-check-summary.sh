# shellcheck shell=bash
# Sourced by gpu-check.sh: the summary it leaves in $out, rewritten with the log archive after
# every stage and suite (publish), so that a kill at any moment leaves what was done, and printed
# at the end; the summary alone is what docs/gpu-check.md records: the stage table, the per-suite
# tables, the failed and skipped tests, what kiln's tests reported, the end of each failed stage's
# log and the figures. Uses gpu-check.sh's variables (rows, gpu_tests_rows, memcheck_rows,
# racecheck_rows, logs, out, status, incomplete, …).

suite_table() {  # suite_table TITLE ROW...
  local title=$1
  shift
  (($# > 0)) || return 0
  echo
  echo "## $title"
  echo
  echo "| suite | result | passed | failed | skipped | wall |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
  printf '%s\n' "$@"
}

# The op harness's verdicts, one row per op and backend pair, from the gtest XML of its suites
# (OpParity_<group>.MatchesTheReference/<op>: reference against CUDA).
op_rows() {
  local xml
  local -a found=()
  for xml in "$logs"/suites/OpParity_*.xml; do [[ -f $xml ]] && found+=("$xml"); done
  ((${#found[@]} > 0)) || return 0
  echo
  echo "## Op parity (one row per op: reference CPU against CUDA)"
  echo
  echo "| op | group | result |"
  echo "| --- | --- | --- |"
  awk '
    function flush() { if (name != "") printf "| %s | %s | %s |\n", name, group, result; name = "" }
    /<testcase / {
      flush()
      match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
      sub(/^MatchesTheReference\//, "", name)
      match($0, /classname="[^"]*"/); group = substr($0, RSTART + 11, RLENGTH - 12)
      sub(/^OpParity_/, "", group)
      result = "ok"
      if ($0 ~ /result="skipped"/) result = "skipped"
    }
    /<failure/ { result = "FAILED" }
    /<skipped/ { if (result != "FAILED") result = "skipped" }
    END { flush() }' "${found[@]}" | grep -v '^| EveryGroupHasASuite ' || true
}

# shellcheck disable=SC2317  # called through the EXIT trap
figures() {
  local log name dir
  suite_table "GPU test suites (one process each)" "${gpu_tests_rows[@]}"
  suite_table "compute-sanitizer memcheck (kiln's own kernels in one process, ${sanitizer_note[memcheck]}; a failed suite rerun alone)" "${memcheck_rows[@]}"
  suite_table "compute-sanitizer racecheck (kernels with shared memory, in one process; a failed suite rerun alone)" "${racecheck_rows[@]}"
  op_rows
  local left_out=""
  for name in "${!long_tests[@]}"; do [[ -z ${long_tests[$name]} ]] || left_out+="${long_tests[$name]}"; done
  if [[ -n $left_out ]]; then
    echo
    echo "Left out of the sanitizers (over ${sanitizer_max_test_ms} ms in the plain run): $left_out"
  fi
  # The lines kiln's tests print for the record (which path holds, what fell back).
  if grep -hs '^kiln-report: ' "$logs"/suites/*.log >/dev/null; then
    echo
    echo "## Reported by the tests"
    echo
    grep -hs '^kiln-report: ' "$logs"/suites/*.log | sed 's/^kiln-report: /- /' | sort -u
  fi
  for dir in suites memcheck racecheck; do
    if grep -hsE '^\[  FAILED  \] .* \([0-9]+ ms\)$|^\[  SKIPPED \] .* \([0-9]+ ms\)$|^========= (Invalid|Error: Race|Warp|Out-of-range|Misaligned|Illegal|Hardware)' \
        "$logs/$dir"/*.log >/dev/null; then
      echo
      echo "## Failed or skipped tests ($([[ $dir == suites ]] && echo plain run || echo "$dir"))"
      echo
      grep -hsE '^\[  FAILED  \] .* \([0-9]+ ms\)$|^\[  SKIPPED \] .* \([0-9]+ ms\)$|^========= (Invalid|Error: Race|Warp|Out-of-range|Misaligned|Illegal|Hardware)' \
        "$logs/$dir"/*.log | sed -E 's/ \([0-9]+ ms\)$//' | sort -u | head -40 | sed 's/^/    /' || true
      # The first failure message of each failed test: often the whole story.
      grep -hs -B0 -A3 -E '^[^ ].*:[0-9]+: Failure$' "$logs/$dir"/*.log | head -40 | sed 's/^/    /' || true
    fi
  done
  # Each failed stage's first error lines and the end of its log: often the reason in one line.
  for name in "${stage_order[@]}"; do
    log=$logs/$name.log
    [[ -f $log ]] || continue
    if printf '%s\n' "${rows[@]}" | grep -qE "^\| $name \| (FAILED|TIMED OUT)"; then
      echo
      echo "## Why $name failed (its first error lines, then the end of its log)"
      echo
      { grep -m3 -iE '(^|[^a-z])(error|fail|abort|warn|what\(\))' "$log" || true; echo "..."; tail -n 5 "$log"; } |
        sed 's/^/    /'
    fi
  done
  # The figures: bench's per-epoch lines, the GPT's GPU-against-CPU losses, the tables of the MLP
  # benchmark and of compare-pytorch (shown only where a row of figures came out).
  local lines
  for log in "$logs"/bench-*.log "$logs/gpt-train.log" "$logs/gpu-mlp-benchmark.log" "$logs/compare-pytorch.log"; do
    [[ -f $log ]] || continue
    if [[ $log == */bench-* ]]; then
      lines=$(grep -E 'per epoch' "$log" | sed 's/^/    /' || true)
    elif [[ $log == */gpt-train.log ]]; then
      lines=$(grep -E '^gpt-train: ' "$log" | sed 's/^/    /' || true)
    elif (($(grep -c '^|' "$log" || true) > 2)); then
      lines=$(grep -E '^\||^GPU:|^article|^PyTorch' "$log" || true)
    else
      lines=""
    fi
    [[ -n $lines ]] || continue
    echo
    echo "## $(basename "$log" .log)"
    echo
    echo "$lines"
  done
}

# write_summary [AFTER]: the summary. AFTER names the stage just done while the run goes on: the
# verdict then says the run had not ended, which is what a killed run leaves.
write_summary() {
  local after=${1:-} name
  echo "# kiln gpu-check"
  echo
  echo "- date: $started"
  echo "- host: $(uname -n)"
  echo "- GPU: $gpu (driver $driver)"
  echo "- CUDA: $("$cuda_bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || echo '?')"
  echo "- commit: $commit"
  if [[ $build == "$bundle" ]]; then echo "- programs: $(sed -n 's/^built: //p' "$bundle/BUILD-INFO")"; fi
  echo "- budget: ${budget} s of stages (KILN_GPU_CHECK_BUDGET; limits scaled from ${base_budget} s); wall time so far: ${SECONDS} s"
  echo
  echo "| stage | result | limit | wall |"
  echo "| --- | --- | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
  for name in "${stage_order[@]}"; do  # the stages not run (yet)
    printf '%s\n' "${rows[@]}" | grep -q "^| $name " ||
      echo "| $name | not reached$([[ -n $after ]] && echo ' (yet)') | ${limit[$name]:-} s | |"
  done
  echo
  if [[ -n $after ]]; then
    echo "**INCOMPLETE**: written after ${after}, ${SECONDS} s in, while the run went on; if this is the"
    echo "last summary, the run was killed there (failures so far: $([[ $status == 0 ]] && echo none || echo yes))."
  elif [[ $status != 0 ]]; then
    echo "**FAIL** (logs: gpu-check-logs.tar.gz)"
  elif [[ $incomplete != 0 ]] || printf '%s\n' "${rows[@]}" | grep -qE '^\| [^|]+ \| not reached'; then
    echo "**INCOMPLETE**: nothing failed, but the budget ran out before every verdict (rows 'not reached')"
  else
    echo "**PASS**"
  fi
  figures
}

# publish [AFTER]: rewrites the summary and the log archive into $out, each through a temporary
# file and a rename, so that a kill at any moment leaves the last complete pair.
publish() {
  write_summary "${1:-}" >"$out/gpu-check-summary.md.part" && mv -f "$out/gpu-check-summary.md.part" "$out/gpu-check-summary.md"
  tar -czf "$out/gpu-check-logs.tar.gz.part" -C "$logs" . 2>/dev/null &&
    mv -f "$out/gpu-check-logs.tar.gz.part" "$out/gpu-check-logs.tar.gz"
  return 0
}

# shellcheck disable=SC2317  # called through the EXIT trap
summary() {
  # The final verdict of a run that stopped early: what was not reached is incomplete, not failed.
  publish
  echo "=== gpu-check: summary"
  cat "$out/gpu-check-summary.md"
}
