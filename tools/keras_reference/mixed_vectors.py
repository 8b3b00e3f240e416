"""Writes the mixed-precision reference vectors of gokeras (issue 16):

  ops/testdata/cast_precision.json
      float32 values (as uint32 bit patterns) and their bfloat16
      (ml_dtypes) and float16 (numpy) conversions as uint16 bit patterns,
      for ops/cast_precision_test.go.
  keras/optimizers/testdata/keras/loss_scale_optimizer.json
      Keras 3's LossScaleOptimizer over an Adam, three apply() calls with
      given (scaled) gradients, the second holding an inf: weights,
      dynamic_scale, step_counter and iterations after each step, and the
      optimizer's get_config, for keras/optimizers/loss_scale_optimizer_keras_test.go.
  keras/testdata/keras/mixed_policy_config.json
      the config of a Dense layer made under mixed_bfloat16 and of one
      given dtype="float32", as Keras 3 writes them.
  keras/testdata/keras/mixed_float16.keras (+ mixed_float16.json)
      a small model compiled under mixed_float16 (Keras wraps its Adam in
      a LossScaleOptimizer) after two fit steps, and its predictions on
      given inputs computed by Keras in float16.
  keras/testdata/keras/mixed_bfloat16_cnn.keras (+ mixed_bfloat16_cnn.json)
      a small CNN of the seed CNN's shape made under mixed_bfloat16 with
      seeded weights, and its logits on given images computed by Keras in
      bfloat16 (and in float32, for scale).
  keras/testdata/keras/mixed_bfloat16_train.keras (+ mixed_bfloat16_train.json)
      a small CNN with batch normalization and a float32 softmax, made
      under mixed_bfloat16 with seeded weights, and its weights after two
      SGD train_on_batch steps computed by Keras in bfloat16 (oneDNN), and
      by the same model in float32, for scale.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/mixed_vectors.py
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import ml_dtypes  # noqa: E402
import keras  # noqa: E402


def cast_vectors():
    rng = np.random.default_rng(20261124)
    special = np.array(
        [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 65504.0, 65519.0, 65520.0,
         -65520.0, 1e5, 6.1e-5, 6.0e-8, 5.96e-8, 2.98e-8, 2.99e-8, 1e-9,
         3.4028235e38, -3.4028235e38, 1.17549435e-38, 1e-40, -1e-45,
         1.00390625, 1.01171875, 1.0078125, 1.00048828125, 1.00146484375,
         0.333333343, 3.14159274, -2.71828175],
        dtype=np.float32)
    bits = [special.view(np.uint32)]
    # Halfway cases of bfloat16: the 16 dropped bits exactly 0x8000, with
    # an even and an odd kept mantissa; and one above and below.
    base = rng.integers(0, 0x7F7F, size=64, dtype=np.uint32) << 16
    for low in (0x8000, 0x7FFF, 0x8001, 0x18000):
        bits.append((base + np.uint32(low)).astype(np.uint32))
    # Values over the whole exponent range, either sign.
    bits.append(rng.integers(0, 2**32, size=400, dtype=np.uint64).astype(np.uint32))
    # Around float16's range and subnormals, and its halfway cases.
    x = (rng.standard_normal(200) * 10.0 ** rng.uniform(-9, 5, 200)).astype(np.float32)
    bits.append(x.view(np.uint32))
    h = rng.integers(0, 0x7C00, size=64, dtype=np.uint16).astype(np.float16)
    f = h.astype(np.float32)
    # add half an ulp of float16 (13 dropped bits of float32 for normals)
    halfway = (f.view(np.uint32) + np.uint32(0x1000)).astype(np.uint32)
    bits.append(halfway)
    nan = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF], dtype=np.uint32)
    allbits = np.concatenate(bits + [nan]).astype(np.uint32)
    vals = allbits.view(np.float32)
    bf = vals.astype(ml_dtypes.bfloat16).view(np.uint16)
    with np.errstate(over="ignore"):
        hf = vals.astype(np.float16).view(np.uint16)
    return {
        "float32_bits": [int(b) for b in allbits],
        "bfloat16_bits": [int(b) for b in bf],
        "float16_bits": [int(b) for b in hf],
    }


def loss_scale_vectors():
    w0 = np.array([[0.5, -1.25], [2.0, 0.75], [-0.5, 1.5]], dtype=np.float32)
    b0 = np.array([0.1, -0.2], dtype=np.float32)
    wv = keras.Variable(w0, name="kernel")
    bv = keras.Variable(b0, name="bias")
    inner = keras.optimizers.Adam(learning_rate=0.01)
    opt = keras.optimizers.LossScaleOptimizer(inner, initial_scale=8.0, dynamic_growth_steps=2)
    grads = [
        (np.array([[8.0, -4.0], [2.0, 16.0], [-1.0, 0.5]], dtype=np.float32),
         np.array([4.0, -8.0], dtype=np.float32)),
        (np.array([[np.inf, -4.0], [2.0, 16.0], [-1.0, 0.5]], dtype=np.float32),
         np.array([4.0, -8.0], dtype=np.float32)),
        (np.array([[-8.0, 4.0], [6.0, -2.0], [3.0, 1.0]], dtype=np.float32),
         np.array([-4.0, 2.0], dtype=np.float32)),
        (np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32),
         np.array([np.nan, 1.0], dtype=np.float32)),
        (np.array([[2.0, -2.0], [1.0, -1.0], [0.5, -0.5]], dtype=np.float32),
         np.array([1.0, 1.0], dtype=np.float32)),
        (np.array([[2.0, -2.0], [1.0, -1.0], [0.5, -0.5]], dtype=np.float32),
         np.array([1.0, 1.0], dtype=np.float32)),
    ]
    steps = []
    scaled_before = float(opt.scale_loss(np.float32(1.5)))
    for gw, gb in grads:
        opt.apply([gw, gb], [wv, bv])
        steps.append({
            "grads": [gw.tolist(), gb.tolist()],
            "kernel": np.asarray(wv).reshape(-1).tolist(),
            "bias": np.asarray(bv).reshape(-1).tolist(),
            "dynamic_scale": float(opt.dynamic_scale),
            "step_counter": int(opt.step_counter),
            "iterations": int(opt.iterations),
            "scale_loss_1_5": float(opt.scale_loss(np.float32(1.5))),
        })
    cfg = opt.get_config()
    return {
        "kernel0": w0.reshape(-1).tolist(), "bias0": b0.tolist(),
        "initial_scale": 8.0, "dynamic_growth_steps": 2, "learning_rate": 0.01,
        "scale_loss_1_5_before_build": scaled_before,
        "steps": [
            {k: (v if k != "grads" else [[x if np.isfinite(x) else str(x) for x in np.ravel(g)] for g in v])
             for k, v in s.items()} for s in steps],
        "config": json.loads(json.dumps(cfg, default=str)),
        "default_config": json.loads(json.dumps(
            keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD()).get_config(), default=str)),
    }


def policy_configs():
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    d = keras.layers.Dense(3, name="d_mixed")
    out = keras.layers.Activation("softmax", dtype="float32", name="out32")
    inp = keras.Input((4,))
    model = keras.Model(inp, out(d(inp)))
    res = {
        "global": keras.mixed_precision.global_policy().name,
        "dense": json.loads(json.dumps(keras.saving.serialize_keras_object(d), default=str)),
        "activation": json.loads(json.dumps(keras.saving.serialize_keras_object(out), default=str)),
        "dense_compute_dtype": d.compute_dtype,
        "dense_variable_dtype": d.variable_dtype,
        "kernel_dtype": d.kernel.dtype,
        "output_dtype": str(model.outputs[0].dtype),
        "dense_output_dtype": str(d.output.dtype),
    }
    keras.mixed_precision.set_global_policy("mixed_float16")
    model2 = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model2.compile(optimizer="sgd", loss="mse")
    res["compiled_optimizer_class"] = type(model2.optimizer).__name__
    res["compiled_optimizer_config"] = json.loads(json.dumps(model2.optimizer.get_config(), default=str))
    keras.mixed_precision.set_global_policy("float32")
    return res


def mixed_model():
    keras.mixed_precision.set_global_policy("mixed_float16")
    keras.utils.set_random_seed(7)
    m = keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu"),
        keras.layers.Dense(2),
        keras.layers.Activation("softmax", dtype="float32"),
    ])
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="categorical_crossentropy")
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.125], [0.0, 3.0, -1.0]], dtype=np.float32)
    y = np.array([[1, 0], [0, 1], [1, 0], [0, 1]], dtype=np.float32)
    m.fit(x, y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    m.save("keras/testdata/keras/mixed_float16.keras")
    res = {
        "x": x.reshape(-1).tolist(),
        "predictions": np.asarray(m.predict(x, verbose=0), dtype=np.float32).reshape(-1).tolist(),
        "policies": [l.dtype_policy.name for l in m.layers],
        "optimizer": type(m.optimizer).__name__,
        "inner_optimizer": type(m.optimizer.inner_optimizer).__name__,
        "dynamic_scale": float(m.optimizer.dynamic_scale),
        "iterations": int(m.optimizer.iterations),
    }
    keras.mixed_precision.set_global_policy("float32")
    return res


def mixed_cnn():
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    keras.utils.set_random_seed(11)
    m = keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(8, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(10),
    ])
    rng = np.random.default_rng(5)
    for w in m.weights:  # biases too, so that bias adds round
        w.assign(rng.normal(0, 0.3, w.shape).astype(np.float32))
    x = rng.uniform(0, 1, (6, 28, 28, 1)).astype(np.float32)
    m.save("keras/testdata/keras/mixed_bfloat16_cnn.keras")
    logits = np.asarray(m.predict(x, verbose=0), dtype=np.float32)
    keras.mixed_precision.set_global_policy("float32")
    m32 = keras.saving.load_model("keras/testdata/keras/mixed_bfloat16_cnn.keras")
    for layer in m32.layers:
        layer.dtype_policy = "float32"
    logits32 = np.asarray(m32.predict(x, verbose=0), dtype=np.float32)
    return {"x": x.reshape(-1).tolist(), "logits_bfloat16": logits.reshape(-1).tolist(),
            "logits_float32": logits32.reshape(-1).tolist()}


def mixed_train():
    """Two SGD steps of a small CNN with batch normalization under
    mixed_bfloat16: the weights after each (bfloat16 convolutions and
    GEMMs forward and backward, batch normalization in float32, the
    softmax float32), and the same steps with every layer float32."""
    path = "keras/testdata/keras/mixed_bfloat16_train.keras"
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    keras.utils.set_random_seed(12)
    m = keras.Sequential([
        keras.Input((12, 12, 3)),
        keras.layers.Conv2D(8, 3, padding="same"),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(16, 3),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(10),
        keras.layers.Activation("softmax", dtype="float32"),
    ])
    rng = np.random.default_rng(8)
    for w in m.trainable_weights:
        w.assign(rng.normal(0, 0.3, w.shape).astype(np.float32))
    x = rng.uniform(0, 1, (2, 16, 12, 12, 3)).astype(np.float32)
    y = rng.integers(0, 10, (2, 16)).astype(np.float32)
    m.save(path)

    def steps(model):
        model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5),
                      loss="sparse_categorical_crossentropy")
        out = []
        for i in range(2):
            loss = model.train_on_batch(x[i], y[i])
            out.append({"loss": float(loss),
                        "weights": [np.asarray(w, dtype=np.float32).reshape(-1).tolist() for w in model.weights]})
        return out

    bf16 = steps(m)
    keras.mixed_precision.set_global_policy("float32")
    m32 = keras.saving.load_model(path, compile=False)
    for layer in m32.layers:
        layer.dtype_policy = "float32"
    f32 = steps(m32)
    return {"x": x.reshape(-1).tolist(), "y": y.reshape(-1).tolist(),
            "weight_names": [w.path for w in m.weights],
            "bfloat16": bf16, "float32": f32}


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def _rerun_with_onednn():
    """Keras' default CPU path uses oneDNN, whose bfloat16/float16 kernels
    round as gokeras does; run_all.py switches oneDNN off for reproducible
    float32 sums before TensorFlow is imported, so under it this script runs
    itself again in a child process with oneDNN on (same folder, same seed
    handling as a plain run). Returns True when the child did the work."""
    if os.environ.get("TF_ENABLE_ONEDNN_OPTS") != "0" or os.environ.get("GOKERAS_MIXED_CHILD"):
        return False
    import subprocess
    import sys
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="1", GOKERAS_MIXED_CHILD="1")
    subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, cwd=os.getcwd(), check=True)
    return True


if __name__ == "__main__" and not _rerun_with_onednn():
    write("ops/testdata/cast_precision.json", cast_vectors())
    write("keras/optimizers/testdata/keras/loss_scale_optimizer.json", loss_scale_vectors())
    write("keras/testdata/keras/mixed_policy_config.json", policy_configs())
    write("keras/testdata/keras/mixed_float16.json", mixed_model())
    write("keras/testdata/keras/mixed_bfloat16_cnn.json", mixed_cnn())
    write("keras/testdata/keras/mixed_bfloat16_train.json", mixed_train())
