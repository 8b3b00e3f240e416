"""Checks that Python Keras reads the files gokeras writes (gokeras -> Keras).

    GOKERAS_INTEROP_OUT=/tmp/interop go test ./keras/ -run TestInteropWriteForKeras
    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/interop_check.py /tmp/interop

For every <name>.json the Go test wrote beside <name>.keras and
<name>.weights.h5 (an input batch and gokeras' predictions), it:

1. loads <name>.keras with keras.saving.load_model and predicts the batch:
   equal to gokeras' predictions within relative 1e-5 (absolute below
   magnitude 1);
2. compares the HDF5 tree of gokeras' model.weights.h5 with the one Keras
   itself writes when it saves the model it loaded: the same groups, and
   every dataset at Keras' path with Keras' shape and dtype;
3. checks that the optimizer's variables were loaded (Keras skips them with
   a warning when their count differs): every optimizer variable equals
   the file's;
4. loads <name>.weights.h5 into the loaded model with load_weights and
   predicts the same outputs again;
5. loads <name>_legacy.h5 (the legacy Keras 2 format gokeras writes for
   a .h5 name), where the case lists one, and predicts the same outputs;
   (the case "subclass" is a subclassed model, class InteropNet below,
   which has no legacy file)
6. where the case has one (Continue), trains the loaded model one more
   step on gokeras' batch and predicts gokeras' outputs after that step:
   the optimizer's state (step count, learning rate, slots) means to
   Keras what it meant to gokeras.

A case may name a global dtype policy (Policy: the files of a model
gokeras compiled under mixed_float16 load under it, as Keras wraps the
optimizer of a loaded model in a LossScaleOptimizer only then), a
tolerance (RTol, for float16 computation) and a LossScaleOptimizer's
state (LossScale, LossScaleAfter: the step count, step_counter and
dynamic_scale gokeras saved and had after the Continue step): the loaded
optimizer must be a LossScaleOptimizer holding it, load_weights must
restore it into a model whose scale was reset, and Keras' own step must
reach gokeras' state after it.

Exits non-zero on the first model that fails, naming it and what differs.
"""

import glob
import io
import json
import os
import sys
import tempfile
import warnings
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import keras  # noqa: E402

RTOL = 1e-5


class InteropNet(keras.Model):
    """The subclassed model of gokeras' interop case "subclass"
    (keras/saving_interop_test.go interopNet): its layers in attributes of
    the Go type's field names, its constructor's argument in its config."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = keras.layers.Dense(units, activation="relu")
        self.out = keras.layers.Dense(2)

    def call(self, x):
        return self.out(self.hidden(x))

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "units": self.units}


# gokeras writes a subclassed model's registered name as its Go type's
# name; load_model finds the class under it.
keras.saving.get_custom_objects()["interopNet"] = InteropNet


def tree(h5):
    """{path: ("group", attrs) or ("dataset", shape, dtype)} of an h5py file."""
    out = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            out[name] = ("dataset", tuple(obj.shape), str(obj.dtype))
        else:
            out[name] = ("group", tuple(sorted((k, str(v)) for k, v in obj.attrs.items())))
    h5.visititems(visit)
    return out


def weights_h5(path):
    with zipfile.ZipFile(path) as z:
        return h5py.File(io.BytesIO(z.read("model.weights.h5")), "r")


def close(what, got, want, rtol=None):
    rtol = RTOL if rtol is None else rtol
    got = np.asarray(got, np.float32).reshape(-1)
    want = np.asarray(want, np.float32).reshape(-1)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: {got.size} values, gokeras {want.size}")
    d = np.abs(got.astype(np.float64) - want) / np.maximum(1, np.abs(want))
    worst = float(d.max()) if d.size else 0.0
    if not np.all(d <= rtol):
        i = int(np.argmax(d))
        raise AssertionError(f"{what}[{i}] = {got[i]}, gokeras {want[i]} (relative {worst:.3g})")
    return worst


def predict(model, inputs):
    xs = [np.asarray(a["Data"], np.float32).reshape(a["Shape"]) for a in inputs]
    ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
    return ys if isinstance(ys, (list, tuple)) else [ys]


def loss_scale_state(opt):
    """(inner iterations, step_counter, dynamic_scale) of a LossScaleOptimizer."""
    if not isinstance(opt, keras.optimizers.LossScaleOptimizer):
        raise AssertionError(f"optimizer {type(opt).__name__}, gokeras saved a LossScaleOptimizer")
    return (int(opt.inner_optimizer.iterations), int(opt.step_counter), float(opt.dynamic_scale))


def check_loss_scale(what, opt, want):
    got = loss_scale_state(opt)
    exp = (want["Iterations"], want["StepCounter"], want["DynamicScale"])
    if got != exp:
        raise AssertionError(f"{what}: (iterations, step_counter, dynamic_scale) {got}, gokeras {exp}")


def check(dir_, case):
    policy = case.get("Policy")
    if not policy:
        return check_case(dir_, case)
    keras.mixed_precision.set_global_policy(policy)
    try:
        return check_case(dir_, case)
    finally:
        keras.mixed_precision.set_global_policy("float32")


def check_case(dir_, case):
    name = case["Name"]
    rtol = case.get("RTol") or RTOL
    lso = ""
    path = os.path.join(dir_, case["Files"]["keras"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # "Skipping variable loading for optimizer" fails
        model = keras.saving.load_model(path)
    ys = predict(model, case["Inputs"])
    if len(ys) != len(case["Outputs"]):
        raise AssertionError(f"{len(ys)} outputs, gokeras {len(case['Outputs'])}")
    worst = max(close(f"output {i}", y, o["Data"], rtol) for i, (y, o) in enumerate(zip(ys, case["Outputs"])))
    if case.get("LossScale"):
        check_loss_scale("loaded LossScaleOptimizer", model.optimizer, case["LossScale"])

    ours = weights_h5(path)
    with tempfile.TemporaryDirectory() as tmp:
        ref_path = os.path.join(tmp, "ref.keras")
        model.save(ref_path)
        ref = weights_h5(ref_path)
        a, b = tree(ours), tree(ref)
        for p in sorted(set(a) | set(b)):
            if p not in a:
                raise AssertionError(f"Keras writes {p} {b[p]}, gokeras' file lacks it")
            if p not in b:
                raise AssertionError(f"gokeras writes {p} {a[p]}, Keras has no such path")
            if a[p][0] != b[p][0] or (a[p][0] == "dataset" and a[p][1:] != b[p][1:]):
                raise AssertionError(f"{p}: gokeras {a[p]}, Keras {b[p]}")
        n_vars = sum(1 for v in a.values() if v[0] == "dataset")
        if "optimizer/vars" in ours:
            g = ours["optimizer/vars"]
            ov = model.optimizer.variables
            if len(g) != len(ov):
                raise AssertionError(f"optimizer: file has {len(g)} variables, Keras' optimizer {len(ov)}")
            for i, v in enumerate(ov):
                close(f"optimizer/vars/{i} ({v.path})", np.asarray(v.numpy(), np.float32), np.asarray(g[str(i)][()], np.float32))
    wpath = os.path.join(dir_, case["Files"]["weights"])
    fresh = keras.saving.load_model(path, compile=False)
    for v in fresh.weights:
        v.assign(np.zeros(v.shape, v.dtype))
    fresh.load_weights(wpath)
    ys = predict(fresh, case["Inputs"])
    for i, (y, o) in enumerate(zip(ys, case["Outputs"])):
        close(f"load_weights output {i}", y, o["Data"], rtol)
    if case.get("LossScale"):
        # load_weights restores the loss scale's state into a compiled
        # model whose state was reset.
        other = keras.saving.load_model(path)
        other.optimizer.dynamic_scale.assign(1.0)
        other.optimizer.step_counter.assign(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            other.load_weights(wpath)
        check_loss_scale("LossScaleOptimizer after load_weights", other.optimizer, case["LossScale"])
        s = case["LossScale"]
        lso = f"; LossScaleOptimizer state (step_counter {s['StepCounter']}, dynamic_scale {s['DynamicScale']:g}) loaded from .keras and .weights.h5"
    legacy = ""
    if case["Files"].get("legacy"):
        # The legacy Keras 2 .h5 model gokeras' Save writes for a .h5 name.
        lm = keras.saving.load_model(os.path.join(dir_, case["Files"]["legacy"]))
        for i, (y, o) in enumerate(zip(predict(lm, case["Inputs"]), case["Outputs"])):
            close(f"legacy .h5 output {i}", y, o["Data"], rtol)
        legacy = "; legacy .h5 ok"
    cont = ""
    if case.get("Continue"):
        c = case["Continue"]
        xs = [np.asarray(a["Data"], np.float32).reshape(a["Shape"]) for a in c["X"]]
        ys_ = [np.asarray(a["Data"], np.float32).reshape(a["Shape"]) for a in c["Y"]]

        def one_more_step(what, m):
            m.fit(xs if len(xs) > 1 else xs[0], ys_ if len(ys_) > 1 else ys_[0],
                  batch_size=xs[0].shape[0], epochs=1, shuffle=False, verbose=0)
            after = predict(m, case["Inputs"])
            return max(close(f"{what}after one more step, output {i}", y, o["Data"], rtol) for i, (y, o) in enumerate(zip(after, c["Outputs"])))

        w = one_more_step("", model)
        if case.get("LossScaleAfter"):
            check_loss_scale("LossScaleOptimizer after one more step", model.optimizer, case["LossScaleAfter"])
        cont = f"; one more {type(model.optimizer).__name__} step as gokeras' (worst relative {w:.3g})"
        if case["Files"].get("legacy") and not case.get("LossScale"):
            # The legacy .h5 keeps the optimizer's state too
            # (optimizer_weights, as Keras writes it): restored as Keras'
            # legacy loader means to (build the optimizer for the model's
            # trainable variables, then set_weights in order), the next
            # step is gokeras'. Keras 3.15.1's load_model itself builds the
            # optimizer for no variables (model._trainable_variables), so
            # its next fit raises "Unknown variable" on its own files too.
            from keras.src.legacy.saving import legacy_h5_format
            lpath = os.path.join(dir_, case["Files"]["legacy"])
            lm = keras.saving.load_model(lpath, compile=False)
            with h5py.File(lpath, "r") as f:
                tc = json.loads(f.attrs["training_config"])
                vals = legacy_h5_format.load_optimizer_weights_from_hdf5_group(f)
                vals = [np.asarray(v) for v in vals]
            lm.compile(optimizer=keras.optimizers.deserialize(tc["optimizer_config"]), loss=model.loss)
            lm.optimizer.build(lm.trainable_variables)
            if len(vals) != len(lm.optimizer.variables):
                raise AssertionError(f"legacy .h5: optimizer_weights holds {len(vals)} values, Keras' optimizer has {len(lm.optimizer.variables)}")
            lm.optimizer.set_weights(vals)
            w = one_more_step("legacy .h5: ", lm)
            cont += f"; and from the legacy .h5's optimizer_weights (worst relative {w:.3g})"
    print(f"ok    {name}: Keras predicts gokeras' outputs (worst relative {worst:.3g}); "
          f"{n_vars} datasets at Keras' paths and shapes; load_weights ok{legacy}{lso}{cont}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: interop_check.py DIR (written by GOKERAS_INTEROP_OUT=DIR go test ./keras/ -run TestInteropWriteForKeras)")
    dir_ = sys.argv[1]
    cases = sorted(glob.glob(os.path.join(dir_, "*.json")))
    if not cases:
        sys.exit(f"interop_check.py: no *.json in {dir_}")
    failed = 0
    for p in cases:
        with open(p) as f:
            case = json.load(f)
        try:
            check(dir_, case)
        except Exception as e:  # report every model, then fail
            failed += 1
            print(f"FAIL  {case.get('Name', p)}: {type(e).__name__}: {e}")
    if failed:
        sys.exit(f"interop_check.py: {failed} of {len(cases)} models failed")


if __name__ == "__main__":
    main()
