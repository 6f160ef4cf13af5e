#!/usr/bin/env python3
"""Writes a PyTorch GPT's weights and one forward pass for kiln to compare against (not run by CI).

A nanoGPT-shaped model (2 layers, 2 heads, width 16, context 8, vocabulary 11, GELU tanh, tied
head) with PyTorch's random initial weights: OUT/weights.safetensors holds its state_dict under
nanoGPT's names, the tied matrix once as transformer.wte.weight (as safetensors.torch.save_model
stores it); OUT/io.safetensors holds token ids (2, 8) as float32 and PyTorch's logits (2, 8, 11).
Then: KILN_GPT_TORCH_FIXTURE=OUT build/tests/kiln_tests --gtest_filter=Gpt.MatchesPyTorch*

usage: python scripts/gpt-torch-fixture.py OUT   (needs torch and safetensors)
"""
import math
import os
import sys

import torch
import torch.nn as nn
from safetensors.torch import save_file

LAYERS, HEADS, WIDTH, CONTEXT, VOCAB = 2, 2, 16, 8, 11


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(WIDTH, 3 * WIDTH)
        self.c_proj = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // HEADS)
        att = att.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
        return self.c_proj((att @ v).transpose(1, 2).reshape(b, t, c))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn, self.ln_2, self.mlp = nn.LayerNorm(WIDTH), Attention(), nn.LayerNorm(WIDTH), Mlp()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(VOCAB, WIDTH), wpe=nn.Embedding(CONTEXT, WIDTH),
            h=nn.ModuleList([Block() for _ in range(LAYERS)]), ln_f=nn.LayerNorm(WIDTH)))
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, ids):
        t = ids.shape[1]
        x = self.transformer.wte(ids) + self.transformer.wpe(torch.arange(t))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = Gpt()
    with torch.no_grad():  # LayerNorms away from 1 and 0, so that they are compared too
        for name, p in model.named_parameters():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("ln_f.weight"):
                p.uniform_(0.5, 1.5)
            elif "ln_" in name:
                p.uniform_(-0.5, 0.5)
    ids = torch.randint(0, VOCAB, (2, CONTEXT))
    with torch.no_grad():
        logits = model(ids)
    weights = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    save_file(weights, os.path.join(out, "weights.safetensors"))
    save_file({"ids": ids.float(), "logits": logits.contiguous()}, os.path.join(out, "io.safetensors"))
    print(f"wrote {out}/weights.safetensors ({len(weights)} tensors) and {out}/io.safetensors")


if __name__ == "__main__":
    main()
