#!/usr/bin/env python3
"""kiln against PyTorch eager on the article workload, LeNet-5 or the cnn, side by side in one run.

For each batch size, kiln's `train` and a PyTorch loop train the same network (--model article:
the 784-1024-1024-1024-1024-10 MLP with ReLU; --model lenet5: kiln's LeNet-5, two 5x5
convolutions with ReLU and 2x2 max pooling, then 400-120-84-10; --model cnn: kiln's cnn, two
bias-free 3x3 convolutions with batch norm, ReLU and 2x2 max pooling, then 3136-128-10 with
dropout 0.3) with SGD, momentum 0.9 and
cross-entropy for one epoch of --samples samples on the same device, alternating kiln and
PyTorch, --repeats times; the table shows the median samples/s of each and their ratio. PyTorch
uses its defaults, as a user would (its own thread count on the CPU). --precision bf16 rounds
the inputs of each matrix product and convolution to bfloat16 with fp32 accumulation on both
sides: on the CPU PyTorch runs under torch.autocast("cpu", torch.bfloat16); on a GPU, --precision
tf32 / bf16 uses torch.set_float32_matmul_precision("high" / "medium"), storage staying fp32.

Data: with --data memory (the default, needs numpy) both train on the same random samples held
in memory: PyTorch as tensors, kiln from a .npy file it loads whole (`--data npy:`), batches
still assembled by its loader's workers. With --data article kiln generates the article set in
its loader (work PyTorch does not do). The epoch time of each excludes start-up, warm-up steps
and evaluation (kiln on a GPU: the second of two epochs); kiln's npy data holds out every tenth
sample, so its epoch is 90 % of --samples.

PyTorch is optional: where `import torch` fails the script says so and prints kiln's column alone.
Usage: scripts/compare-pytorch.py --device cpu --batch-sizes 64 256 1024 --samples 12800

--model gpt is another comparison, of numbers rather than speed (scripts/compare_pytorch_gpt.py,
its own flags: --steps, --gpt, --batch, ...): kiln's GPT and PyTorch's from the same weights on the
same windows, 5 AdamW steps tensor by tensor against float64, then the validation loss after
nanoGPT's baby-GPT recipe. Needs torch, numpy and safetensors, and Debian's fortunes.
Usage: scripts/compare-pytorch.py --model gpt --build build [--steps 2000]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

WIDTHS = [784, 1024, 1024, 1024, 1024, 10]


def sample_shape(model):
    return (1, 28, 28) if model in ("lenet5", "cnn") else (WIDTHS[0],)


def write_memory_data(folder, samples, model):
    """Random features and labels as .npy files; returns kiln's --data spec for them."""
    import numpy as np
    rng = np.random.default_rng(1)
    features = os.path.join(folder, "features.npy")
    labels = os.path.join(folder, "labels.npy")
    np.save(features, rng.standard_normal((samples, *sample_shape(model)), dtype=np.float32))
    np.save(labels, rng.integers(0, WIDTHS[-1], samples, dtype=np.int64))
    return f"npy:{features},{labels}"


def kiln_samples_per_s(args, device, batch):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.jsonl")
        if args.data == "memory":
            data = ["--data", args.memory_spec]
        else:
            data = ["--data", "article", "--samples", str(args.samples)]
        # On a GPU the first epoch also loads kernels and plans cuBLASLt: the second one is timed,
        # as PyTorch's loop is after its warm-up steps.
        epochs = 1 if device == "cpu" else 2
        command = [os.path.join(args.build, "apps", "train"), f"--device={device}", "--model", args.model,
                   *data, "--epochs", str(epochs),
                   "--batch-size", str(batch), "--schedule", "constant", "--lr", "0.01", "--quiet",
                   "--log-json", log, "--precision", args.precision]
        if device != "cpu":
            command += ["--pin-memory", "--workers", "4"]
        env = dict(os.environ, **dict(a.split("=", 1) for a in args.kiln_env))
        subprocess.run(command, check=True, env=env)
        with open(log) as f:
            return json.loads(f.readlines()[-1])["samples_per_second"]


def torch_model(torch, name):
    nn = torch.nn
    if name == "lenet5":  # models/presets.cpp: lenet5
        return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                             nn.Linear(84, 10))
    if name == "cnn":  # models/presets.cpp: cnn
        return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1, bias=False),
                             nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))
    layers = []
    for i in range(len(WIDTHS) - 1):
        layers.append(nn.Linear(WIDTHS[i], WIDTHS[i + 1]))
        if i + 2 < len(WIDTHS):
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def torch_samples_per_s(torch, args, device, batch):
    import contextlib
    dev = torch.device("cuda" if device != "cpu" else "cpu")
    model = torch_model(torch, args.model).to(dev)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    steps = args.samples // batch
    x = torch.randn(steps, batch, *sample_shape(args.model), device=dev)
    y = torch.randint(0, WIDTHS[-1], (steps, batch), device=dev)
    cpu_bf16 = device == "cpu" and args.precision == "bf16"

    def step(i):
        optimizer.zero_grad(set_to_none=True)
        autocast = torch.autocast("cpu", torch.bfloat16) if cpu_bf16 else contextlib.nullcontext()
        with autocast:
            loss = loss_fn(model(x[i]), y[i])
        loss.backward()
        optimizer.step()

    for i in range(min(5, steps)):  # warm-up, as kiln's allocations and cuBLAS heuristics warm up
        step(i)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    sync()
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    sync()
    return steps * batch / (time.perf_counter() - start)


def main():
    if "--model=gpt" in sys.argv or (
            "--model" in sys.argv and sys.argv[sys.argv.index("--model") + 1:][:1] == ["gpt"]):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import compare_pytorch_gpt
        sys.exit(compare_pytorch_gpt.main([a for a in sys.argv[1:] if a != "--model=gpt"]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu or gpu")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--samples", type=int, default=12800, help="samples per measured epoch")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model", default="article", choices=["article", "lenet5", "cnn"])
    parser.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"],
                        help="matrix products (tf32: GPU only)")
    parser.add_argument("--build", default="build", help="kiln's build folder")
    parser.add_argument("--kiln-env", action="append", default=[], metavar="NAME=VALUE",
                        help="set for kiln's program only (gpu-check.sh: its LD_LIBRARY_PATH, so "
                             "that PyTorch here keeps the CUDA libraries of its own wheels)")
    parser.add_argument("--data", default="memory", choices=["memory", "article"],
                        help="memory: the same random samples in memory for both; article: kiln generates them")
    args = parser.parse_args()
    data_folder = tempfile.TemporaryDirectory()
    if args.data == "memory":
        try:
            args.memory_spec = write_memory_data(data_folder.name, args.samples, args.model)
        except ImportError:
            print("compare-pytorch: numpy is missing; kiln generates the article set instead", file=sys.stderr)
            args.data = "article"

    try:
        import torch
        if args.device != "cpu":
            if not torch.cuda.is_available():
                sys.exit("compare-pytorch: PyTorch sees no GPU; use --device cpu")
            # The same rounding as kiln's --precision: fp32 inputs to TF32 / bf16, fp32 accumulation.
            torch.set_float32_matmul_precision({"fp32": "highest", "tf32": "high", "bf16": "medium"}[args.precision])
        torch_version = torch.__version__
        threads = torch.get_num_threads()
    except ImportError:
        torch = None
        print("compare-pytorch: PyTorch is not installed for this Python "
              f"({sys.executable}); showing kiln alone", file=sys.stderr)

    print(f"{args.model}, {args.samples} samples per epoch, data {args.data}, device {args.device}, "
          f"precision {args.precision}, median of {args.repeats}")
    if torch is not None:
        print(f"PyTorch {torch_version} eager, {threads} intra-op threads (its default)")
    print("| batch | kiln samples/s | PyTorch samples/s | kiln / PyTorch | kiln s per 160k epoch |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for batch in args.batch_sizes:
        kiln_runs, torch_runs = [], []
        for _ in range(args.repeats):
            kiln_runs.append(kiln_samples_per_s(args, args.device, batch))
            if torch is not None:
                torch_runs.append(torch_samples_per_s(torch, args, args.device, batch))
        k = statistics.median(kiln_runs)
        if torch_runs:
            t = statistics.median(torch_runs)
            print(f"| {batch} | {k:.0f} | {t:.0f} | {k / t:.2f}x | {160000 / k:.1f} |")
        else:
            print(f"| {batch} | {k:.0f} | not installed | - | {160000 / k:.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
