"""Keras vectors for gokeras' preprocessing layers.

Writes keras/optimizers/testdata/keras/optimizer_options.json (SGD and
Adam with use_ema, ema_momentum, ema_overwrite_frequency,
gradient_accumulation_steps, clipping and weight decay: the variable after
each step, the moving average, and the variable after
finalize_variable_values) and keras/testdata/keras/preprocessing.json: for each case the layer's
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


def case(name, layer, x, adapt=None, grad=True, rng=None, training=False):
    c = {"name": name, "class_name": layer.__class__.__name__}
    if training:
        c["training"] = True
    if adapt is not None:
        layer.adapt(adapt)
        c["adapt_shape"] = list(adapt.shape)
        c["adapt_x"] = arr(adapt)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt, training=training)
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


def category_encoding_cases(rng):
    out = []
    ids = np.array([[0, 3, 3], [4, 1, 7], [2, 2, 2], [5, 0, 1]], np.float32)
    for mode in ("one_hot", "multi_hot", "count"):
        x = ids[:, :1] if mode == "one_hot" else ids
        out.append(case(f"category_encoding_{mode}",
                        keras.layers.CategoryEncoding(num_tokens=6, output_mode=mode), x, grad=False))
    out.append(case("category_encoding_one_hot_rank1",
                    keras.layers.CategoryEncoding(num_tokens=8, output_mode="one_hot"),
                    np.array([3, 0, 7, 1, 9], np.float32), grad=False))
    out.append(case("category_encoding_one_hot_rank2",
                    keras.layers.CategoryEncoding(num_tokens=8, output_mode="one_hot"), ids, grad=False))
    out.append(case("category_encoding_count_rank1",
                    keras.layers.CategoryEncoding(num_tokens=5, output_mode="count"),
                    np.array([3, 0, 3, 1, 4, 3], np.float32), grad=False))
    return out


def discretization_cases(rng):
    out = []
    x = rng.normal(0, 2, (5, 4)).astype(np.float32)
    x[0, :3] = [-1.0, 0.0, 1.5]  # on the boundaries
    b = [-1.0, 0.0, 1.5, 2.0]
    for mode in ("int", "one_hot", "multi_hot", "count"):
        xx = x[:, :1] if mode == "one_hot" else x
        out.append(case(f"discretization_{mode}",
                        keras.layers.Discretization(bin_boundaries=b, output_mode=mode), xx, grad=False))
    data = rng.normal(1, 3, (300, 2)).astype(np.float32)
    out.append(case("discretization_adapt_4",
                    keras.layers.Discretization(num_bins=4), x, adapt=data, grad=False))
    out.append(case("discretization_adapt_7_eps",
                    keras.layers.Discretization(num_bins=7, epsilon=0.05), x, adapt=data, grad=False))
    small = rng.normal(0, 1, (30,)).astype(np.float32)
    out.append(case("discretization_adapt_small",
                    keras.layers.Discretization(num_bins=3), x, adapt=small, grad=False))
    big = rng.exponential(2, (1037, 3)).astype(np.float32)
    out.append(case("discretization_adapt_big",
                    keras.layers.Discretization(num_bins=10, epsilon=0.001), x, adapt=big, grad=False))
    return out


def image_cases(rng):
    out = []
    x = rng.standard_normal((2, 5, 7, 3)).astype(np.float32)
    for (h, w) in ((8, 4), (3, 10), (5, 3), (9, 14)):
        for interp in ("bilinear", "nearest"):
            out.append(case(f"resizing_{interp}_{h}x{w}",
                            keras.layers.Resizing(h, w, interpolation=interp), x, rng=rng))
        out.append(case(f"resizing_crop_{h}x{w}",
                        keras.layers.Resizing(h, w, crop_to_aspect_ratio=True), x, rng=rng))
    # Inference is the identity (training draws from the RNG: the Go tests
    # check its formula and range instead).
    out.append(case("random_contrast_inference", keras.layers.RandomContrast(0.3, seed=5), x, rng=rng))
    out.append(case("random_contrast_pair_inference",
                    keras.layers.RandomContrast((0.2, 0.5), value_range=(-1, 1)), x, rng=rng))
    # RandomZoom in training with ranges of one value: deterministic.
    xz = rng.standard_normal((2, 6, 7, 2)).astype(np.float32)
    for interp in ("nearest", "bilinear"):
        for mode in ("reflect", "wrap", "nearest", "constant"):
            for hf, wf in (((0.5, 0.5), None), ((-0.3, -0.3), (0.4, 0.4)), ((0.9, 0.9), (-0.6, -0.6))):
                suffix = "" if interp == "nearest" else "_bilinear"
                out.append(case(f"random_zoom_{mode}_{hf[0]}_{wf[0] if wf else 'same'}{suffix}",
                                keras.layers.RandomZoom(hf, wf, fill_mode=mode, fill_value=1.5,
                                                        interpolation=interp),
                                xz, grad=False, training=True))
    for interp in ("nearest", "bilinear"):
        for mode in ("reflect", "wrap", "nearest", "constant"):
            for f in (0.1, -0.3, 0.25, 0.77):
                suffix = "" if interp == "nearest" else "_bilinear"
                out.append(case(f"random_rotation_{mode}_{f}{suffix}",
                                keras.layers.RandomRotation((f, f), fill_mode=mode, fill_value=1.5,
                                                            interpolation=interp),
                                xz, grad=False, training=True))
    out.append(case("random_rotation_inference", keras.layers.RandomRotation(0.3, interpolation="nearest"), x,
                    rng=rng))
    out.append(case("random_zoom_inference", keras.layers.RandomZoom(0.3, interpolation="nearest"), x, rng=rng))
    for (h, w) in ((3, 4), (5, 7), (2, 6), (6, 6), (4, 9)):
        out.append(case(f"center_crop_{h}x{w}", keras.layers.CenterCrop(h, w), x, rng=rng))
    # One unbatched HWC image.
    out.append(case("resizing_unbatched", keras.layers.Resizing(4, 9), x[0], rng=rng))
    out.append(case("center_crop_unbatched", keras.layers.CenterCrop(3, 8), x[0], rng=rng))
    return out


OPT_OUT = "keras/optimizers/testdata/keras/optimizer_options.json"


def optimizer_case(name, cls, kwargs, nsteps, rng, shape=(2, 3)):
    w0 = rng.standard_normal(shape).astype(np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(nsteps)]
    v = keras.Variable(w0, name="kernel")
    opt = cls(**kwargs)
    steps, averages = [], []
    for g in grads:
        opt.apply_gradients([(tf.constant(g), v)])
        steps.append(arr(v.numpy()))
        if kwargs.get("use_ema"):
            averages.append(arr(opt._model_variables_moving_average[0].numpy()))
    c = {"name": name, "optimizer": cls.__name__, "kwargs": kwargs, "shape": list(shape),
         "w0": arr(w0), "grads": [arr(g) for g in grads], "steps": steps}
    cfg = opt.get_config()
    c["config"] = {k: cfg[k] for k in ("use_ema", "ema_momentum", "ema_overwrite_frequency",
                                       "gradient_accumulation_steps")}
    if kwargs.get("use_ema"):
        c["averages"] = averages
        opt.finalize_variable_values([v])
        c["finalized"] = arr(v.numpy())
    return c


def optimizer_cases(rng):
    S, A = keras.optimizers.SGD, keras.optimizers.Adam
    out = []
    for cls in (S, A):
        n = cls.__name__.lower()
        out.append(optimizer_case(f"{n}_ema", cls, {"learning_rate": 0.1, "use_ema": True}, 3, rng))
        out.append(optimizer_case(f"{n}_ema_momentum_overwrite", cls,
                                  {"learning_rate": 0.1, "use_ema": True, "ema_momentum": 0.5,
                                   "ema_overwrite_frequency": 2}, 5, rng))
        out.append(optimizer_case(f"{n}_accumulate_2", cls,
                                  {"learning_rate": 0.1, "gradient_accumulation_steps": 2}, 6, rng))
        out.append(optimizer_case(f"{n}_accumulate_3_clipnorm_decay", cls,
                                  {"learning_rate": 0.1, "gradient_accumulation_steps": 3,
                                   "clipnorm": 0.4, "weight_decay": 0.1}, 7, rng))
        out.append(optimizer_case(f"{n}_accumulate_ema_clipvalue", cls,
                                  {"learning_rate": 0.1, "gradient_accumulation_steps": 2, "use_ema": True,
                                   "ema_momentum": 0.8, "clipvalue": 0.3}, 5, rng))
        out.append(optimizer_case(f"{n}_global_clipnorm_decay", cls,
                                  {"learning_rate": 0.1, "global_clipnorm": 0.5, "weight_decay": 0.05}, 3, rng))
    out.append(optimizer_case("sgd_momentum_ema_accumulate", S,
                              {"learning_rate": 0.05, "momentum": 0.9, "gradient_accumulation_steps": 2,
                               "use_ema": True}, 6, rng))
    return out


def integer_lookup_cases(rng):
    out = []
    IL = keras.layers.IntegerLookup
    x = np.array([[12, 36, 7, 0], [1138, 12, -1, 42], [36, 36, 5, 12]], np.float32)
    vocab = [12, 36, 1138, 42]
    out.append(case("integer_lookup_int", IL(vocabulary=vocab), x, grad=False))
    out.append(case("integer_lookup_mask", IL(vocabulary=vocab, mask_token=0), x, grad=False))
    out.append(case("integer_lookup_specials_in_vocab", IL(vocabulary=[0, -1] + vocab, mask_token=0), x, grad=False))
    for mode in ("one_hot", "multi_hot", "count"):
        xx = x[:, :1] if mode == "one_hot" else x
        out.append(case(f"integer_lookup_{mode}", IL(vocabulary=vocab, output_mode=mode), xx, grad=False))
        out.append(case(f"integer_lookup_{mode}_mask", IL(vocabulary=vocab, output_mode=mode, mask_token=0),
                        xx, grad=False))
    out.append(case("integer_lookup_multi_hot_pad", IL(vocabulary=vocab, output_mode="multi_hot", max_tokens=9,
                                                        pad_to_max_tokens=True), x, grad=False))
    out.append(case("integer_lookup_tf_idf", IL(vocabulary=vocab, output_mode="tf_idf",
                                                 idf_weights=[0.5, 1.25, 2.0, 0.75]), x, grad=False))
    out.append(case("integer_lookup_oov3", IL(vocabulary=vocab, num_oov_indices=3), x, grad=False))
    out.append(case("integer_lookup_oov4_mask", IL(vocabulary=vocab, num_oov_indices=4, mask_token=0), x, grad=False))
    out.append(case("integer_lookup_oov2_count", IL(vocabulary=vocab, num_oov_indices=2, output_mode="count",
                                                     mask_token=0), x, grad=False))
    data = rng.integers(0, 9, (20, 6)).astype(np.float32)
    data[0, :3] = [-1, 100, 100]
    xa = rng.integers(-1, 11, (4, 5)).astype(np.float32)
    out.append(case("integer_lookup_adapt", IL(), xa, adapt=data, grad=False))
    out.append(case("integer_lookup_adapt_max_mask", IL(max_tokens=6, mask_token=0), xa, adapt=data, grad=False))
    out.append(case("integer_lookup_adapt_count", IL(output_mode="count"), xa, adapt=data, grad=False))
    out.append(case("integer_lookup_adapt_tf_idf", IL(output_mode="tf_idf"), xa, adapt=data, grad=False))
    out.append(case("integer_lookup_adapt_oov3_tf_idf", IL(output_mode="tf_idf", num_oov_indices=3), xa,
                    adapt=data, grad=False))
    out.append(case("integer_lookup_adapt_tf_idf_max_pad", IL(output_mode="tf_idf", max_tokens=7,
                                                               pad_to_max_tokens=True, mask_token=3),
                    xa, adapt=data, grad=False))
    return out


def hashing_cases(rng):
    out = []
    H = keras.layers.Hashing
    # Integers float32 carries exactly (|x| <= 2^24), as gokeras' inputs are.
    xs = np.array([[0, 1, 7, -3], [12, 99999, -1, 1138], [12345678, -9876543, 42, 16777216]], np.int64)
    out.append(case("hashing_fast", H(num_bins=7), xs, grad=False))
    out.append(case("hashing_fast_big_bins", H(num_bins=1000003), xs, grad=False))
    out.append(case("hashing_mask", H(num_bins=5, mask_value=0), xs, grad=False))
    out.append(case("hashing_salt_int", H(num_bins=11, salt=133), xs, grad=False))
    out.append(case("hashing_salt_pair", H(num_bins=11, salt=[133, 137], mask_value=42), xs, grad=False))
    out.append(case("hashing_multi_hot", H(num_bins=6, output_mode="multi_hot"), xs, grad=False))
    out.append(case("hashing_count_salt", H(num_bins=4, output_mode="count", salt=7), xs, grad=False))
    out.append(case("hashing_one_hot", H(num_bins=5, output_mode="one_hot"), xs[:, :1], grad=False))
    ints = rng.integers(-(2 ** 24), 2 ** 24, (8, 16)).astype(np.int64)
    out.append(case("hashing_fast_many", H(num_bins=97), ints, grad=False))
    out.append(case("hashing_salt_many", H(num_bins=97, salt=[2 ** 40 + 5, 3]), ints, grad=False))
    return out


def main():
    rng = np.random.default_rng(SEED + 71)
    cases = []
    cases += normalization_cases(rng)
    cases += category_encoding_cases(rng)
    cases += discretization_cases(rng)
    cases += image_cases(rng)
    cases += integer_lookup_cases(rng)
    cases += hashing_cases(rng)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(cases)} cases")
    ocases = optimizer_cases(np.random.default_rng(SEED + 72))
    os.makedirs(os.path.dirname(OPT_OUT), exist_ok=True)
    with open(OPT_OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": ocases}, f, indent=1)
        f.write("\n")
    print(f"wrote {OPT_OUT}: {len(ocases)} cases")


if __name__ == "__main__":
    main()
