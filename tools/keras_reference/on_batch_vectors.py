"""Writes keras/testdata/keras/on_batch.json: Keras 3's train_on_batch,
test_on_batch and predict_on_batch, for gokeras'
keras/model_methods_test.go (TestOnBatchMatchesKeras).

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/on_batch_vectors.py

A Dense(2) model of fixed weights, compiled with SGD(0.1), "mse" and the
metric "mae", goes through test_on_batch, train_on_batch on two different
batches, test_on_batch and predict_on_batch, in that order, then
train_on_batch and test_on_batch with a sample_weight and train_on_batch
with a class_weight. Each call's
returned dict (return_dict=True) is recorded, and the weights after each
training call: Keras resets the metrics at every *_on_batch call, so the
second train_on_batch reports its batch alone, computed before its update.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = "keras/testdata/keras/on_batch.json"


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float32).reshape(-1)]


def main():
    rng = np.random.default_rng(20261202)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")], name="on_batch")
    kernel = rng.standard_normal((3, 2)).astype(np.float32)
    bias = (rng.standard_normal(2) * 0.1).astype(np.float32)
    model.layers[0].set_weights([kernel, bias])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    batches = [(rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32))
               for _ in range(2)]
    calls = []

    def record(kind, batch, logs=None, out=None):
        c = {"call": kind, "batch": batch}
        if logs is not None:
            c["logs"] = {k: float(v) for k, v in logs.items()}
        if out is not None:
            c["output"] = flat(out)
        c["weights"] = [flat(w) for w in model.get_weights()]
        calls.append(c)

    (x0, y0), (x1, y1) = batches
    record("test_on_batch", 0, logs=model.test_on_batch(x0, y0, return_dict=True))
    record("train_on_batch", 0, logs=model.train_on_batch(x0, y0, return_dict=True))
    record("train_on_batch", 1, logs=model.train_on_batch(x1, y1, return_dict=True))
    record("test_on_batch", 0, logs=model.test_on_batch(x0, y0, return_dict=True))
    record("predict_on_batch", 1, out=model.predict_on_batch(x1))
    sw = np.asarray([0.5, 1.0, 2.0, 0.0], np.float32)
    cw = {0: 0.25, 1: 3.0}
    c = {"call": "train_on_batch", "batch": 1, "sample_weight": flat(sw)}
    c["logs"] = {k: float(v) for k, v in model.train_on_batch(x1, y1, sample_weight=sw, return_dict=True).items()}
    c["weights"] = [flat(w) for w in model.get_weights()]
    calls.append(c)
    c = {"call": "test_on_batch", "batch": 0, "sample_weight": flat(sw)}
    c["logs"] = {k: float(v) for k, v in model.test_on_batch(x0, y0, sample_weight=sw, return_dict=True).items()}
    c["weights"] = [flat(w) for w in model.get_weights()]
    calls.append(c)
    # class_weight: the class of a row of y is its argmax, as Keras'
    # class_weight_to_sample_weights takes it for labels of 2 columns.
    c = {"call": "train_on_batch", "batch": 0, "class_weight": {str(k): v for k, v in cw.items()}}
    c["logs"] = {k: float(v) for k, v in model.train_on_batch(x0, y0, class_weight=cw, return_dict=True).items()}
    c["weights"] = [flat(w) for w in model.get_weights()]
    calls.append(c)
    case = {"name": "dense_sgd", "kernel": flat(kernel), "bias": flat(bias),
            "x": [flat(b[0]) for b in batches], "y": [flat(b[1]) for b in batches], "calls": calls}
    manifest = {"generator": "tools/keras_reference/on_batch_vectors.py", "keras": keras.__version__,
                "tensorflow": tf.__version__}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest, "cases": [case]}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
