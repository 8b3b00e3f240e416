#!/usr/bin/env python3
"""PyTorch twin of examples/cifar10_fast (issue 34), for CPU timings.

The same recipe, written to compute what gokeras' Keras pieces compute:

* data: CIFAR-10's official binary batches (gzipped or not), the first
  --limit training and --test-limit test images in file order, scaled by the
  per-channel mean and std of examples/cifar10_fast/train.go;
* augmentation, per image, in training only: Keras' RandomTranslation(0.125,
  0.125, fill_mode="reflect", interpolation="nearest") (a shift drawn from
  U(-4, 4) pixels each way, the source coordinate reflected as TensorFlow's
  "reflect" (d c b a | a b c d), then rounded), then RandomFlip("horizontal");
* net: stem conv 3x3 (no bias) + BN + GELU; three blocks of conv 3x3, 2x2
  max pooling, BN, GELU, conv 3x3, BN, GELU; global max pooling; Linear(10,
  no bias); logits * 0.125. Glorot-uniform kernels as Keras' defaults, BN as
  Keras' BatchNormalization(momentum=0.9, epsilon=1e-3) (PyTorch momentum 0.1;
  PyTorch's running variance is the unbiased one, Keras' the biased one: a
  factor n/(n-1) of the per-channel batch count, which only inference sees);
* loss: cross-entropy with label_smoothing 0.2 (the same formula as Keras');
* optimizer: Keras' SGD, not torch.optim.SGD: decoupled weight decay
  w -= w*wd*lr, then m = mu*m - lr*g, w += mu*m - lr*g (Nesterov), applied
  to every trainable weight as Keras does; Keras' CosineDecay with a linear
  warm-up from 0 (warmup_target = --lr), evaluated at the step count before
  the update; optional use_ema (average = m*average + (1-m)*w after each
  step, m = 0 at the first step, copied into the weights after training);
* evaluation after every epoch: flip test-time augmentation (the logits of
  an image and of its mirror image summed), training time excluding it.

Run with the system torch (Debian's python3-torch), one process, --threads
threads (2 on the 2-core machines):

  /usr/bin/python3 tools/cifar10_reference/torch_fast.py --data /work/shared/datasets \
      --limit 2048 --test-limit 1000 --epochs 2 --batch-size 512 --widths 32,64,256,256
"""
import argparse
import gzip
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = np.array([125.307, 122.950, 113.865], dtype=np.float32)
STD = np.array([62.993, 62.089, 66.705], dtype=np.float32)


def read_batch(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            opener = gzip.open if p.endswith(".gz") else open
            with opener(p, "rb") as f:
                raw = np.frombuffer(f.read(), dtype=np.uint8).reshape(-1, 3073)
            return raw[:, 1:].reshape(-1, 3, 32, 32), raw[:, 0].astype(np.int64)
    raise FileNotFoundError(path)


def load(data, limit, test_limit):
    d = os.path.join(data, "cifar-10-batches-bin")
    xs, ys = zip(*(read_batch(os.path.join(d, f"data_batch_{i}.bin")) for i in range(1, 6)))
    x, y = np.concatenate(xs), np.concatenate(ys)
    xt, yt = read_batch(os.path.join(d, "test_batch.bin"))
    if limit:
        x, y = x[:limit], y[:limit]
    if test_limit:
        xt, yt = xt[:test_limit], yt[:test_limit]

    def norm(a):  # NCHW float32, per-channel normalised
        return torch.from_numpy(((a.astype(np.float32) - MEAN[None, :, None, None]) / STD[None, :, None, None]).copy())

    return norm(x), torch.from_numpy(y), norm(xt), torch.from_numpy(yt)


def translate_reflect(x, factor, gen):
    """Keras' RandomTranslation(factor, factor, fill_mode="reflect",
    interpolation="nearest") on NCHW images: output(i, j) = input(i - dy,
    j - dx), dy, dx ~ U(-factor, factor) * size per image."""
    n, _, h, w = x.shape
    dy = (torch.rand(n, generator=gen) * 2 - 1) * factor * h
    dx = (torch.rand(n, generator=gen) * 2 - 1) * factor * w

    def src(d, size):
        v = torch.arange(size, dtype=torch.float32)[None, :] - d[:, None]
        v = torch.where(v < 0, -v - 1, v)
        v = torch.where(v > size - 1, 2 * size - v - 1, v)
        return torch.round(v.clamp(0, size - 1)).long()  # (n, size)

    sy, sx = src(dy, h), src(dx, w)
    b = torch.arange(n)[:, None, None]
    # x[b, :, sy[b, i], sx[b, j]] -> (n, h, w, c) -> NCHW
    return x.permute(0, 2, 3, 1)[b, sy[:, :, None], sx[:, None, :]].permute(0, 3, 1, 2).contiguous()


def flip(x, gen):
    m = torch.rand(x.shape[0], generator=gen) < 0.5
    out = x.clone()
    out[m] = x[m].flip(-1)
    return out


def conv_bn(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout, eps=1e-3, momentum=0.1)]


class Net(nn.Module):
    def __init__(self, widths):
        super().__init__()
        s, *blocks = widths
        layers = conv_bn(3, s) + [nn.GELU()]
        cin = s
        for f in blocks:
            layers += [nn.Conv2d(cin, f, 3, padding=1, bias=False), nn.MaxPool2d(2),
                       nn.BatchNorm2d(f, eps=1e-3, momentum=0.1), nn.GELU()]
            layers += conv_bn(f, f) + [nn.GELU()]
            cin = f
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, 10, bias=False)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight)  # Keras' glorot_uniform

    def forward(self, x):
        x = self.body(x)
        x = torch.amax(x, dim=(2, 3))  # GlobalMaxPooling2D
        return self.fc(x) * 0.125


def cpu_capability():
    """The SIMD level of ATen's kernels (torch.backends.cpu appeared after 1.13)."""
    for line in torch.__config__.show().splitlines():
        if "CPU capability" in line:
            return line.strip()
    return "CPU capability usage: unknown"


def lr_at(step, total, peak, warm_frac):
    """Keras' CosineDecay(0, total - warm, alpha=0, warmup_target=peak, warmup_steps=warm)."""
    warm = int(warm_frac * total)
    if step < warm:
        return peak * step / warm
    decay = max(total - warm, 1)
    frac = min(step - warm, decay) / decay
    return peak * 0.5 * (1 + math.cos(math.pi * frac))


@torch.no_grad()
def keras_sgd_step(params, velocities, lr, mu, wd):
    for p, m in zip(params, velocities):
        if wd:
            p.sub_(p * (wd * lr))
        g = p.grad
        m.mul_(mu).sub_(g, alpha=lr)
        p.add_(m * mu - g * lr)


@torch.no_grad()
def accuracy(model, x, y, tta, batch):
    model.eval()
    correct = 0
    for i in range(0, len(x), batch):
        xb = x[i:i + batch]
        logits = model(xb)
        if tta:
            logits = logits + model(xb.flip(-1))
        correct += (logits.argmax(1) == y[i:i + batch]).sum().item()
    model.train()
    return correct / len(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.environ.get("GOKERAS_DATASETS", "/work/shared/datasets").split(":")[0])
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--test-limit", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--widths", default="32,64,256,256")
    ap.add_argument("--lr", type=float, default=0.4)
    ap.add_argument("--warmup", type=float, default=0.2)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--weight-decay", type=float, default=5e-3)
    ap.add_argument("--label-smoothing", type=float, default=0.2)
    ap.add_argument("--ema", type=float, default=0.0)
    ap.add_argument("--no-tta", action="store_true")
    ap.add_argument("--no-augment", action="store_true")
    ap.add_argument("--target", type=float, default=0.94)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"oneDNN {torch.backends.mkldnn.is_available()}, {cpu_capability()}")
    x, y, xt, yt = load(a.data, a.limit, a.test_limit)
    n = len(x)
    steps = (n + a.batch_size - 1) // a.batch_size
    total = steps * a.epochs
    print(f"training images: {n}, test images: {len(xt)}, batch {a.batch_size}, {steps} steps an epoch")

    model = Net([int(w) for w in a.widths.split(",")])
    params = [p for p in model.parameters() if p.requires_grad]
    vel = [torch.zeros_like(p) for p in params]
    avg = [p.detach().clone() for p in params] if a.ema else None
    step, train_s, reached = 0, 0.0, 0
    for epoch in range(a.epochs):
        t0 = time.perf_counter()
        perm = torch.randperm(n, generator=gen)
        loss_sum = 0.0
        for i in range(0, n, a.batch_size):
            idx = perm[i:i + a.batch_size]
            xb, yb = x[idx], y[idx]
            if not a.no_augment:
                xb = flip(translate_reflect(xb, 0.125, gen), gen)
            loss = F.cross_entropy(model(xb), yb, label_smoothing=a.label_smoothing)
            for p in params:
                p.grad = None
            loss.backward()
            keras_sgd_step(params, vel, lr_at(step, total, a.lr, a.warmup), a.momentum, a.weight_decay)
            if avg is not None:
                mom = a.ema if step > 0 else 0.0
                with torch.no_grad():
                    for av, p in zip(avg, params):
                        av.mul_(mom).add_(p, alpha=1 - mom)
            step += 1
            loss_sum += loss.item() * len(idx)
        train_s += time.perf_counter() - t0
        acc = accuracy(model, xt, yt, not a.no_tta, a.batch_size)
        if not reached and acc >= a.target:
            reached, reached_s, reached_acc = epoch + 1, train_s, acc
        print(f"epoch {epoch + 1}/{a.epochs}: loss {loss_sum / n:.4f}, test_accuracy {acc:.4f}, train time {train_s:.1f} s", flush=True)
    if avg is not None:
        with torch.no_grad():
            for av, p in zip(avg, params):
                p.copy_(av)
    print(f"test_accuracy: {accuracy(model, xt, yt, not a.no_tta, a.batch_size):.4f}")
    if reached:
        print(f"time to {a.target:.4f}: {reached_s:.1f} s (epoch {reached}, test_accuracy {reached_acc:.4f})")
    else:
        print(f"time to {a.target:.4f}: not reached in {a.epochs} epochs ({train_s:.1f} s of training)")


if __name__ == "__main__":
    main()
