"""Writes TensorFlow/Keras test vectors for gokeras' pipeline helpers.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/dataset_map_vectors.py

It writes datasets/testdata/keras/map_ops.json: tf.image.resize
(bilinear and nearest, single images and batches, float32 and uint8,
smaller and larger), tf.cast (floats to integers by truncation, integers
wrapping into narrower ones, bool both ways), keras.ops.expand_dims
(shapes) and np.arange (as float32), and a tf.data pipeline
(from_tensor_slices of images and labels, batch(2), then
map(lambda x, y: (tf.image.resize(x, size), y)) and a second map casting
to uint8): every batch. The Go tests in datasets/map_ops_test.go
compare datasets.Resize, Cast, ExpandDims, Arange and MapPairs with them.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

SEED = 20261204
OUT = "datasets/testdata/keras/map_ops.json"


def manifest():
    return {
        "generator": "tools/keras_reference/dataset_map_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
    }


def flat(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return [bool(v) for v in a.reshape(-1)]
    if a.dtype.kind == "f":
        return [float(v) for v in a.reshape(-1)]
    return [int(v) for v in a.reshape(-1)]


def arr(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": flat(a)}


def resize_cases(rng):
    specs = [
        ("float_down", rng.standard_normal((5, 7, 3)).astype(np.float32), (3, 4), "bilinear"),
        ("float_up", rng.standard_normal((4, 3, 2)).astype(np.float32), (9, 8), "bilinear"),
        ("uint8_batch", rng.integers(0, 256, (2, 6, 5, 1)).astype(np.uint8), (4, 10), "bilinear"),
        ("uint8_same_size", rng.integers(0, 256, (3, 3, 3)).astype(np.uint8), (3, 3), "bilinear"),
        ("nearest_uint8_batch", rng.integers(0, 256, (2, 6, 5, 3)).astype(np.uint8), (4, 7), "nearest"),
        ("nearest_float_up", rng.standard_normal((3, 4, 2)).astype(np.float32), (7, 9), "nearest"),
        ("int32_bilinear", rng.integers(-1000, 1000, (4, 4, 1)).astype(np.int32), (3, 5), "bilinear"),
    ]
    out = []
    for name, x, size, method in specs:
        y = tf.image.resize(x, size, method=method).numpy()
        out.append({"name": name, "x": arr(x), "size": list(size), "method": method, "y": arr(y)})
    return out


def cast_cases():
    specs = [
        ("float_to_int32", np.array([-2.7, -0.5, -0.0, 0.5, 2.7, 1e6, -123456.9], np.float32), "int32"),
        ("float_to_uint8", np.array([0.0, 0.99, 1.5, 127.5, 254.99, 255.0], np.float32), "uint8"),
        ("int32_to_uint8_wraps", np.array([0, 255, 256, 300, -1, -256], np.int32), "uint8"),
        ("int64_to_int8_wraps", np.array([127, 128, -129, 1000], np.int64), "int8"),
        ("uint8_to_float32", np.array([0, 7, 255], np.uint8), "float32"),
        ("float_to_bool", np.array([0.0, -0.0, 0.1, -3.0], np.float32), "bool"),
        ("bool_to_float32", np.array([True, False, True]), "float32"),
        ("int32_to_float64", np.array([[1, -2], [16777217, 3]], np.int32), "float64"),
        ("float64_to_float32", np.array([0.1, -2.5e-3, 3.4e38], np.float64), "float32"),
    ]
    return [{"name": n, "x": arr(x), "dtype": d, "y": arr(tf.cast(x, d).numpy())} for n, x, d in specs]


def expand_dims_cases():
    out = []
    for shape, axis in [((2, 3), 0), ((2, 3), -1), ((2, 3), 1), ((2, 3), -3), ((4,), 1), ((), 0)]:
        y = keras.ops.expand_dims(np.zeros(shape, np.float32), axis)
        out.append({"shape": list(shape), "axis": axis, "y_shape": list(y.shape)})
    return out


def arange_cases():
    out = []
    for args in [(5,), (2, 10, 3), (0, 1, 0.1), (1, 0, -0.25), (3, 1), (-2.5, 2.5)]:
        y = np.arange(*args, dtype=np.float64).astype(np.float32)
        out.append({"args": list(args), "y": arr(y)})
    return out


def pipeline(rng):
    x = rng.integers(0, 256, (5, 6, 4, 3)).astype(np.uint8)
    y = np.arange(5, dtype=np.int32) % 2
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)
    ds = ds.map(lambda a, b: (tf.image.resize(a, (5, 7)), b))
    ds = ds.map(lambda a, b: (tf.cast(a, tf.uint8), b))
    batches = [{"x": arr(a.numpy()), "y": arr(b.numpy())} for a, b in ds]
    return {"x": arr(x), "y": arr(y), "batch": 2, "size": [5, 7], "batches": batches}


def main():
    rng = np.random.default_rng(SEED)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    doc = {"manifest": manifest(), "resize": resize_cases(rng), "cast": cast_cases(),
           "expand_dims": expand_dims_cases(), "arange": arange_cases(), "pipeline": pipeline(rng)}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
