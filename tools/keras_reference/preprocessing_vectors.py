"""Keras vectors for gokeras' preprocessing layers.

Writes keras/testdata/keras/preprocessing.json: for each case the layer's
get_config() (after adapt, when the case adapts), the data given to adapt,
the layer's weights, an input, Keras' output in inference and, for the
differentiable layers, the gradient of sum(y*dy) with respect to the input.

Run from the repository root with the pinned environment (requirements.txt),
or through run_all.py.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

SEED = 20261124
OUT = "keras/testdata/keras/preprocessing.json"


def manifest():
    return {
        "generator": "tools/keras_reference/preprocessing_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
        "dtype": "float32",
    }


def arr(a):
    a = np.asarray(a, dtype=np.float32)
    return [float(v) for v in a.reshape(-1)]


def case(name, layer, x, adapt=None, grad=True, rng=None):
    c = {"name": name, "class_name": layer.__class__.__name__}
    if adapt is not None:
        layer.adapt(adapt)
        c["adapt_shape"] = list(adapt.shape)
        c["adapt_x"] = arr(adapt)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt, training=False)
        dy = None
        if grad:
            dy = rng.standard_normal(y.shape).astype(np.float32)
            loss = tf.reduce_sum(tf.cast(y, tf.float32) * dy)
    c["config"] = layer.get_config()
    c["shape"] = list(x.shape)
    c["x"] = arr(x)
    c["weights"] = [
        {"name": w.path, "shape": list(w.shape), "value": arr(w.numpy())}
        for w in layer.weights
    ]
    c["y_shape"] = list(y.shape)
    c["y"] = arr(y)
    if grad:
        c["dy"] = arr(dy)
        c["dx"] = arr(tape.gradient(loss, xt))
    return c


def normalization_cases(rng):
    out = []
    x = rng.normal(3, 2, (4, 3)).astype(np.float32)
    data = rng.normal(3, 2, (10, 3)).astype(np.float32)
    out.append(case("normalization_adapt", keras.layers.Normalization(), x, adapt=data, rng=rng))
    out.append(case("normalization_invert_adapt",
                    keras.layers.Normalization(invert=True), x, adapt=data, rng=rng))
    x3 = rng.normal(1, 3, (2, 4, 3)).astype(np.float32)
    data3 = rng.normal(1, 3, (5, 4, 3)).astype(np.float32)
    out.append(case("normalization_axis12", keras.layers.Normalization(axis=(1, 2)), x3, adapt=data3, rng=rng))
    out.append(case("normalization_axis1_of3", keras.layers.Normalization(axis=1), x3, adapt=data3, rng=rng))
    out.append(case("normalization_axis_none", keras.layers.Normalization(axis=None), x3, adapt=data3, rng=rng))
    out.append(case("normalization_given", keras.layers.Normalization(mean=[1.0, 2.0, -3.0], variance=[4.0, 0.25, 0.0]), x, rng=rng))
    out.append(case("normalization_given_scalar_invert",
                    keras.layers.Normalization(mean=2.0, variance=9.0, invert=True), x, rng=rng))
    return out


def main():
    rng = np.random.default_rng(SEED + 71)
    cases = []
    cases += normalization_cases(rng)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
