#!/usr/bin/python3
"""PyTorch inference time and Fit-epoch peak RSS for the seed models, beside torch_reference.py's train step.

torch_reference.py (the project's shared PyTorch reference) times the train step only; this script imports its models
(the file named by --torch-reference or $GOKERAS_TORCH_REFERENCE) and adds what examples/benchmark -compare prints
beside TensorFlow's figures. Run with the interpreter that sees python3-torch (Debian: /usr/bin/python3):

  torch_extra.py --torch-reference ../shared/reference/torch_reference.py infer --model mnist_cnn --batch 64 --threads 2
  torch_extra.py --torch-reference PATH fit --model resnet_seed --batch 64 --threads 1 --samples 1280

infer: the model in eval mode under torch.inference_mode() on one fixed random batch; the median of --steps calls
after --warmup; the process's peak RSS.
fit: one epoch (Adam 1e-3, eps 1e-7, cross-entropy on logits, batches in order) over a fixed synthetic dataset of
--samples examples: its time and the process's peak RSS.

Output lines, key=value like torch_reference.py's step line (or one JSON object with --json):
  infer model=... batch=... threads=... infer_ms_per_batch=... peak_rss_kb=... impl=pytorch torch=...
  fit model=... batch=... threads=... samples=... seconds=... peak_rss_kb=... impl=pytorch torch=...
"""
import argparse
import importlib.util
import json
import os
import resource
import statistics
import sys
import time

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--torch-reference", default=os.environ.get("GOKERAS_TORCH_REFERENCE", ""),
               help="path of torch_reference.py (default $GOKERAS_TORCH_REFERENCE)")
sub = p.add_subparsers(dest="cmd", required=True)
for name in ("infer", "fit"):
    s = sub.add_parser(name)
    s.add_argument("--model", choices=("mnist_cnn", "resnet_seed"), default="mnist_cnn")
    s.add_argument("--batch", type=int, default=64)
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", action="store_true")
    if name == "infer":
        s.add_argument("--steps", type=int, default=50)
        s.add_argument("--warmup", type=int, default=3)
    else:
        s.add_argument("--samples", type=int, default=6400)
A = p.parse_args()
if not A.torch_reference or not os.path.isfile(A.torch_reference):
    p.error(f"--torch-reference {A.torch_reference!r}: not a file (want torch_reference.py)")
for k in ("batch", "threads") + (("steps",) if A.cmd == "infer" else ("samples",)):
    if getattr(A, k) < 1:
        p.error(f"--{k} must be positive, got {getattr(A, k)}")

spec = importlib.util.spec_from_file_location("torch_reference", A.torch_reference)
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)  # defines the models; its command line runs only under __main__
torch = ref.torch


def peak_rss_kb():
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb // 1024 if sys.platform == "darwin" else kb


def main(a):
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    build, shape = ref.MODELS[a.model]
    m = build()
    r = dict(kind=a.cmd, model=a.model, batch=a.batch, threads=a.threads)
    if a.cmd == "infer":
        x = torch.rand(a.batch, *shape)
        m.eval()
        ts = []
        with torch.inference_mode():
            for i in range(a.warmup + a.steps):
                t = time.perf_counter()
                m(x)
                if i >= a.warmup:
                    ts.append(time.perf_counter() - t)
        r["infer_ms_per_batch"] = round(statistics.median(ts) * 1e3, 2)
    else:
        x, y = torch.rand(a.samples, *shape), torch.randint(0, 10, (a.samples,))
        opt = torch.optim.Adam(m.parameters(), lr=1e-3, eps=1e-7)
        loss = torch.nn.CrossEntropyLoss()
        t = time.perf_counter()
        for i in range(0, a.samples, a.batch):
            opt.zero_grad()
            loss(m(x[i:i + a.batch]), y[i:i + a.batch]).backward()
            opt.step()
        r.update(samples=a.samples, seconds=round(time.perf_counter() - t, 2))
    r.update(peak_rss_kb=peak_rss_kb(), impl="pytorch", torch=torch.__version__)
    if a.json:
        print(json.dumps(r))
    else:
        kind = r.pop("kind")
        print(kind + " " + " ".join(f"{k}={v}" for k, v in r.items()), flush=True)


if __name__ == "__main__":
    main(A)
