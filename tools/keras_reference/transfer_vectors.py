"""Writes keras/testdata/keras/transfer_learning.json: Keras 3's transfer
learning (the guide "Transfer learning & fine-tuning") on a base with
BatchNormalization, for gokeras' keras/transfer_learning_keras_test.go.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/transfer_vectors.py

A "pretrained" base (Dense then BatchNormalization, given weights and
moving statistics) under a Dense head, in three cases:

- training_false: the guide's `x = base_model(inputs, training=False)`,
  with the meaning the guide gives it (the base stays in inference mode
  after it is unfrozen), which tf.keras 2 implemented. Keras 3.15.1's
  functional models override a node's training=False with the mode fit
  runs in (keras-team/keras#20285: models/functional.py operation_fn), so
  the explicit call is made inside a wrapper layer, where Layer.__call__
  keeps an explicitly passed training argument;
- plain: `x = base_model(inputs)`;
- bn_only: one Sequential whose BatchNormalization alone is frozen.

Each case runs two phases, fit with SGD and shuffle=False: the base frozen
(base.trainable = False, or bn.trainable = False), then unfrozen and
compiled again with a smaller learning rate. Per phase: the trainable and
non-trainable weight counts after compile, the trainable weights' names,
and every weight after the fit. Weights are named "<layer>/<variable>" and
flattened row-major beside their shapes.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

SEED = 20261201
OUT = "keras/testdata/keras/transfer_learning.json"
N, DIM, UNITS = 16, 6, 5


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float32).reshape(-1)]


def weights_of(layers):
    out = {}
    for layer in layers:
        for w in layer.weights:
            out[f"{layer.name}/{w.name}"] = {"shape": list(w.shape), "values": flat(w.numpy())}
    return out


def names(vs, layers):
    by_id = {}
    for layer in layers:
        for w in layer.weights:
            by_id[id(w)] = f"{layer.name}/{w.name}"
    return [by_id[id(v)] for v in vs]


class InferenceCall(keras.layers.Layer):
    """Calls its layer with training=False, whatever mode it runs in."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def call(self, x):
        return self.inner(x, training=False)


def case(name, rng):
    x = rng.standard_normal((N, DIM)).astype(np.float32) + 0.5
    y = rng.standard_normal((N, 1)).astype(np.float32)
    dense = keras.layers.Dense(UNITS, name="base_dense")
    bn = keras.layers.BatchNormalization(name="base_bn")
    head = keras.layers.Dense(1, name="head")
    base = keras.Sequential([keras.Input((DIM,)), dense, bn], name="base")
    dense.set_weights([
        (rng.standard_normal((DIM, UNITS)) * 0.5).astype(np.float32),
        (rng.standard_normal((UNITS,)) * 0.1).astype(np.float32),
    ])
    bn.set_weights([
        rng.uniform(0.5, 1.5, UNITS).astype(np.float32),  # gamma
        (rng.standard_normal(UNITS) * 0.1).astype(np.float32),  # beta
        (rng.standard_normal(UNITS) * 0.3).astype(np.float32),  # moving_mean
        rng.uniform(0.5, 2.0, UNITS).astype(np.float32),  # moving_variance
    ])
    head.build((None, UNITS))
    head.set_weights([
        (rng.standard_normal((UNITS, 1)) * 0.5).astype(np.float32),
        np.zeros((1,), np.float32),
    ])
    all_layers = [dense, bn, head]
    initial = weights_of(all_layers)
    if name == "bn_only":
        model = keras.Sequential([keras.Input((DIM,)), dense, bn, head], name="model")
        freeze = lambda t: setattr(bn, "trainable", t)  # noqa: E731
    else:
        inputs = keras.Input((DIM,))
        if name == "training_false":
            h = InferenceCall(base, name="inference_call")(inputs)
        else:
            h = base(inputs)
        model = keras.Model(inputs, head(h), name="model")
        freeze = lambda t: setattr(base, "trainable", t)  # noqa: E731
    phases = []
    for trainable, lr in ((False, 0.05), (True, 0.01)):
        freeze(trainable)
        model.compile(optimizer=keras.optimizers.SGD(lr), loss="mse")
        entry = {
            "base_trainable": trainable,
            "learning_rate": lr,
            "trainable": names(model.trainable_weights, all_layers),
            "non_trainable": names(model.non_trainable_weights, all_layers),
        }
        hist = model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        entry["loss"] = float(hist.history["loss"][-1])
        entry["weights"] = weights_of(all_layers)
        phases.append(entry)
    return {"name": name, "x": flat(x), "y": flat(y), "n": N, "dim": DIM, "units": UNITS,
            "initial": initial, "phases": phases}


def main():
    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    cases = [case(n, rng) for n in ("training_false", "plain", "bn_only")]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        manifest = {"generator": "tools/keras_reference/transfer_vectors.py", "keras": keras.__version__,
                    "tensorflow": tf.__version__}
        json.dump({"manifest": manifest, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
