"""Measures the first epoch of keras.io's MNIST convnet in real Keras.

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/mnist_convnet_epoch1.py \
        --data "$GOKERAS_DATASETS/mnist" --seeds 1 2 3 [--epochs 1] [--json out.json]

The model, data preparation and fit call are keras.io's
examples/vision/mnist_convnet (Conv2D 32 3x3 relu, MaxPooling 2, Conv2D 64
3x3 relu, MaxPooling 2, Flatten, Dropout 0.5, Dense 10 softmax; adam;
categorical_crossentropy; batch 128; validation_split 0.1). --data is a
folder with the four MNIST IDX files (gzipped or not) or Keras' mnist.npz.

For each seed it prints fit's history (the epoch's true mean training loss
and accuracy, and the validation figures), the running means Keras logs
after each batch, and what the progress bar of Keras 3.0 to 3.14 showed
at the end of the epoch: those versions' Progbar averaged the running means
again over the steps (3.0-3.10: the mean of the n running means and the
epoch's value; 3.11-3.14: the epoch's value on the final line), removed in
Keras 3.15 (keras-team/keras#23030). Not a vector script: it needs MNIST
and minutes of CPU; docs/keras_verification.md has the numbers.
"""

import argparse
import gzip
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402


def read_idx(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        b = f.read()
    ndim = b[3]
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(b, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(folder):
    npz = os.path.join(folder, "mnist.npz")
    if os.path.exists(npz):
        with np.load(npz) as f:
            return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])

    def find(stem):
        for ext in ("", ".gz"):
            p = os.path.join(folder, stem + ext)
            if os.path.exists(p):
                return p
        sys.exit(f"no {stem}[.gz] in {folder}")
    return ((read_idx(find("train-images-idx3-ubyte")), read_idx(find("train-labels-idx1-ubyte"))),
            (read_idx(find("t10k-images-idx3-ubyte")), read_idx(find("t10k-labels-idx1-ubyte"))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--json", default="")
    ap.add_argument("--no-dropout", action="store_true", help="leave Dropout(0.5) out (it draws random masks)")
    ap.add_argument("--no-shuffle", action="store_true", help="fit with shuffle=False")
    ap.add_argument("--save-init", default="",
                    help="write the initial weights to this .weights.h5 ({seed} is replaced by the seed), "
                    "for mnist_convnet -init")
    args = ap.parse_args()
    (x_train, y_train), _ = load(args.data)
    # keras.io's preparation, verbatim in effect.
    num_classes, input_shape = 10, (28, 28, 1)
    x_train = np.expand_dims(x_train.astype("float32") / 255, -1)
    y_train = keras.utils.to_categorical(y_train, num_classes)
    results = []
    for seed in args.seeds:
        keras.utils.set_random_seed(seed)
        model = keras.Sequential([
            keras.Input(shape=input_shape),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            *([] if args.no_dropout else [layers.Dropout(0.5)]),
            layers.Dense(num_classes, activation="softmax"),
        ])
        if args.save_init:
            model.save_weights(args.save_init.replace("{seed}", str(seed)))
        model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
        batches = []
        cb = keras.callbacks.LambdaCallback(
            on_train_batch_end=lambda b, logs: batches.append((float(logs["loss"]), float(logs["accuracy"]))))
        t = time.time()
        hist = model.fit(x_train, y_train, batch_size=128, epochs=args.epochs, validation_split=0.1,
                         verbose=2, callbacks=[cb], shuffle=not args.no_shuffle)
        secs = time.time() - t
        n = len(batches) // args.epochs  # steps per epoch
        run = np.array(batches[:n])      # epoch 1's running means
        h = {k: [float(v) for v in vs] for k, vs in hist.history.items()}
        # Keras 3.0-3.10's progress bar at the end of epoch 1: the mean of
        # the n running means and (at finalize, weight 1) the epoch's value.
        old = [(float(run[:, j].sum()) + h[k][0]) / (n + 1) for j, k in enumerate(("loss", "accuracy"))]
        r = {"seed": seed, "steps_per_epoch": n, "seconds": secs, "history": h,
             "first_batches_loss": [float(v) for v in run[:5, 0]],
             "running_mean_loss_at": {str(k): float(run[k - 1, 0]) for k in (1, 10, 50, 100, 200, n)},
             "progbar_3_0_to_3_10_epoch1": {"loss": old[0], "accuracy": old[1]},
             "mean_of_running_means_epoch1": {"loss": float(run[:, 0].mean()), "accuracy": float(run[:, 1].mean())}}
        print(json.dumps(r), flush=True)
        results.append(r)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"keras": keras.__version__, "runs": results}, f, indent=1)


if __name__ == "__main__":
    main()
