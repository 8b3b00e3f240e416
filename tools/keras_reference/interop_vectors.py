"""Writes Keras-saved models for gokeras' interop tests (Python -> Go).

With real Keras 3 it builds the seed models gokeras' examples train, saves
each as a .keras archive (and the CNN also as a legacy Keras 2 whole-model
.h5, the functional model also as a legacy weights-only .h5), and writes a
fixed input batch with Keras' predictions beside them. The Go tests
(keras/saving_interop_test.go) load every file with keras.LoadModel or
Model.LoadWeights and must predict the same outputs (relative 1e-5).

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/interop_vectors.py

writes keras/testdata/interop/ (relative to the current directory, as
run_all.py expects). Models:

- cnn: examples/mnist_cnn's model exactly (Conv2D 32/64, Dense 128, 10
  logits), compiled with Adam but not trained (its file stays ~0.9 MB).
- resnet: the structure of examples/resnet_cifar10's seed ResNet (7x7 stem,
  six residual blocks with BatchNormalization, global average pooling, 10
  logits) with 8x fewer filters (8, 8, 16, 16, 32, 32 instead of 64 ... 256)
  so that the file stays small; trained 2 steps with Adam so that the moving
  statistics and the optimizer's slots are not their initial values.
- two_io: a functional model with two inputs and two outputs (Dense,
  Concatenate, BatchNormalization, a softmax head and a linear head),
  trained 2 steps with Adam.
- rnn: LSTM, TimeDistributed(Dense), GRU and Bidirectional(LSTM) (Keras
  keeps their weights below the layer: lstm/cell/vars,
  bidirectional/forward_layer/cell/vars, time_distributed/layer/vars),
  trained 2 steps with Adam.
- nested: a functional model calling a nested Sequential
  (BatchNormalization, Dense) and a nested functional model (saved below
  layers/sequential/layers/... and layers/functional/layers/...).
- attention: MultiHeadAttention (Keras keeps its projections in sublayers:
  multi_head_attention/query_dense/vars, ...), Attention, AdditiveAttention.

Files are made reproducible: the archive members get a fixed date and
metadata.json a fixed date_saved, so that reruns give the same bytes.
A new model joins MODELS here and interopModels in
keras/saving_interop_test.go.
"""

import io
import json
import os
import sys
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402
from keras.src.legacy.saving import legacy_h5_format  # noqa: E402

SEED = 20261124
OUT = os.path.join("keras", "testdata", "interop")
FIXED_DATE = "2026-01-01@00:00:00"


def manifest():
    return {
        "generator": "tools/keras_reference/interop_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "h5py": __import__("h5py").__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
    }


def arr(a):
    a = np.asarray(a, dtype=np.float32)
    return {"shape": list(a.shape), "data": [float(v) for v in a.reshape(-1)]}


def cnn():
    m = keras.Sequential([
        keras.Input((28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(128, activation="relu"),
        layers.Dense(10),
    ])
    m.compile(optimizer=keras.optimizers.Adam(),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m, [(3, 28, 28, 1)], None


def resnet_block(x, filters, kernel_size, stride, conv_shortcut):
    shortcut = x
    if conv_shortcut:
        shortcut = layers.Conv2D(filters, 1, strides=stride)(shortcut)
        shortcut = layers.BatchNormalization()(shortcut)
    x = layers.Conv2D(filters, kernel_size, strides=stride, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.Conv2D(filters, kernel_size, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Add()([x, shortcut])
    return layers.ReLU()(x)


def resnet():
    inputs = keras.Input((32, 32, 3))
    x = layers.Conv2D(8, 7, strides=2, padding="same")(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    x = resnet_block(x, 8, 3, 1, True)
    x = resnet_block(x, 8, 3, 1, False)
    x = resnet_block(x, 16, 3, 2, True)
    x = resnet_block(x, 16, 3, 1, False)
    x = resnet_block(x, 32, 3, 2, True)
    x = resnet_block(x, 32, 3, 1, False)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(10)(x)
    m = keras.Model(inputs, outputs)
    m.compile(optimizer=keras.optimizers.Adam(),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

    def train(rng):
        x = rng.normal(size=(8, 32, 32, 3)).astype(np.float32) * 2 + 1
        y = rng.integers(0, 10, size=(8,))
        m.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    return m, [(3, 32, 32, 3)], train


def two_io():
    a = keras.Input((6,), name="a")
    b = keras.Input((5,), name="b")
    x = layers.Concatenate()([layers.Dense(8, activation="relu")(a), layers.Dense(4)(b)])
    x = layers.BatchNormalization()(x)
    cls = layers.Dense(3, activation="softmax", name="cls")(x)
    reg = layers.Dense(1, name="reg")(x)
    m = keras.Model([a, b], [cls, reg])
    m.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01),
              loss=[keras.losses.SparseCategoricalCrossentropy(), keras.losses.MeanSquaredError()])

    def train(rng):
        xa = rng.normal(size=(8, 6)).astype(np.float32) + 3
        xb = rng.normal(size=(8, 5)).astype(np.float32)
        y1 = rng.integers(0, 3, size=(8,))
        y2 = rng.normal(size=(8, 1)).astype(np.float32)
        m.fit([xa, xb], [y1, y2], batch_size=4, epochs=1, shuffle=False, verbose=0)
    return m, [(3, 6), (3, 5)], train


def rnn():
    m = keras.Sequential([
        keras.Input((5, 3)),
        layers.LSTM(4, return_sequences=True),
        layers.TimeDistributed(layers.Dense(3)),
        layers.GRU(2, return_sequences=True),
        layers.Bidirectional(layers.LSTM(3)),
        layers.Dense(2),
    ])
    m.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="mse")

    def train(rng):
        x = rng.normal(size=(8, 5, 3)).astype(np.float32)
        y = rng.normal(size=(8, 2)).astype(np.float32)
        m.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    return m, [(3, 5, 3)], train


def nested():
    # BatchNormalization first: a bias right before it would get a
    # gradient of rounding noise only, which Adam scales up (the check of
    # one more step would compare noise).
    inner_seq = keras.Sequential([keras.Input((4,)), layers.BatchNormalization(),
                                  layers.Dense(5, activation="relu")], name="inner_seq")
    i = keras.Input((5,))
    inner_fn = keras.Model(i, layers.Dense(3)(i), name="inner_fn")
    x = keras.Input((4,))
    m = keras.Model(x, inner_fn(inner_seq(x)))
    m.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="mse")

    def train(rng):
        xs = rng.normal(size=(8, 4)).astype(np.float32) + 2
        ys = rng.normal(size=(8, 3)).astype(np.float32)
        m.fit(xs, ys, batch_size=4, epochs=1, shuffle=False, verbose=0)
    return m, [(3, 4)], train


def attention():
    q = keras.Input((5, 3), name="q")
    v = keras.Input((4, 3), name="v")
    mha = layers.MultiHeadAttention(2, 3, value_dim=4)(q, v)
    dot = layers.Attention(use_scale=True)([q, v])
    add = layers.AdditiveAttention()([q, v])
    m = keras.Model([q, v], [mha, dot, add])
    m.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss=["mse", "mse", "mse"])

    def train(rng):
        xq = rng.normal(size=(8, 5, 3)).astype(np.float32)
        xv = rng.normal(size=(8, 4, 3)).astype(np.float32)
        ys = [rng.normal(size=(8, 5, 3)).astype(np.float32) for _ in range(3)]
        m.fit([xq, xv], ys, batch_size=4, epochs=1, shuffle=False, verbose=0)
    return m, [(3, 5, 3), (3, 4, 3)], train


# name -> (builder, legacy files to write besides the .keras)
MODELS = {
    "cnn": (cnn, ["legacy_model"]),
    "resnet": (resnet, []),
    "two_io": (two_io, ["legacy_weights", "legacy_model"]),
    "rnn": (rnn, []),  # LSTM, TimeDistributed, GRU, Bidirectional
    "nested": (nested, []),  # a Sequential and a functional model as layers
    "attention": (attention, []),  # MultiHeadAttention (EinsumDense sublayers), Attention, AdditiveAttention
}


def renumber_shared_ids(cfg):
    """Replaces Keras' shared_object_id values (object addresses, which
    change from run to run) by 1, 2, ... in order of appearance, keeping
    which objects are shared."""
    ids = {}

    def walk(v):
        if isinstance(v, dict):
            for k in v:
                if k == "shared_object_id":
                    v[k] = ids.setdefault(v[k], len(ids) + 1)
                else:
                    walk(v[k])
        elif isinstance(v, list):
            for e in v:
                walk(e)
    walk(cfg)
    return cfg


def h5_tree(path):
    """Keras' own model.weights.h5 of a .keras archive: every group and
    every dataset (with its shape), so that the Go tests can compare the
    paths gokeras computes with Keras' without reading HDF5."""
    import h5py
    out = []
    with zipfile.ZipFile(path) as z:
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    out.append({"path": name, "shape": list(obj.shape), "dtype": str(obj.dtype)})
                else:
                    out.append({"path": name, "group": True, "name": str(obj.attrs.get("name", ""))})
            f.visititems(visit)
    return out


# Batches for one more training step after saving (models trained with
# Adam and MSE), to check that the optimizer's state loads in Keras' order.
CONTINUE = {
    "rnn": lambda rng: ([rng.normal(size=(4, 5, 3)).astype(np.float32)], [rng.normal(size=(4, 2)).astype(np.float32)]),
    "nested": lambda rng: ([rng.normal(size=(4, 4)).astype(np.float32) + 2], [rng.normal(size=(4, 3)).astype(np.float32)]),
}


def reproducible_keras(path):
    """Rewrites a .keras archive with fixed member dates and date_saved,
    and shared_object_id renumbered."""
    with zipfile.ZipFile(path) as z:
        members = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members:
            if name == "metadata.json":
                meta = json.loads(data)
                meta["date_saved"] = FIXED_DATE
                data = json.dumps(meta).encode()
            elif name == "config.json":
                data = json.dumps(renumber_shared_ids(json.loads(data))).encode()
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if name.endswith(".h5") else zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    for k, (name, (build, legacy)) in enumerate(MODELS.items()):
        keras.backend.clear_session()
        keras.utils.set_random_seed(SEED + k)
        rng = np.random.default_rng(SEED + k)
        model, input_shapes, train = build()
        if train is not None:
            train(rng)
        xs = [rng.normal(size=s).astype(np.float32) for s in input_shapes]
        ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        if not isinstance(ys, (list, tuple)):
            ys = [ys]
        path = os.path.join(OUT, name + ".keras")
        model.save(path)
        reproducible_keras(path)
        files = {"keras": name + ".keras"}
        if "legacy_model" in legacy:
            p = os.path.join(OUT, name + "_legacy.h5")
            legacy_h5_format.save_model_to_hdf5(model, p, include_optimizer=False)
            files["legacy_model"] = os.path.basename(p)
        if "legacy_weights" in legacy:
            import h5py
            p = os.path.join(OUT, name + "_legacy.weights.h5")
            with h5py.File(p, "w") as f:
                legacy_h5_format.save_weights_to_hdf5_group(f, model)
            files["legacy_weights"] = os.path.basename(p)
        if name in CONTINUE:
            # The legacy .h5 with the optimizer's state (Keras' default,
            # include_optimizer=True): optimizer_weights, which gokeras
            # resumes from as from the .keras file. (Keras 3.15.1's own
            # loader cannot: it builds the optimizer for no variables and
            # its next fit raises "Unknown variable".)
            p = os.path.join(OUT, name + "_legacy_optimizer.h5")
            legacy_h5_format.save_model_to_hdf5(model, p, include_optimizer=True)
            files["legacy_model_optimizer"] = os.path.basename(p)
        case = {
            "name": name,
            "files": files,
            "inputs": [arr(x) for x in xs],
            "outputs": [arr(y) for y in ys],
            "h5": h5_tree(path),
        }
        if name in CONTINUE:
            # One more step from the saved state (weights and optimizer):
            # what gokeras must reach after loading the file.
            bx, by = CONTINUE[name](rng)
            model.fit(bx if len(bx) > 1 else bx[0], by if len(by) > 1 else by[0],
                      batch_size=bx[0].shape[0], epochs=1, shuffle=False, verbose=0)
            after = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
            case["continue"] = {
                "x": [arr(a) for a in bx], "y": [arr(a) for a in by],
                "outputs": [arr(a) for a in (after if isinstance(after, (list, tuple)) else [after])],
            }
        cases.append(case)
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
