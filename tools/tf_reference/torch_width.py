#!/usr/bin/python3
"""PyTorch train step of the seed CNN at a width, beside tf_reference.py --width and examples/benchmark -width.

torch_reference.py (the project's shared PyTorch reference, not ours to edit) builds the seed CNN at width 1 only. This
script builds the same CNN with its convolutions' filters scaled by --width, exactly as torch_reference.py builds the
seed (PyTorch's default initialisation, NCHW):

  Conv2d(1, 32F, 3) ReLU MaxPool2d(2) Conv2d(32F, 64F, 3) ReLU MaxPool2d(2) Flatten Linear(1600F, 128) ReLU Linear(128, 10)

(the dense layers as the seed has them; 32F must be a whole number), and times its train step the same way: seed 0,
torch.set_num_threads(--threads), Adam (lr 1e-3, eps 1e-7), cross-entropy on logits, one fixed random batch, 3 untimed
steps, then --steps timed ones; ms_per_step is their mean, as torch_reference.py's. With --torch-reference PATH (or
$GOKERAS_TORCH_REFERENCE) it first checks that its width-1 model is torch_reference.py's mnist_cnn, layer for layer.
Run with the interpreter that sees python3-torch (Debian: /usr/bin/python3):

  torch_width.py step --width 2 --batch 64 --threads 2 --steps 50
  torch_width.py --torch-reference ../shared/reference/torch_reference.py step --width 0.5 --batch 64 --threads 2

Output, key=value like torch_reference.py's step line (parsed by examples/benchmark -compare and tools/cost_growth.sh):
  step model=mnist_cnn batch=... threads=... ms_per_step=<mean> median_ms=... samples_per_s=... params=... width=...
       device=cpu torch=...
"""
import argparse
import importlib.util
import os
import statistics
import time

import torch
import torch.nn as nn

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--torch-reference", default=os.environ.get("GOKERAS_TORCH_REFERENCE", ""),
               help="torch_reference.py, to check the width-1 model against (default $GOKERAS_TORCH_REFERENCE; empty: no check)")
sub = p.add_subparsers(dest="cmd", required=True)
s = sub.add_parser("step")
s.add_argument("--model", choices=("mnist_cnn",), default="mnist_cnn")
s.add_argument("--width", type=float, default=1.0, help="the convolutions' filters x width (32*width and 64*width)")
s.add_argument("--batch", type=int, default=64)
s.add_argument("--threads", type=int, default=2)
s.add_argument("--steps", type=int, default=50)


def mnist_cnn(width=1.0):
    f = int(32 * width)
    return nn.Sequential(nn.Conv2d(1, f, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(f, 2 * f, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(25 * 2 * f, 128), nn.ReLU(), nn.Linear(128, 10))


def check_reference(path):
    """Fails unless mnist_cnn(1) is torch_reference.py's mnist_cnn, module for module."""
    spec = importlib.util.spec_from_file_location("torch_reference", path)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)  # defines the models; its command line runs only under __main__
    if str(ref.mnist_cnn()) != str(mnist_cnn(1.0)):
        raise SystemExit(f"torch_width.py: the width-1 CNN differs from {path}'s mnist_cnn:\n{ref.mnist_cnn()}\n{mnist_cnn(1.0)}")


def step(a):
    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    m = mnist_cnn(a.width)
    params = sum(q.numel() for q in m.parameters())
    opt = torch.optim.Adam(m.parameters(), lr=1e-3, eps=1e-7)
    loss = nn.CrossEntropyLoss()
    x, y = torch.rand(a.batch, 1, 28, 28), torch.randint(0, 10, (a.batch,))

    def one():
        opt.zero_grad()
        l = loss(m(x), y)
        l.backward()
        opt.step()

    for _ in range(3):
        one()
    ts = []
    t = time.perf_counter()
    for _ in range(a.steps):
        s0 = time.perf_counter()
        one()
        ts.append(time.perf_counter() - s0)
    dt = (time.perf_counter() - t) / a.steps
    print(f"step model={a.model} batch={a.batch} threads={a.threads} ms_per_step={dt * 1e3:.2f} "
          f"median_ms={statistics.median(ts) * 1e3:.2f} samples_per_s={a.batch / dt:.0f} params={params} "
          f"width={a.width:g} device=cpu torch={torch.__version__}", flush=True)


if __name__ == "__main__":
    A = p.parse_args()
    for k in ("batch", "threads", "steps"):
        if getattr(A, k) < 1:
            p.error(f"--{k} must be positive, got {getattr(A, k)}")
    if not (1 <= 32 * A.width <= 65536 and (32 * A.width).is_integer()):
        p.error(f"--width {A.width:g}: 32 x width must be a whole number of filters")
    if A.torch_reference:
        if not os.path.isfile(A.torch_reference):
            p.error(f"--torch-reference {A.torch_reference!r}: not a file (want torch_reference.py)")
        check_reference(A.torch_reference)
    step(A)
