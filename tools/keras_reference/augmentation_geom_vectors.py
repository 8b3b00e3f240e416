"""Writes Keras' geometric and mixing augmentation layers on given images.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/run_all.py --only augmentation_geom_vectors.py

Keras 3.15.1's augmentation layers split a training call into
get_random_transformation (the random numbers) and transform_images (the
arithmetic, given those numbers). For RandomErasing, RandomGaussianBlur,
RandomShear, RandomPerspective, MixUp, CutMix and RandAugment, in two to seven
configurations each, it writes keras/layers/testdata/keras/augmentation_geom.json:
per case the layer's get_config, an input batch (NHWC, in the layer's
value range), a transformation Keras drew (its dict's arrays, booleans as
0/1), the output of transform_images for that transformation (training),
for MixUp and CutMix one-hot labels and transform_labels' output, and the
output of a call with training=False. RandomPerspective's cases also hold
the homography Keras' compute_homography_matrix solved from the drawn
corners. RandAugment's cases hold its sublayers' transformations under
"<sublayer>/<key>" and, but for one, indices chosen in place of the
drawn ones so that every one of its eleven augmentations is applied
somewhere. Beside the cases, "masks" holds Keras' _generate_batch_mask
(RandomErasing's and CutMix's boxes) for given corners. The Go test
keras/layers/augment_geom_keras_test.go feeds these numbers to the
layers' deterministic cores and compares the outputs.

It also writes keras/testdata/keras/augmentation_geom_model.keras, a
functional model with RandomErasing, RandomGaussianBlur, RandomShear,
RandomPerspective, MixUp, CutMix and RandAugment in a Sequential block
(arguments other than their defaults) before a Conv2D and a Dense, and
augmentation_geom_model.json with an input and Keras' predictions (in
inference the seven pass their input through), which
keras/augmentation_geom_model_keras_test.go compares with gokeras' after
LoadModel.
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

SEED = 20261207
OUT = "keras/layers/testdata/keras/augmentation_geom.json"
MODEL = "keras/testdata/keras/augmentation_geom_model.keras"
MODEL_JSON = "keras/testdata/keras/augmentation_geom_model.json"
L = keras.layers


def flat(a):
    a = np.asarray(a)
    if a.dtype == bool:
        a = a.astype(np.float32)
    return {"shape": list(a.shape), "values": [float(v) for v in a.reshape(-1)]}


def manifest():
    return {"generator": "tools/keras_reference/augmentation_geom_vectors.py",
            "tensorflow": tf.__version__, "keras": keras.__version__,
            "numpy": np.__version__, "python": sys.version.split()[0], "seed": SEED}


def arrays(transformation):
    """The transformation dict's tensors (not its shape tuples)."""
    out = {}
    for k, v in transformation.items():
        if isinstance(v, (tf.Tensor, np.ndarray)):
            out[k] = flat(np.asarray(v))
    return out


def case(rng, name, layer, shape, value_range=(0, 255), labels=False):
    lo, hi = value_range
    x = (lo + (hi - lo) * rng.random(shape)).astype(np.float32)
    t = layer.get_random_transformation(x, training=True)
    c = {"class_name": layer.__class__.__name__, "name": name,
         "config": layer.get_config(), "shape": list(shape), "x": flat(x),
         "transformation": arrays(t),
         "training": flat(layer.transform_images(x, t, training=True)),
         "inference": flat(layer(x, training=False))}
    if labels:
        y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, shape[0])]
        c["labels"] = flat(y)
        c["labels_training"] = flat(layer.transform_labels(y, t, training=True))
    if "start_points" in t:
        from keras.src.backend.tensorflow.image import compute_homography_matrix
        c["homography"] = flat(compute_homography_matrix(
            tf.cast(t["start_points"], tf.float32), tf.cast(t["end_points"], tf.float32)))
    return c


def cases(rng):
    s = (4, 8, 7, 3)
    out = [
        case(rng, "defaults", L.RandomErasing(seed=1), s),
        case(rng, "fill_unit_range", L.RandomErasing(factor=(0.7, 1.0), scale=(0.1, 0.5), fill_value=0.25,
                                                      value_range=(0, 1), seed=2), s, (0, 1)),
        case(rng, "fill_rgb", L.RandomErasing(factor=0.9, fill_value=[10.0, 20.0, 300.0], seed=3), s),
        case(rng, "defaults", L.RandomGaussianBlur(seed=4), s),
        case(rng, "kernel5", L.RandomGaussianBlur(factor=(0.6, 1.0), kernel_size=5, sigma=(0.5, 2.0),
                                                  value_range=(0, 1), seed=5), s, (0, 1)),
        case(rng, "kernel3x5", L.RandomGaussianBlur(factor=0.8, kernel_size=(3, 5), sigma=0.9, seed=6), s),
        case(rng, "reflect_bilinear", L.RandomShear(x_factor=0.3, y_factor=0.2, seed=7), s),
        case(rng, "constant_nearest", L.RandomShear(x_factor=(0.1, 0.4), fill_mode="constant", fill_value=7.0,
                                                    interpolation="nearest", seed=8), s),
        case(rng, "wrap", L.RandomShear(y_factor=0.5, fill_mode="wrap", seed=9), s),
        case(rng, "nearest_fill", L.RandomShear(x_factor=0.6, y_factor=(0.2, 0.3), fill_mode="nearest", seed=10), s),
        case(rng, "defaults", L.RandomPerspective(seed=11), s),
        case(rng, "nearest_scale", L.RandomPerspective(factor=(0.8, 1.0), scale=0.5, interpolation="nearest",
                                                       fill_value=3.0, seed=12), s),
        case(rng, "alpha_default", L.MixUp(seed=13), s, (0, 1), labels=True),
        case(rng, "alpha_1", L.MixUp(alpha=1.0, seed=14), s, (0, 1), labels=True),
        case(rng, "defaults", L.CutMix(seed=17), s, labels=True),
        case(rng, "factor", L.CutMix(factor=(0.3, 0.6), seed=16), s, labels=True),
    ]
    out += rand_augment_cases(rng, s)
    return out


def rand_augment_cases(rng, s):
    """RandAugment: a transformation Keras drew (its sublayers' dicts under
    "<sublayer>/<key>"), with Keras' own indices and with indices chosen so
    that the cases apply every one of the eleven augmentations."""
    out = []
    configs = [
        ("defaults", dict(seed=31), (0, 255), None),
        ("pairs_0_1", dict(num_ops=2, factor=0.4, seed=32), (0, 255), [0, 1]),
        ("pairs_2_3_nearest", dict(num_ops=2, factor=(0.1, 0.6), interpolation="nearest", seed=33), (0, 255), [2, 3]),
        ("pairs_4_5_unit", dict(value_range=(0, 1), factor=0.5, seed=34), (0, 1), [4, 5]),
        ("pairs_6_7", dict(factor=0.7, seed=35), (0, 255), [6, 7]),
        ("pairs_8_9", dict(factor=0.5, seed=36), (0, 255), [8, 9]),
        ("three_10_0_10", dict(num_ops=3, factor=0.3, seed=37), (0, 255), [10, 0, 10]),
    ]
    for name, kw, vr, idx in configs:
        layer = L.RandAugment(**kw)
        lo, hi = vr
        x = (lo + (hi - lo) * rng.random(s)).astype(np.float32)
        t = layer.get_random_transformation(x, training=True)
        if idx is not None:
            t["layer_idxes"] = tf.constant(idx, tf.int32)
        flat_t = {"layer_idxes": flat(t["layer_idxes"])}
        for sub, d in t["transforms"].items():
            for k, v in arrays(d or {}).items():
                flat_t[sub + "/" + k] = v
        out.append({"class_name": "RandAugment", "name": name, "config": layer.get_config(), "shape": list(s), "x": flat(x),
                    "transformation": flat_t,
                    "training": flat(layer.transform_images(x, t, training=True)),
                    "inference": flat(layer(x, training=False))})
    return out


def masks():
    """Keras' _generate_batch_mask for given box corners (x0, x1, y0, y1),
    whole and fractional, on (2, 6, 5, 2) images."""
    layer = L.RandomErasing()
    x0 = np.array([0.0, 1.5], np.float32)
    x1 = np.array([2.0, 4.2], np.float32)
    y0 = np.array([1.0, 0.3], np.float32)
    y1 = np.array([6.0, 2.0], np.float32)
    m = layer._generate_batch_mask((2, 6, 5, 2), (x0, x1, y0, y1))
    return [{"x0": flat(x0), "x1": flat(x1), "y0": flat(y0), "y1": flat(y1),
             "shape": [2, 6, 5, 2], "mask": flat(m)}]


def model(rng):
    augmentation = keras.Sequential([
        L.RandomErasing(factor=0.5, scale=(0.05, 0.2), fill_value=0.5, value_range=(0, 1), seed=21),
        L.RandomGaussianBlur(factor=0.5, kernel_size=5, sigma=(0.5, 1.5), value_range=(0, 1), seed=22),
        L.RandomShear(x_factor=0.2, y_factor=(0.1, 0.2), fill_mode="constant", interpolation="nearest", seed=23),
        L.RandomPerspective(factor=0.7, scale=0.4, fill_value=0.5, seed=24),
        L.MixUp(alpha=0.4, seed=25),
        L.CutMix(factor=(0.2, 0.5), seed=26),
        L.RandAugment(value_range=(0, 1), num_ops=3, factor=0.3, interpolation="nearest", seed=27),
    ], name="augmentation")
    x = keras.Input((12, 10, 3))
    a = augmentation(x)
    a = L.Conv2D(4, 3, activation="relu")(a)
    y = L.Dense(3)(L.Flatten()(a))
    m = keras.Model(x, y)
    for w in m.weights:
        w.assign((rng.standard_normal(w.shape) * 0.3).astype(np.float32))
    xs = rng.random((2, 12, 10, 3)).astype(np.float32)
    pred = m.predict(xs, verbose=0)
    classes = sorted({l.__class__.__name__ for l in m.layers + augmentation.layers})
    os.makedirs(os.path.dirname(MODEL), exist_ok=True)
    m.save(MODEL)
    with open(MODEL_JSON, "w") as f:
        json.dump({"manifest": manifest(), "file": os.path.basename(MODEL), "classes": classes,
                   "x_shape": list(xs.shape), "x": [float(v) for v in xs.reshape(-1)],
                   "pred_shape": list(pred.shape), "predictions": [float(v) for v in pred.reshape(-1)]}, f, indent=1)
        f.write("\n")
    print(f"wrote {MODEL}")


def main():
    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    out = {"manifest": manifest(), "cases": cases(rng), "masks": masks()}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f)
        f.write("\n")
    print(f"wrote {OUT}: {len(out['cases'])} cases")
    model(rng)


if __name__ == "__main__":
    main()
