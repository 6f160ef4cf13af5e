"""nanoGPT's GPT in PyTorch, the model kiln's gpt: preset and models/gpt.h mirror (not run by CI).

Parameters are named as nanoGPT's state_dict (transformer.wte.weight, transformer.h.0.attn.c_attn.weight,
...), the head tied to wte, GELU with the tanh approximation, no dropout. PyTorch's own default
initialisation; callers apply nanoGPT's where they need it. One definition for the scripts that
compare kiln with PyTorch: gpt-torch-fixture.py (one forward pass), compare_pytorch_gpt.py
(training, step for step) and torch-gpt-speed.py (tokens per second).
fused_attention: scaled_dot_product_attention(is_causal=True) instead of softmax(q kᵀ / sqrt(d),
masked) v, as written out.
"""
import math


def torch_gpt(torch, layers, heads, width, context, vocab, fused_attention=False):
    nn = torch.nn

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(width, 3 * width)
            self.c_proj = nn.Linear(width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.c_attn(x).split(c, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            if fused_attention:
                y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) / math.sqrt(c // heads)
                att = att.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
                y = att @ v
            return self.c_proj(y.transpose(1, 2).reshape(b, t, c))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(width, 4 * width)
            self.gelu = nn.GELU(approximate="tanh")
            self.c_proj = nn.Linear(4 * width, width)

        def forward(self, x):
            return self.c_proj(self.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2, self.mlp = nn.LayerNorm(width), Attention(), nn.LayerNorm(width), Mlp()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab, width), wpe=nn.Embedding(context, width),
                h=nn.ModuleList([Block() for _ in range(layers)]), ln_f=nn.LayerNorm(width)))
            self.lm_head = nn.Linear(width, vocab, bias=False)
            self.lm_head.weight = self.transformer.wte.weight

        def forward(self, ids):
            t = ids.shape[1]
            x = self.transformer.wte(ids) + self.transformer.wpe(torch.arange(t))
            for block in self.transformer.h:
                x = block(x)
            return self.lm_head(self.transformer.ln_f(x))

    return Gpt()
