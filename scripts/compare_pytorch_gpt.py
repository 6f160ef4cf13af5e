"""compare-pytorch.py --model gpt: kiln's GPT training against PyTorch's, step for step (not run by CI).

The same GPT (nanoGPT's shape, as scripts/gpt-torch-fixture.py builds it) trains in kiln's `train`
and in PyTorch from the same initial weights (PyTorch draws them with nanoGPT's initialisation and
writes them as safetensors; kiln reads them with --init) on the same token windows, with the same
recipe: AdamW with kiln's weight-decay groups (decay on the matrices of the linear layers only; no
decay on biases, LayerNorms and the wte/wpe embeddings, models/gpt_weight_decay.h), warm-up then
cosine (kiln's closed forms, optim/lr_schedule.h), and clipping by the global gradient norm.

Same windows: kiln trains with --no-shuffle, so batch k holds windows k*B .. k*B+B-1, and window i
starts where TokenWindowDataset draws it: RandomStream(seed, token_window, epoch 0, i), Philox
4x32-10 (core/philox.h, data/random_stream.h), ported here bit for bit. The run must fit in the
loader's first epoch (steps * batch <= windows); the script checks that. Text: the files of
Debian's `fortunes` package (/usr/share/games/fortunes, without .dat/.u8), concatenated, read as
bytes (vocabulary 256); the last 10 % is the validation file (--test-data), the rest trains.

Checks:
  a. --parity-steps (5) steps: every tensor of kiln's weights is as close to a float64 PyTorch run
     of the same steps as PyTorch's own float32 run is (max |kiln - f64| <= 3 x max |torch32 - f64|,
     or under 1e-6). A per-tensor table and pass/fail.
  b. --steps (2000) steps of the recipe (nanoGPT's baby GPT: gpt:4-4-128-64, batch 12, lr 1e-3,
     warm-up 100, cosine to 1e-4, beta2 0.99, weight decay 0.1, clip 1.0, dropout 0): the
     validation loss of kiln's final weights within 1 % of PyTorch's, both measured by one
     evaluator (PyTorch float64 on the same --eval-iters x batch validation windows, evenly spread).
--steps 0 skips b.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time

from torch_gpt import torch_gpt  # scripts/torch_gpt.py, beside this file

FORTUNES = "/usr/share/games/fortunes"
MASK32 = 0xFFFFFFFF


# ---- kiln's windows: Philox 4x32-10 and RandomStream, as in core/philox.h / data/random_stream.h

def philox4x32(c, k0, k1):
    x, y, z, w = c
    for _ in range(10):
        p0 = 0xD2511F53 * x
        p1 = 0xCD9E8D57 * z
        x, y, z, w = ((p1 >> 32) ^ y ^ k0) & MASK32, p1 & MASK32, ((p0 >> 32) ^ w ^ k1) & MASK32, p0 & MASK32
        k0 = (k0 + 0x9E3779B9) & MASK32
        k1 = (k1 + 0xBB67AE85) & MASK32
    return x, y, z, w


def window_start(seed, index, starts, epoch=0, purpose=4):
    """TokenWindowDataset::window_start of a random split beginning at 0 with `starts` starts."""
    key = philox4x32((purpose, epoch & MASK32, epoch >> 32, 0x6B696C6E), seed & MASK32, seed >> 32)
    words = philox4x32((index & MASK32, index >> 32, 0, 0), key[0], key[1])  # block 0
    u64 = (words[0] << 32) | words[1]
    return (u64 * starts) >> 64  # Lemire: the high 64 bits of the product


def fortunes_text():
    names = sorted(n for n in os.listdir(FORTUNES)
                   if not n.endswith((".dat", ".u8")) and os.path.isfile(os.path.join(FORTUNES, n)))
    if not names:
        sys.exit(f"compare-pytorch: no fortunes in {FORTUNES}; run scripts/install-deps.sh (apt-get install fortunes)")
    return b"".join(open(os.path.join(FORTUNES, n), "rb").read() for n in names)


def nanogpt_init(torch, model, layers):
    """nanoGPT's _init_weights and its scaled c_proj init (models/gpt.h does the same)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("c_proj.weight"):
                p.normal_(0.0, 0.02 / math.sqrt(2 * layers))
            elif name.endswith(".weight") and "ln_" not in name:
                p.normal_(0.0, 0.02)
            elif name.endswith(".bias"):
                p.zero_()


def decayed(name, p):
    """kiln's groups (models/gpt_weight_decay.h): matrices decay, except the two embedding tables."""
    return p.dim() >= 2 and name not in ("transformer.wte.weight", "transformer.wpe.weight")


def kiln_lr(step, base, steps, warmup, eta_min):
    """kiln's warmup:W+cosine:ETA (optim/lr_schedule.h), rounded to float32 as kiln passes it."""
    import numpy as np
    if step < warmup:
        value = base * (step / warmup)
    else:
        t_max = steps - warmup
        value = eta_min + (base - eta_min) * (1.0 + math.cos(math.pi * (step - warmup) / t_max)) / 2.0
    return float(np.float32(value))


class Recipe:
    def __init__(self, args, steps, warmup):
        self.layers, self.heads, self.width, self.context = (int(v) for v in args.gpt.split("-"))
        self.batch, self.lr, self.steps, self.warmup = args.batch, args.lr, steps, warmup
        self.eta_min, self.beta2, self.weight_decay, self.clip = args.min_lr, args.beta2, args.weight_decay, args.clip
        self.seed = args.seed

    def lr_at(self, step):
        return kiln_lr(step, self.lr, self.steps, self.warmup, self.eta_min)


def batches(tokens, recipe):
    """kiln's training batches (--no-shuffle): int64 arrays (steps, B, T) of inputs and targets."""
    import numpy as np
    t = recipe.context
    windows = (len(tokens) - 1) // t
    if recipe.steps * recipe.batch > windows:
        sys.exit(f"compare-pytorch: {recipe.steps} steps of {recipe.batch} windows pass the first epoch's "
                 f"{windows} windows, whose order this script reproduces; use fewer --steps")
    starts = len(tokens) - t
    data = np.frombuffer(tokens, dtype=np.uint8).astype(np.int64)
    x = np.empty((recipe.steps, recipe.batch, t), dtype=np.int64)
    y = np.empty_like(x)
    for k in range(recipe.steps):
        for b in range(recipe.batch):
            s = window_start(recipe.seed, k * recipe.batch + b, starts)
            x[k, b] = data[s:s + t]
            y[k, b] = data[s + 1:s + t + 1]
    return x, y


def torch_train(torch, recipe, init_file, x, y, dtype):
    """The recipe in PyTorch at `dtype` from init_file's weights; returns the final state_dict."""
    from safetensors.torch import load_file
    model = torch_gpt(torch, recipe.layers, recipe.heads, recipe.width, recipe.context, 256).to(dtype)
    state = {k: v.to(dtype) for k, v in load_file(init_file).items()}
    state["lm_head.weight"] = state["transformer.wte.weight"]
    model.load_state_dict(state)
    named = list(model.named_parameters())  # the tied head appears once, as transformer.wte.weight
    groups = [{"params": [p for n, p in named if decayed(n, p)], "weight_decay": recipe.weight_decay},
              {"params": [p for n, p in named if not decayed(n, p)], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=recipe.lr, betas=(0.9, recipe.beta2), eps=1e-8)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    norms = []
    for step in range(recipe.steps):
        for group in optimizer.param_groups:
            group["lr"] = recipe.lr_at(step)
        logits = model(xs[step])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ys[step].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if recipe.clip > 0:
            norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.clip)))
        optimizer.step()
    return {k: v.detach().clone() for k, v in model.state_dict().items() if k != "lm_head.weight"}, norms


def kiln_train(args, recipe, train_file, test_file, init_file, folder, eval_iters):
    """kiln's `train` on the same recipe; returns (its final weights, its JSON log's last line)."""
    from safetensors.torch import load_file
    log = os.path.join(folder, "log.jsonl")
    ckpt = os.path.join(folder, "ckpt")
    schedule = f"warmup:{recipe.warmup}+cosine:{recipe.eta_min}"
    command = [os.path.join(args.build, "apps", "train"), "--device=cpu",
               "--model", f"gpt:{args.gpt}", "--data", f"tokens:{train_file}", "--test-data", f"tokens:{test_file}",
               "--steps", str(recipe.steps), "--eval-iters", str(eval_iters), "--batch-size", str(recipe.batch),
               "--optimizer", "adamw", "--lr", str(recipe.lr), "--beta2", str(recipe.beta2),
               "--weight-decay", str(recipe.weight_decay), "--clip-grad-norm", str(recipe.clip),
               "--schedule", schedule, "--no-shuffle", "--seed", str(recipe.seed), "--init", init_file,
               "--workers", "0", "--threads", str(args.threads), "--checkpoint", ckpt, "--log-json", log]
    print("kiln:", " ".join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL if args.quiet_kiln else None)
    seconds = time.perf_counter() - started
    weights = load_file(os.path.join(ckpt, "latest", "model.safetensors"))
    with open(log) as f:
        last = json.loads(f.readlines()[-1])
    return weights, last, seconds


def parity(torch, args, tokens, files):
    recipe = Recipe(args, args.parity_steps, args.parity_warmup)
    x, y = batches(tokens, recipe)
    with tempfile.TemporaryDirectory() as folder:
        kiln, _, _ = kiln_train(args, recipe, *files, folder, 1)
    f32, norms = torch_train(torch, recipe, files[2], x, y, torch.float32)
    f64, _ = torch_train(torch, recipe, files[2], x, y, torch.float64)
    lrs = ", ".join(f"{recipe.lr_at(s):.3g}" for s in range(recipe.steps))
    print(f"\n### a. {recipe.steps} AdamW steps, gpt:{args.gpt}, batch {recipe.batch}: lr per step {lrs}; "
          f"gradient norms before clipping at {recipe.clip} (PyTorch f32): "
          + ", ".join(f"{n:.3g}" for n in norms))
    print("| tensor | decay | max abs kiln - f64 | max abs torch f32 - f64 | ratio | pass |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    failed, worst = [], []
    for name in sorted(f64):
        ref = f64[name]
        e_kiln = float((kiln[name].double() - ref).abs().max())
        e_torch = float((f32[name].double() - ref).abs().max())
        ok = e_kiln <= 3 * e_torch or e_kiln < 1e-6
        ratio = e_kiln / e_torch if e_torch > 0 else float("inf") if e_kiln > 0 else 0.0
        worst.append((ratio, name, e_kiln, e_torch))
        if not ok:
            failed.append(name)
        print(f"| {name} | {'yes' if decayed(name, ref) else 'no'} | {e_kiln:.3g} | {e_torch:.3g} | "
              f"{ratio:.2f} | {'pass' if ok else 'FAIL'} |")
    worst.sort(reverse=True)
    print("worst ratios: " + "; ".join(f"{n} {r:.2f} ({k:.2g} vs {t:.2g})" for r, n, k, t in worst[:3]))
    print(f"a. {'PASS' if not failed else 'FAIL'}: {len(f64) - len(failed)} of {len(f64)} tensors within 3x of "
          f"PyTorch f32's distance to f64 (or under 1e-6)" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return not failed


def validation_loss(torch, recipe, weights, test_tokens, eval_iters):
    """Mean cross-entropy of `weights` on eval_iters x batch strided validation windows, evenly
    spread over the file, in float64 PyTorch (one evaluator for both sides)."""
    import numpy as np
    model = torch_gpt(torch, recipe.layers, recipe.heads, recipe.width, recipe.context, 256).double()
    state = {k: v.double() for k, v in weights.items()}
    state["lm_head.weight"] = state["transformer.wte.weight"]
    model.load_state_dict(state)
    t = recipe.context
    windows = (len(test_tokens) - 1) // t
    count = min(windows, eval_iters * recipe.batch)
    picks = np.linspace(0, windows - 1, count).astype(np.int64)
    data = np.frombuffer(test_tokens, dtype=np.uint8).astype(np.int64)
    total = 0.0
    with torch.no_grad():
        for chunk in np.array_split(picks, max(1, count // recipe.batch)):
            xs = torch.from_numpy(np.stack([data[i * t:i * t + t] for i in chunk]))
            ys = torch.from_numpy(np.stack([data[i * t + 1:i * t + t + 1] for i in chunk]))
            logits = model(xs)
            total += float(torch.nn.functional.cross_entropy(
                logits.reshape(-1, 256), ys.reshape(-1), reduction="sum"))
    return total / (count * t)


def full_recipe(torch, args, tokens, test_tokens, files):
    recipe = Recipe(args, args.steps, args.warmup)
    x, y = batches(tokens, recipe)
    with tempfile.TemporaryDirectory() as folder:
        kiln, kiln_log, kiln_s = kiln_train(args, recipe, *files, folder, args.eval_iters)
    started = time.perf_counter()
    f32, _ = torch_train(torch, recipe, files[2], x, y, torch.float32)
    torch_s = time.perf_counter() - started
    k = validation_loss(torch, recipe, kiln, test_tokens, args.eval_iters)
    t = validation_loss(torch, recipe, f32, test_tokens, args.eval_iters)
    gap = abs(k - t) / t
    print(f"\n### b. {recipe.steps} steps of the recipe, gpt:{args.gpt}, batch {recipe.batch}, lr {recipe.lr} "
          f"(warmup:{recipe.warmup}+cosine:{recipe.eta_min}), beta2 {recipe.beta2}, weight decay "
          f"{recipe.weight_decay} (matrices), clip {recipe.clip}")
    print(f"kiln: {kiln_s:.0f} s, its own report: test loss {kiln_log.get('test_loss')}; PyTorch f32: {torch_s:.0f} s")
    print(f"validation loss (one float64 evaluator, {min((len(test_tokens) - 1) // recipe.context, args.eval_iters * recipe.batch)} windows): "
          f"kiln {k:.4f}, PyTorch {t:.4f}, difference {100 * gap:.2f} %")
    print(f"b. {'PASS' if gap <= 0.01 else 'FAIL'}: within 1 %")
    return gap <= 0.01


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="compare-pytorch.py --model gpt", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gpt")
    parser.add_argument("--build", default="build", help="kiln's build folder")
    parser.add_argument("--gpt", default="4-4-128-64", help="LAYERS-HEADS-WIDTH-CONTEXT")
    parser.add_argument("--batch", type=int, default=12)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--min-lr", type=float, default=1e-4)
    parser.add_argument("--beta2", type=float, default=0.99)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--clip", type=float, default=1.0, help="global gradient-norm clip")
    parser.add_argument("--steps", type=int, default=2000, help="steps of the full recipe (0: skip b)")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--eval-iters", type=int, default=20)
    parser.add_argument("--parity-steps", type=int, default=5)
    parser.add_argument("--parity-warmup", type=int, default=2)
    parser.add_argument("--parity-clip", type=float, default=0.5,
                        help="the 5-step check's clip, low enough to act on every step")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="CPU threads of each side")
    parser.add_argument("--quiet-kiln", action="store_true")
    args = parser.parse_args(argv)
    try:
        import torch
        import safetensors.torch  # noqa: F401
        from safetensors.torch import save_file
    except ImportError as e:
        sys.exit(f"compare-pytorch --model gpt needs torch, numpy and safetensors ({e})")
    torch.set_num_threads(args.threads)
    text = fortunes_text()
    held = int(0.1 * len(text))
    tokens, test_tokens = text[:-held], text[-held:]
    print(f"gpt:{args.gpt} on {len(text)} bytes of fortunes ({len(tokens)} train, {len(test_tokens)} validation), "
          f"PyTorch {torch.__version__} with {args.threads} threads, kiln at {args.build}")
    with tempfile.TemporaryDirectory() as folder:
        train_file, test_file = os.path.join(folder, "train.txt"), os.path.join(folder, "val.txt")
        open(train_file, "wb").write(tokens)
        open(test_file, "wb").write(test_tokens)
        layers, heads, width, context = (int(v) for v in args.gpt.split("-"))
        torch.manual_seed(args.seed)
        model = torch_gpt(torch, layers, heads, width, context, 256)
        nanogpt_init(torch, model, layers)
        init_file = os.path.join(folder, "init.safetensors")
        save_file({k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}, init_file)
        files = (train_file, test_file, init_file)
        clip = args.clip
        args.clip = args.parity_clip
        ok = parity(torch, args, tokens, files)
        args.clip = clip
        if args.steps > 0:
            ok = full_recipe(torch, args, tokens, test_tokens, files) and ok
    return 0 if ok else 1
