"""Shard shapes of Keras 3's ModelParallel on JAX, for
distribute/distribution: which block of every variable and of an input
batch each device of a mesh holds, and which layouts JAX refuses.

Needs JAX, which the pinned TensorFlow environment lacks, so it is not a
*vectors.py script (run_all.py does not run it). Its environment:

    python3 -m venv ~/.cache/gokeras-jax
    ~/.cache/gokeras-jax/bin/pip install -r tools/keras_reference/requirements_jax.txt
    KERAS_BACKEND=jax XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        ~/.cache/gokeras-jax/bin/python tools/keras_reference/distribution_jax_shards.py

Writes distribute/distribution/testdata/jax_shards.json.
"""

import json
import os

os.environ["KERAS_BACKEND"] = "jax"
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers  # noqa: E402
from keras.distribution import (DeviceMesh, LayoutMap, ModelParallel,  # noqa: E402
                                TensorLayout, distribute_tensor, list_devices)

OUT = "distribute/distribution/testdata/jax_shards.json"
AXES = ("batch", "model")
KEYS = [
    [".*embedding.*embeddings", [None, "model"]],
    [".*layer_normalization.*(gamma|beta)", ["model"]],
    [".*dense.*kernel", [None, "model"]],
    [".*dense.*bias", ["model"]],
]


def blocks(arr, mesh):
    """Per device of mesh (row-major), [lo, hi] of every dimension."""
    by_dev = {}
    for s in arr.addressable_shards:
        by_dev[f"{s.device.platform}:{s.device.id}"] = [
            [sl.start or 0, arr.shape[k] if sl.stop is None else sl.stop] for k, sl in enumerate(s.index)]
    return [by_dev[d] for d in np.asarray(mesh.devices).flatten()]


def model():
    return keras.Sequential([keras.Input((5,)), layers.Embedding(12, 8), layers.LayerNormalization(),
                             layers.Dense(16, activation="relu"), layers.Dense(4)])


def put(shape, axes, mesh):
    try:
        arr = distribute_tensor(np.zeros(shape, np.float32), TensorLayout(axes, mesh))
        return {"shape": list(shape), "axes": list(axes), "blocks": blocks(arr, mesh)}
    except Exception as e:  # JAX's refusal, recorded
        return {"shape": list(shape), "axes": list(axes), "error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}


def main():
    devices = list_devices("cpu")
    meshes = []
    for shape in [(1, 2), (2, 1), (2, 2), (1, 4), (4, 1)]:
        n = shape[0] * shape[1]
        mesh = DeviceMesh(shape, AXES, devices=devices[:n])
        lm = LayoutMap(mesh)
        for k, a in KEYS:
            lm[k] = tuple(a)
        dist = ModelParallel(layout_map=lm, batch_dim_name="batch")
        with dist.scope():
            m = model()
        variables = [{"path": v.path, "shape": list(v.shape), "axes": list(dist.get_variable_layout(v).axes),
                      "blocks": blocks(v.value, mesh)} for v in m.variables]
        data = dist.get_data_layout((8, 5))
        batch = jax.device_put(np.zeros((8, 5), np.float32), data.backend_layout)
        tensors = [put(sh, ax, mesh) for sh, ax in [
            ((7, 5), ("batch", None)),            # a batch the data axis does not divide
            ((6, 4), ("model",)),                 # fewer axes than dimensions
            ((4,), (None, "model")),              # more axes than dimensions
            ((6, 3), (None, "model")),            # 3 columns on the model axis
            ((4, 4), ("model", "model")),         # one mesh axis twice
            ((4, 6), ("batch", "model")),
        ]]
        meshes.append({"shape": list(shape), "axis_names": list(AXES), "devices": list(np.asarray(mesh.devices).flatten()),
                       "variables": variables, "data": {"shape": [8, 5], "axes": list(data.axes), "blocks": blocks(batch, mesh)},
                       "tensors": tensors})
    doc = {"manifest": {"generator": "tools/keras_reference/distribution_jax_shards.py", "keras": keras.__version__,
                        "jax": jax.__version__},
           "keys": KEYS, "meshes": meshes}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
