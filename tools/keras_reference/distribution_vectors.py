"""Vectors for distribute/distribution: how Keras 3's LayoutMap looks up
variable paths, and the variable paths of a small model.

Keras' LayoutMap and TensorLayout are plain Python (no devices needed), so
this runs in the pinned TensorFlow environment like every other script
here. The shard shapes need JAX: distribution_jax_shards.py.

Writes distribute/distribution/testdata/layout_map.json.
"""

import json
import re
import os

import keras
from keras import layers
from keras.distribution import DeviceMesh, LayoutMap, TensorLayout

OUT = "distribute/distribution/testdata/layout_map.json"

# Each case: keys in insertion order (axes with None), then paths to look up.
CASES = [
    {   # The example of Keras' LayoutMap docstring.
        "keys": [[".*dense.*kernel", [None, "model"]], [".*dense.*bias", ["model"]],
                 [".*conv2d.*kernel", [None, None, None, "model"]], [".*conv2d.*bias", ["model"]]],
        "paths": ["dense_1.kernel", "dense_1.bias", "dense_2.kernel", "dense_2.bias",
                  "my_model/conv2d_123/kernel", "my_model/conv2d_123/bias",
                  "my_model/conv3d_1/kernel", "my_model/conv3d_1/bias",
                  "sequential/dense/kernel", "dense/kernel", "dense", "xdense/kernelx"],
    },
    {   # A key equal to the path wins over a regular expression matching it.
        "keys": [["dense/kernel", ["model", None]], [".*kernel", [None, "model"]]],
        "paths": ["dense/kernel", "dense_1/kernel", "dense/bias"],
    },
    {   # Two matching expressions are an error; one is its layout.
        "keys": [["dense.*", ["model"]], [".*kernel", [None, "model"]]],
        "paths": ["dense/kernel", "dense/bias", "conv/kernel", "conv/bias"],
    },
    {   # The whole path must match (re.fullmatch), not a part of it.
        "keys": [["dense", ["model"]], ["kernel", [None, "model"]], ["embed.*", [None, "model"]]],
        "paths": ["dense/kernel", "dense", "kernel", "embedding/embeddings", "my_embedding/embeddings"],
    },
    {   # Classes, repetition, alternation, anchors inside the key.
        "keys": [["dense_[0-9]+/(kernel|bias)", ["model"]], ["^ln/gamma$", ["model"]], ["a.b", [None]]],
        "paths": ["dense_12/bias", "dense_3/kernel", "dense/bias", "dense_1/kernel_x",
                  "ln/gamma", "xln/gamma", "a.b", "axb", "a/b"],
    },
]


def lookup(lm, path):
    try:
        l = lm[path]
    except ValueError as e:
        return {"path": path, "error": str(e).split("\n")[0]}
    return {"path": path, "axes": None if l is None else list(l.axes)}


def sorted_sets(msg):
    """Keras prints Python sets in its messages ({'model', 'batch'}), whose
    order changes with the interpreter's string hash seed: sorted, the
    message is the same in every run."""
    def sort(m):
        items = [i.strip() for i in m.group(1).split(",")]
        return "{" + ", ".join(sorted(items)) + "}"
    return re.sub(r"\{('[^{}]*')\}", sort, msg)


def set_errors():
    mesh = DeviceMesh((2, 2), ("batch", "model"), devices=[f"cpu:{i}" for i in range(4)])
    out = []
    for key, axes, dup in [("k", ("model", "nope"), False), ("k", ("model",), True), ("k2", (None, "batch"), False)]:
        lm = LayoutMap(mesh)
        if dup:
            lm[key] = axes
        try:
            lm[key] = axes
            out.append({"key": key, "axes": list(axes), "duplicate": dup, "ok": True})
        except ValueError as e:
            out.append({"key": key, "axes": list(axes), "duplicate": dup, "ok": False, "error": sorted_sets(str(e).split("\n")[0])})
    return out


def model_paths():
    seq = keras.Sequential([keras.Input((5,)), layers.Embedding(12, 8), layers.LayerNormalization(),
                            layers.Dense(16, activation="relu"), layers.Dense(4)])
    inp = keras.Input((5,))
    x = layers.Embedding(12, 8)(inp)
    x = layers.LayerNormalization()(x)
    x = layers.Dense(4)(x)
    fn = keras.Model(inp, x)
    return {name: [[v.path, list(v.shape)] for v in m.variables] for name, m in [("sequential", seq), ("functional", fn)]}


def main():
    cases = []
    for c in CASES:
        lm = LayoutMap(None)
        for key, axes in c["keys"]:
            lm[key] = TensorLayout(axes)
        cases.append({"keys": c["keys"], "lookups": [lookup(lm, p) for p in c["paths"]]})
    doc = {
        "manifest": {"generator": "tools/keras_reference/distribution_vectors.py", "keras": keras.__version__},
        "cases": cases,
        "set_errors": set_errors(),
        "model_paths": model_paths(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
