"""Writes the saved state of Keras 3's LossScaleOptimizer (issue 16):

  keras/testdata/keras/mixed_float16_lso.weights.h5 (+ mixed_float16_lso.json)
      a small model compiled under mixed_float16 (Keras wraps its Adam in
      a LossScaleOptimizer) after four fit steps of batch 2, the second
      batch holding a value beyond float16's range (the step is skipped
      and the scale halved), saved by save_weights; the JSON holds the
      batches and the optimizer's state as Keras reports it (iterations,
      step_counter, dynamic_scale), for keras/mixed_saving_test.go.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/loss_scale_state_vectors.py
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import keras  # noqa: E402


def main():
    keras.mixed_precision.set_global_policy("mixed_float16")
    keras.utils.set_random_seed(5)
    m = keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu"),
        keras.layers.Dense(2),
        keras.layers.Activation("softmax", dtype="float32"),
    ])
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="categorical_crossentropy")
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75],
                  [1e5, 1.0, 0.125], [0.0, 3.0, -1.0],
                  [-0.5, 0.5, 1.0], [2.0, -2.0, 0.25],
                  [1.0, 1.0, 1.0], [-1.0, 0.0, 0.5]], dtype=np.float32)
    y = np.array([[1, 0], [0, 1], [1, 0], [0, 1],
                  [0, 1], [1, 0], [1, 0], [0, 1]], dtype=np.float32)
    m.fit(x, y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    os.makedirs("keras/testdata/keras", exist_ok=True)
    m.save_weights("keras/testdata/keras/mixed_float16_lso.weights.h5")
    opt = m.optimizer
    res = {
        "x": x.reshape(-1).tolist(),
        "y": y.reshape(-1).tolist(),
        "optimizer": type(opt).__name__,
        "inner_optimizer": type(opt.inner_optimizer).__name__,
        "iterations": int(opt.iterations),
        "inner_iterations": int(opt.inner_optimizer.iterations),
        "step_counter": int(opt.step_counter),
        "dynamic_scale": float(opt.dynamic_scale),
        "optimizer_variables": [v.path for v in opt.variables],
    }
    with open("keras/testdata/keras/mixed_float16_lso.json", "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    keras.mixed_precision.set_global_policy("float32")


if __name__ == "__main__":
    main()
