#!/usr/bin/env python3
"""Writes a PyTorch GPT's weights and one forward pass for kiln to compare against (not run by CI).

A nanoGPT-shaped model (scripts/torch_gpt.py; 2 layers, 2 heads, width 16, context 8, vocabulary 11, GELU tanh, tied
head) with PyTorch's random initial weights: OUT/weights.safetensors holds its state_dict under
nanoGPT's names, the tied matrix once as transformer.wte.weight (as safetensors.torch.save_model
stores it); OUT/io.safetensors holds token ids (2, 8) as float32 and PyTorch's logits (2, 8, 11).
Then: KILN_GPT_TORCH_FIXTURE=OUT build/tests/kiln_tests --gtest_filter=Gpt.MatchesPyTorch*

usage: python scripts/gpt-torch-fixture.py OUT   (needs torch and safetensors)
"""
import os
import sys

import torch
from safetensors.torch import save_file

from torch_gpt import torch_gpt  # scripts/torch_gpt.py, beside this file

LAYERS, HEADS, WIDTH, CONTEXT, VOCAB = 2, 2, 16, 8, 11


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = torch_gpt(torch, LAYERS, HEADS, WIDTH, CONTEXT, VOCAB)
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
