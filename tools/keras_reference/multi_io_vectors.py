"""Writes keras/testdata/multi_io/multi_io.json and nested.json.

multi_io.json: Keras 3's fit, evaluate
and predict of a small two-input two-output functional model, with the
inputs and labels given as dicts by name and as lists, losses, loss
weights, metrics and per-output sample weights given as dicts by output
name, and steps_per_execution, for gokeras' Go tests
(keras/multi_io_keras_test.go).

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/multi_io_vectors.py

The model: inputs "a" (4,) and "b" (3,); Dense "ha" (5, relu) on a, Dense
"hb" (5, tanh) on b, Concatenate "concat", then Dense "out_a" (3, softmax)
and Dense "out_b" (1). Weights are given (float32, from a seeded
generator), training is SGD with shuffle=False. Each case records the
History keys and values of fit, the logs of evaluate after it, predict's
two outputs and the trained weights by layer name. Arrays are flattened
row-major beside their shapes.

nested.json: a functional model that calls a nested Sequential and a
nested functional model on one input (an ensemble), with and without the
nested functional model frozen: the layer rows of model.layers (name,
class, count_params), the trainable and non-trainable parameter totals,
the History of fit and the trained weights of every leaf layer
(keras/nested_keras_test.go).
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

SEED = 20261124 + 15
OUT = "keras/testdata/multi_io/multi_io.json"
NESTED_OUT = "keras/testdata/multi_io/nested.json"
N, NV = 10, 6


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float32).reshape(-1)]


def build():
    a = keras.Input((4,), name="a")
    b = keras.Input((3,), name="b")
    ha = keras.layers.Dense(5, activation="relu", name="ha")(a)
    hb = keras.layers.Dense(5, activation="tanh", name="hb")(b)
    h = keras.layers.Concatenate(name="concat")([ha, hb])
    out_a = keras.layers.Dense(3, activation="softmax", name="out_a")(h)
    out_b = keras.layers.Dense(1, name="out_b")(h)
    return keras.Model([a, b], [out_a, out_b], name="two_in_two_out")


def data(rng, n):
    xa = rng.standard_normal((n, 4)).astype(np.float32)
    xb = rng.standard_normal((n, 3)).astype(np.float32)
    ya = rng.integers(0, 3, size=(n,)).astype(np.float32)
    yb = rng.standard_normal((n, 1)).astype(np.float32)
    return xa, xb, ya, yb


def layer_weights(model):
    return {l.name: [flat(w) for w in l.get_weights()] for l in model.layers if l.get_weights()}


def case(name, rng, form, sample_weight=False, steps_per_execution=1, epochs=2, batch_size=4, lr=0.1):
    xa, xb, ya, yb = data(rng, N)
    vxa, vxb, vya, vyb = data(rng, NV)
    model = build()
    init = []
    for l in model.layers:
        for w in l.get_weights():
            init.append((rng.standard_normal(w.shape) * 0.5).astype(np.float32))
    model.set_weights(init)
    initial = layer_weights(model)
    compile_args = dict(optimizer=keras.optimizers.SGD(learning_rate=lr), steps_per_execution=steps_per_execution)
    if form == "dict":
        compile_args.update(
            loss={"out_a": "sparse_categorical_crossentropy", "out_b": "mse"},
            loss_weights={"out_a": 1.0, "out_b": 0.5},
            metrics={"out_a": ["accuracy"], "out_b": ["mae"]})
        x, y = {"a": xa, "b": xb}, {"out_a": ya, "out_b": yb}
        val = ({"a": vxa, "b": vxb}, {"out_a": vya, "out_b": vyb})
    else:
        compile_args.update(
            loss=["sparse_categorical_crossentropy", "mse"],
            loss_weights=[1.0, 0.5],
            metrics=[["accuracy"], ["mae"]])
        x, y = [xa, xb], [ya, yb]
        val = ([vxa, vxb], [vya, vyb])
    sw = None
    if sample_weight:
        sw = {"out_a": rng.uniform(0, 2, size=(N,)).astype(np.float32),
              "out_b": rng.uniform(0, 2, size=(N,)).astype(np.float32)}
        sw["out_a"][1] = 0.0
        compile_args["weighted_metrics"] = {"out_a": [], "out_b": ["mse"]}
    model.compile(**compile_args)
    # Keras 3.15 resolves sample weights along the structure of the
    # model's outputs (a list here) and checks them against that of y, so
    # per-output weights need y and themselves as lists.
    swl = None if sw is None else [sw["out_a"], sw["out_b"]]
    hist = model.fit(x, y, sample_weight=swl, validation_data=val, batch_size=batch_size,
                     epochs=epochs, shuffle=False, verbose=0)
    ev = model.evaluate(x, y, sample_weight=swl, batch_size=batch_size, verbose=0, return_dict=True)
    pa, pb = model.predict(x, batch_size=batch_size, verbose=0)
    c = {
        "name": name, "form": form, "lr": lr, "batch_size": batch_size, "epochs": epochs,
        "steps_per_execution": steps_per_execution,
        "xa": flat(xa), "xb": flat(xb), "ya": flat(ya), "yb": flat(yb),
        "val_xa": flat(vxa), "val_xb": flat(vxb), "val_ya": flat(vya), "val_yb": flat(vyb),
        "initial_weights": initial,
        "history_keys": list(hist.history.keys()),
        "history": {k: [float(v) for v in vs] for k, vs in hist.history.items()},
        "evaluate": {k: float(v) for k, v in ev.items()},
        "predict_a": flat(pa), "predict_b": flat(pb),
        "final_weights": layer_weights(model),
    }
    if sw is not None:
        c["sample_weight_a"], c["sample_weight_b"] = flat(sw["out_a"]), flat(sw["out_b"])
    return c


def leaf_layers(model):
    out = []
    for l in model.layers:
        if isinstance(l, keras.Model):
            out.extend(leaf_layers(l))
        else:
            out.append(l)
    return out


def leaf_weights(model):
    return {l.name: [flat(w) for w in l.get_weights()] for l in leaf_layers(model) if l.get_weights()}


def nested_case(name, rng, freeze_branch=False, epochs=2, batch_size=4, lr=0.1):
    """A functional model calling a nested Sequential ("inner") and a
    nested functional model ("branch") on one input, their outputs added,
    then a Dense head: an ensemble of two models as layers."""
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="relu", name="inner_d1"),
                              keras.layers.Dense(3, name="inner_d2")], name="inner")
    bi = keras.Input((4,), name="branch_in")
    branch = keras.Model(bi, keras.layers.Dense(3, activation="tanh", name="branch_d")(bi), name="branch")
    x = keras.Input((4,), name="x")
    y = keras.layers.Add(name="add")([inner(x), branch(x)])
    out = keras.layers.Dense(2, activation="softmax", name="head")(y)
    model = keras.Model(x, out, name="ensemble")
    for l in leaf_layers(model):
        l.set_weights([(rng.standard_normal(w.shape) * 0.5).astype(np.float32) for w in l.get_weights()])
    initial = leaf_weights(model)
    if freeze_branch:
        branch.trainable = False
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=lr), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    n = 10
    xs = rng.standard_normal((n, 4)).astype(np.float32)
    ys = rng.integers(0, 2, size=(n,)).astype(np.float32)
    hist = model.fit(xs, ys, batch_size=batch_size, epochs=epochs, shuffle=False, verbose=0)
    return {
        "name": name, "covers": ["Sequential", "Functional"], "freeze_branch": freeze_branch,
        "lr": lr, "batch_size": batch_size, "epochs": epochs,
        "x": flat(xs), "y": flat(ys),
        "layers": [[l.name, l.__class__.__name__, int(l.count_params())] for l in model.layers],
        "trainable_params": int(sum(np.prod(w.shape) for w in model.trainable_weights)),
        "non_trainable_params": int(sum(np.prod(w.shape) for w in model.non_trainable_weights)),
        "initial_weights": initial,
        "history": {k: [float(v) for v in vs] for k, vs in hist.history.items()},
        "predict": flat(model.predict(xs, verbose=0)),
        "final_weights": leaf_weights(model),
    }


def manifest():
    return {
        "generator": "tools/keras_reference/multi_io_vectors.py",
        "tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__,
        "python": sys.version.split()[0], "seed": SEED, "dtype": "float32",
    }


def main():
    keras.utils.set_random_seed(SEED)
    cases = [
        case("dict", np.random.default_rng(SEED), "dict"),
        case("list", np.random.default_rng(SEED + 1), "list"),
        case("list_sample_weight", np.random.default_rng(SEED + 2), "list", sample_weight=True),
        # The same data and weights as "dict": steps_per_execution changes
        # how often logs reach callbacks, not the numbers.
        case("dict_steps_per_execution", np.random.default_rng(SEED), "dict", steps_per_execution=2),
    ]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote", OUT, len(cases), "cases")
    nested = [
        nested_case("ensemble", np.random.default_rng(SEED + 3)),
        nested_case("ensemble_frozen_branch", np.random.default_rng(SEED + 4), freeze_branch=True),
    ]
    with open(NESTED_OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": nested}, f, indent=1)
        f.write("\n")
    print("wrote", NESTED_OUT, len(nested), "cases")


if __name__ == "__main__":
    main()
