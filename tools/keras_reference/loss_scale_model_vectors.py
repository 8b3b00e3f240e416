"""Writes whole models Keras 3 saved under mixed_float16 with their
LossScaleOptimizer's state (issue 16), for keras/mixed_saving_keras_test.go:

  keras/testdata/keras/mixed_float16_lso_auto.keras
      a small model compiled with Adam under the mixed_float16 global
      policy (Keras' compile wraps it in a LossScaleOptimizer), after four
      fit steps of batch 2, the second batch beyond float16's range (that
      step is skipped and the scale halved);
  keras/testdata/keras/mixed_float16_lso_explicit.keras
      the same model compiled with an explicit
      LossScaleOptimizer(SGD(momentum=0.9), initial_scale=256,
      dynamic_growth_steps=2), after the same four steps (one halving, one
      doubling), so that the compile config holds the LossScaleOptimizer;
  keras/testdata/keras/mixed_float16_lso_models.json
      for each: the batches, the optimizer's state as Keras reports it
      (iterations, step_counter, dynamic_scale, every optimizer variable
      by path with its value), the compile config's optimizer, and after
      one more fit step on a further batch the weights, the optimizer's
      variables and the predictions on that batch (the training inputs
      hold one that overflows float16).

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/loss_scale_model_vectors.py
"""

import json
import os
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import keras  # noqa: E402

OUT = "keras/testdata/keras"

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75],
              [1e5, 1.0, 0.125], [0.0, 3.0, -1.0],
              [-0.5, 0.5, 1.0], [2.0, -2.0, 0.25],
              [1.0, 1.0, 1.0], [-1.0, 0.0, 0.5]], dtype=np.float32)
Y = np.array([[1, 0], [0, 1], [1, 0], [0, 1],
              [0, 1], [1, 0], [1, 0], [0, 1]], dtype=np.float32)
X1 = np.array([[0.25, 0.75, -0.5], [-1.25, 0.5, 0.0]], dtype=np.float32)
Y1 = np.array([[0, 1], [1, 0]], dtype=np.float32)


def model():
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu"),
        keras.layers.Dense(2),
        keras.layers.Activation("softmax", dtype="float32"),
    ])


def opt_vars(opt):
    return [{"path": v.path, "shape": list(v.shape),
             "values": np.asarray(v.numpy(), np.float64).reshape(-1).tolist()}
            for v in opt.variables]


def state(m):
    opt = m.optimizer
    return {
        "iterations": int(opt.iterations),
        "inner_iterations": int(opt.inner_optimizer.iterations),
        "step_counter": int(opt.step_counter),
        "dynamic_scale": float(opt.dynamic_scale),
        "optimizer_variables": opt_vars(opt),
        "weights": [np.asarray(w.numpy(), np.float64).reshape(-1).tolist() for w in m.weights],
    }


def case(name, optimizer):
    keras.utils.set_random_seed(7)
    m = model()
    m.compile(optimizer=optimizer, loss="categorical_crossentropy")
    m.fit(X, Y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    path = os.path.join(OUT, f"mixed_float16_lso_{name}.keras")
    m.save(path)
    with zipfile.ZipFile(path) as z:
        compiled = json.loads(z.read("config.json"))["compile_config"]["optimizer"]
    saved = state(m)
    m.fit(X1, Y1, batch_size=2, epochs=1, shuffle=False, verbose=0)
    after = state(m)
    after["predictions"] = np.asarray(m.predict(X1, verbose=0), np.float64).reshape(-1).tolist()
    return {
        "name": name,
        "file": os.path.basename(path),
        "optimizer": type(m.optimizer).__name__,
        "inner_optimizer": type(m.optimizer.inner_optimizer).__name__,
        "compile_optimizer": compiled,
        "saved": saved,
        "after_one_more_step": after,
    }


def main():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        os.makedirs(OUT, exist_ok=True)
        cases = [
            case("auto", keras.optimizers.Adam(0.01)),
            case("explicit", keras.optimizers.LossScaleOptimizer(
                keras.optimizers.SGD(0.05, momentum=0.9), initial_scale=256.0, dynamic_growth_steps=2)),
        ]
    finally:
        keras.mixed_precision.set_global_policy("float32")
    res = {
        "x": X.reshape(-1).tolist(), "y": Y.reshape(-1).tolist(),
        "x1": X1.reshape(-1).tolist(), "y1": Y1.reshape(-1).tolist(),
        "cases": cases,
    }
    with open(os.path.join(OUT, "mixed_float16_lso_models.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
