#!/usr/bin/env bash
# gpu-check.sh's gpt-train stage: a small GPT (gpt:2-2-64-32, byte tokens, batch 12, AdamW at a
# constant 1e-3, fp32) trained 30 steps from the same text on the GPU and then on the CPU, with the
# same seed (the same initial weights and windows). Passes when the loss fell (validation under
# 4.5, from ln 256 = 5.55 untrained) and the GPU's train and validation losses are within 2e-3 of
# the CPU's: the same model and data in fp32, apart from the order of float sums (op parity shows
# single ops agree to about 1e-6; 30 Adam steps let that grow, not to 1e-3). The text is the
# repository's own README and docs (120 KB), since the GPU machine has no Debian packages and no
# fortunes. The GPU runs first, so that a machine without one fails in a second.
# Usage: scripts/gpu-check-gpt.sh TRAIN_PROGRAM LOG_DIR  (run in the repository root)
set -euo pipefail
train=$1
dir=$2
mkdir -p "$dir"
text=$dir/text.txt
cat README.md docs/*.md >"$text"

run=(--model gpt:2-2-64-32 --data "tokens:$text" --steps 30 --eval-iters 8 --batch-size 12
     --optimizer adamw --lr 1e-3 --schedule constant --workers 0 --seed 1 --precision fp32)
for device in gpu cpu; do
  rm -f "$dir/$device.jsonl"
  echo "--- train --device=$device ${run[*]}"
  "$train" --device="$device" "${run[@]}" --log-json "$dir/$device.jsonl"
done

# field DEVICE NAME: the number NAME in the run's last JSON line.
field() {
  tail -n 1 "$dir/$1.jsonl" | grep -oE "\"$2\":[-+0-9.eE]+" | cut -d: -f2
}
failed=0
for name in train_loss test_loss; do
  gpu_value=$(field gpu "$name")
  cpu_value=$(field cpu "$name")
  if [[ -z $gpu_value || -z $cpu_value ]]; then
    echo "gpt-train: no $name in the JSON logs (gpu: '${gpu_value}', cpu: '${cpu_value}')"
    failed=1
    continue
  fi
  verdict=$(awk -v g="$gpu_value" -v c="$cpu_value" \
    'BEGIN { d = g - c; if (d < 0) d = -d; printf "%s %.3g", (d <= 2e-3 ? "ok" : "FAILED"), d }')
  echo "gpt-train: $name GPU $gpu_value, CPU $cpu_value, difference ${verdict#* } (at most 2e-3): ${verdict%% *}"
  [[ $verdict == ok* ]] || failed=1
done
test_loss=$(field gpu test_loss)
if ! awk -v l="${test_loss:-99}" 'BEGIN { exit !(l < 4.5) }'; then
  echo "gpt-train: the GPU's validation loss ${test_loss:-(none)} did not fall under 4.5 in 30 steps"
  failed=1
fi
exit $failed
