#!/usr/bin/env python3
"""Tokens per second of a PyTorch eager GPT training step on the CPU, for docs/performance.md.

The same GPT (scripts/torch_gpt.py) as kiln's gpt:LAYERS-HEADS-WIDTH-CONTEXT preset (nanoGPT's block: LayerNorm,
causal self-attention, GELU-tanh MLP, tied head, vocabulary 256, no dropout), AdamW at lr 1e-3,
gradient clipping at 1, on random token ids: 3 warm-up steps, then STEPS timed ones.

  scripts/torch-gpt-speed.py LAYERS HEADS WIDTH CONTEXT BATCH fp32|bf16 [manual|sdpa] [STEPS]

bf16 runs the forward under torch.autocast("cpu", dtype=torch.bfloat16). "sdpa" computes the
attention with scaled_dot_product_attention(is_causal=True), "manual" (the default) as
softmax(q kᵀ / sqrt(d), masked) v. TORCH_THREADS sets torch.set_num_threads (default 2). Prints
tokens per second of wall time and per CPU second of the process.
"""
import os
import sys
import time

import torch
import torch.nn as nn

from torch_gpt import torch_gpt  # scripts/torch_gpt.py, beside this file

L, H, W, T, B = map(int, sys.argv[1:6])
BF16 = len(sys.argv) > 6 and sys.argv[6] == "bf16"
SDPA = len(sys.argv) > 7 and sys.argv[7] == "sdpa"
STEPS = int(sys.argv[8]) if len(sys.argv) > 8 else 20
V = 256
torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "2")))


model = torch_gpt(torch, L, H, W, T, V, fused_attention=SDPA)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
ids, targets = torch.randint(0, V, (B, T)), torch.randint(0, V, (B, T))


def step():
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=BF16):
        logits = model(ids)
        loss = nn.functional.cross_entropy(logits.float().view(-1, V), targets.view(-1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()


for _ in range(3):
    step()
wall, cpu = time.time(), time.process_time()
for _ in range(STEPS):
    step()
wall, cpu = time.time() - wall, time.process_time() - cpu
tokens = STEPS * B * T
print(f"{L}-{H}-{W}-{T} b{B} {'bf16' if BF16 else 'fp32'} {'sdpa' if SDPA else 'manual'}: "
      f"{tokens / wall:.0f} tokens/s, {wall / STEPS * 1000:.1f} ms/step, "
      f"{tokens / cpu:.0f} tokens per CPU second")
