#!/usr/bin/env python3
"""Writes the Hugging Face GPT-2 fixture kiln's loader is tested against (run once; not by CI).

A small GPT2LMHeadModel (2 layers, 2 heads, width 32, context 16, vocabulary 61) with every
parameter drawn from N(0, 0.2), LayerNorms included, so that a mix-up of any two tensors or a
Conv1D matrix read untransposed changes the logits. OUT/model.safetensors is the model as
save_pretrained writes it (names "transformer.h.0.attn.c_attn.weight", Conv1D matrices stored
(in, out), the tied lm_head left out); OUT/expected.safetensors holds the prompt (12 ids, int32)
and the logits (12, 61) GPT2LMHeadModel computes for it, in float32 with eager attention.
Then: build/tests/kiln_tests --gtest_filter='HuggingFaceGpt2*'

usage: python scripts/hf-gpt2-fixture.py OUT   (needs torch, transformers and safetensors)
"""
import os
import sys

import torch
from safetensors.torch import save_file
from transformers import GPT2Config, GPT2LMHeadModel

LAYERS, HEADS, WIDTH, CONTEXT, VOCAB = 2, 2, 32, 16, 61
PROMPT = [7, 0, 60, 33, 33, 12, 5, 48, 1, 59, 20, 41]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    config = GPT2Config(n_layer=LAYERS, n_head=HEADS, n_embd=WIDTH, n_positions=CONTEXT,
                        vocab_size=VOCAB, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        attn_implementation="eager")
    model = GPT2LMHeadModel(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.2)
    model.save_pretrained(out, safe_serialization=True)
    for extra in ("config.json", "generation_config.json"):
        if os.path.exists(os.path.join(out, extra)):
            os.remove(os.path.join(out, extra))
    ids = torch.tensor([PROMPT])
    with torch.no_grad():
        logits = model(ids).logits[0].contiguous()
    save_file({"prompt": ids[0].to(torch.int32), "logits": logits},
              os.path.join(out, "expected.safetensors"))
    print(f"wrote {out}/model.safetensors and {out}/expected.safetensors; "
          f"logits {tuple(logits.shape)}, |max| {logits.abs().max().item():.3f}")


if __name__ == "__main__":
    main()
