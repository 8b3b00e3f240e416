#!/usr/bin/env python3
"""TensorFlow (Keras 3) reference for the project's two seed models, timed beside gokeras on the same machine.

Versions are pinned in ../keras_reference/requirements.txt (tensorflow-cpu 2.21.0, keras 3.15.1); install once:
  python3 -m venv ~/.cache/gokeras-keras-ref
  ~/.cache/gokeras-keras-ref/bin/pip install -r tools/keras_reference/requirements.txt
and run with that interpreter:

  tf_reference.py step --model mnist_cnn --batch 64 --threads 2 --steps 100
  tf_reference.py step --model resnet_seed --batch 64 --threads 1 --steps 20 --jit on
  tf_reference.py fit  --model mnist_cnn --batch 64 --threads 2 --samples 6400
  tf_reference.py step --model mnist_cnn --json
  tf_reference.py step --model mnist_cnn --width 2 --batch 64 --threads 2 --steps 50

The models are the ones of examples/benchmark (examples/internal/models), with Keras' default initializers:
  mnist_cnn   Conv2D(32,3,relu) MaxPool Conv2D(64,3,relu) MaxPool Flatten Dense(128,relu) Dense(10)   input 28x28x1
  resnet_seed Conv2D(64,7,s2,same) BN ReLU MaxPool(3,s2,same) 6 residual blocks (64,64,128,128,256,256)
              GlobalAveragePooling2D Dense(10)                                               input 32x32x3
compiled with Adam (learning rate 1e-3, epsilon 1e-7) and SparseCategoricalCrossentropy(from_logits=True).
--width F (mnist_cnn only; examples/benchmark -width, models.MNISTCNNWidth): Conv2D(32*F) and Conv2D(64*F), the dense
layers as the seed (Dense(128) then takes 1600*F inputs); 32*F must be a whole number. The output lines then carry
width=F.

step: one fixed random batch; `warmup` untimed train_on_batch calls (tracing), then `steps` timed ones (Keras' train
step under tf.function, XLA with --jit on); then the same for predict_on_batch (inference, training=False).
fit: a fresh process fits one epoch on a fixed synthetic dataset of `samples` examples (no shuffling) and reports the
epoch's time and the process's peak RSS, the memory a Fit epoch needs.

Output, one machine-readable line in the PyTorch reference's style (key=value, parsed by examples/benchmark -compare):
  step model=... batch=... threads=... ms_per_step=<mean> median_ms=... samples_per_s=... infer_ms_per_batch=<median>
       peak_rss_kb=... impl=tensorflow jit=off tf=2.21.0 keras=3.15.1
  fit model=... batch=... threads=... samples=... seconds=... peak_rss_kb=... impl=tensorflow jit=off ...
With --json the same fields come as one JSON object instead.
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("step", "fit"):
        s = sub.add_parser(name)
        s.add_argument("--model", choices=("mnist_cnn", "resnet_seed"), default="mnist_cnn")
        s.add_argument("--batch", type=int, default=64)
        s.add_argument("--threads", type=int, default=2, help="TensorFlow intra-op and inter-op threads")
        s.add_argument("--jit", choices=("off", "on"), default="off", help="compile(jit_compile=...): XLA")
        s.add_argument("--seed", type=int, default=0)
        s.add_argument("--width", type=float, default=1.0,
                       help="mnist_cnn only: the convolutions' filters x width (32*width and 64*width)")
        s.add_argument("--json", action="store_true", help="print one JSON object instead of the key=value line")
        if name == "step":
            s.add_argument("--steps", type=int, default=50, help="timed train steps")
            s.add_argument("--warmup", type=int, default=3, help="untimed steps first (tracing)")
            s.add_argument("--infer-steps", type=int, default=0, help="timed predict_on_batch calls (0: as --steps)")
        else:
            s.add_argument("--samples", type=int, default=6400, help="examples in the synthetic dataset")
    a = p.parse_args()
    for k in ("batch", "threads") + (("steps",) if a.cmd == "step" else ("samples",)):
        if getattr(a, k) < 1:
            p.error(f"--{k} must be positive, got {getattr(a, k)}")
    if a.cmd == "step" and (a.warmup < 0 or a.infer_steps < 0):
        p.error("--warmup and --infer-steps must not be negative")
    if a.width != 1 and a.model != "mnist_cnn":
        p.error(f"--width {a.width:g}: only mnist_cnn takes a width")
    if not (1 <= 32 * a.width <= 65536 and (32 * a.width).is_integer()):
        p.error(f"--width {a.width:g}: 32 x width must be a whole number of filters")
    return a


A = parse()
# Thread counts must be fixed before TensorFlow starts its pools.
for var in ("OMP_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
    os.environ[var] = str(A.threads)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["KERAS_BACKEND"] = "tensorflow"

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(A.threads)
tf.config.threading.set_inter_op_parallelism_threads(A.threads)

SHAPES = {"mnist_cnn": (28, 28, 1), "resnet_seed": (32, 32, 3)}


def mnist_cnn(width=1.0):
    f = int(32 * width)
    return keras.Sequential([
        keras.Input(SHAPES["mnist_cnn"]),
        layers.Conv2D(f, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(2 * f, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10),
    ])


def block(x, filters, stride, conv_shortcut):
    shortcut = x
    if conv_shortcut:
        shortcut = layers.BatchNormalization()(layers.Conv2D(filters, 1, strides=stride)(x))
    x = layers.Conv2D(filters, 3, strides=stride, padding="same")(x)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.BatchNormalization()(layers.Conv2D(filters, 3, padding="same")(x))
    return layers.ReLU()(layers.Add()([x, shortcut]))


def resnet_seed():
    inputs = keras.Input(SHAPES["resnet_seed"])
    x = layers.Conv2D(64, 7, strides=2, padding="same")(inputs)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    for filters, stride, conv_shortcut in ((64, 1, True), (64, 1, False), (128, 2, True), (128, 1, False),
                                           (256, 2, True), (256, 1, False)):
        x = block(x, filters, stride, conv_shortcut)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, layers.Dense(10)(x))


def build(a):
    keras.utils.set_random_seed(a.seed)
    m = mnist_cnn(a.width) if a.model == "mnist_cnn" else resnet_seed()
    m.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3, epsilon=1e-7),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=(a.jit == "on"))
    return m


def data(a, n):
    r = np.random.default_rng(a.seed)
    x = r.random((n,) + SHAPES[a.model], dtype=np.float32)
    y = r.integers(0, 10, n).astype(np.int32)
    return x, y


def peak_rss_kb():
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb // 1024 if sys.platform == "darwin" else kb  # macOS reports bytes


def timed(fn, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return ts


def step(a):
    m = build(a)
    x, y = data(a, a.batch)
    xt, yt = tf.constant(x), tf.constant(y)
    train = lambda: m.train_on_batch(xt, yt)  # noqa: E731; returns the loss as a Python float: the step has finished
    infer = lambda: m.predict_on_batch(xt)  # noqa: E731; returns a NumPy array: the step has finished
    for _ in range(a.warmup):
        train()
    ts = timed(train, a.steps)
    for _ in range(max(a.warmup, 1)):
        infer()
    its = timed(infer, a.infer_steps or a.steps)
    mean = sum(ts) / len(ts)
    med = statistics.median(ts)
    return dict(kind="step", model=a.model, batch=a.batch, threads=a.threads, params=m.count_params(), ms_per_step=round(mean * 1e3, 2),
                median_ms=round(med * 1e3, 2), samples_per_s=round(a.batch / med),
                infer_ms_per_batch=round(statistics.median(its) * 1e3, 2), peak_rss_kb=peak_rss_kb())


def fit(a):
    m = build(a)
    x, y = data(a, a.samples)
    t = time.perf_counter()
    m.fit(x, y, batch_size=a.batch, epochs=1, shuffle=False, verbose=0)
    dt = time.perf_counter() - t
    return dict(kind="fit", model=a.model, batch=a.batch, threads=a.threads, samples=a.samples,
                seconds=round(dt, 2), peak_rss_kb=peak_rss_kb())


if __name__ == "__main__":
    r = step(A) if A.cmd == "step" else fit(A)
    r.update(impl="tensorflow", jit=A.jit, tf=tf.__version__, keras=keras.__version__)
    if A.width != 1:
        r.update(width=f"{A.width:g}")
    if A.json:
        print(json.dumps(r))
    else:
        kind = r.pop("kind")
        print(kind + " " + " ".join(f"{k}={v}" for k, v in r.items()), flush=True)
