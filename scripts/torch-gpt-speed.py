#!/usr/bin/env python3
"""Tokens per second of a PyTorch eager GPT training step on the CPU, for docs/performance.md.

The same GPT as kiln's gpt:LAYERS-HEADS-WIDTH-CONTEXT preset (nanoGPT's block: LayerNorm,
causal self-attention, GELU-tanh MLP, tied head, vocabulary 256, no dropout), AdamW at lr 1e-3,
gradient clipping at 1, on random token ids: 3 warm-up steps, then STEPS timed ones.

  scripts/torch-gpt-speed.py LAYERS HEADS WIDTH CONTEXT BATCH fp32|bf16 [manual|sdpa] [STEPS]

bf16 runs the forward under torch.autocast("cpu", dtype=torch.bfloat16). "sdpa" computes the
attention with scaled_dot_product_attention(is_causal=True), "manual" (the default) as
softmax(q kᵀ / sqrt(d), masked) v. TORCH_THREADS sets torch.set_num_threads (default 2). Prints
tokens per second of wall time and per CPU second of the process.
"""
import math
import os
import sys
import time

import torch
import torch.nn as nn

L, H, W, T, B = map(int, sys.argv[1:6])
BF16 = len(sys.argv) > 6 and sys.argv[6] == "bf16"
SDPA = len(sys.argv) > 7 and sys.argv[7] == "sdpa"
STEPS = int(sys.argv[8]) if len(sys.argv) > 8 else 20
V = 256
torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "2")))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(W, 3 * W)
        self.c_proj = nn.Linear(W, W)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, 2)
        q, k, v = (z.view(b, t, H, c // H).transpose(1, 2) for z in (q, k, v))
        if SDPA:
            y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            mask = torch.ones(t, t, dtype=torch.bool).triu(1)
            s = (q @ k.transpose(-2, -1)) / math.sqrt(c // H)
            y = s.masked_fill(mask, float("-inf")).softmax(-1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(W, 4 * W)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * W, W)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn, self.ln_2, self.mlp = nn.LayerNorm(W), Attention(), nn.LayerNorm(W), Mlp()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, W), nn.Embedding(T, W)
        self.h = nn.ModuleList([Block() for _ in range(L)])
        self.ln_f = nn.LayerNorm(W)
        self.head = nn.Linear(W, V, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
        for block in self.h:
            x = block(x)
        return self.head(self.ln_f(x))


model = Gpt()
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
