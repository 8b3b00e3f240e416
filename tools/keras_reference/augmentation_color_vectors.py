"""Writes Keras' colour and intensity augmentation layers on given images.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/run_all.py --only augmentation_color_vectors.py

Keras 3.15.1's augmentation layers split a training call into
get_random_transformation (the random numbers: a factor per image, a
flag per image) and transform_images (the arithmetic, given those
numbers). For RandomGrayscale, RandomHue, RandomSaturation,
RandomColorDegeneration, RandomColorJitter, RandomSharpness,
RandomInvert, RandomPosterization, Solarization, AutoContrast and
Equalization, in two or three configurations each, it writes
keras/layers/testdata/keras/augmentation_color.json: per case the
layer's get_config, an input batch (NHWC, in the layer's value range;
its shape also as "shape", which keras/config_fuzz_test.go's seeds read),
a transformation Keras drew (its dict's arrays, booleans as 0/1), the
output of transform_images for that transformation (training), and the
output of a call with training=False. RandomColorJitter draws inside
transform_images from its sublayers (brightness, contrast, saturation,
hue, in that order): the script records what each sublayer's
get_random_transformation returned during one training call. The Go
test keras/layers/augment_color_keras_test.go feeds these numbers to
the layers' deterministic cores and compares the outputs.

It also writes keras/testdata/keras/augmentation_color_model.keras, a
functional model with each of these layers but Equalization (which
Keras cannot put in a functional model) in a Sequential block
(arguments other than their defaults) before a Conv2D and a Dense, and
augmentation_color_model.json with an input and Keras' predictions (in
inference AutoContrast still stretches each channel; the others pass
their input through), which keras/augmentation_color_model_keras_test.go
compares with gokeras' after LoadModel.
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

SEED = 20261206
OUT = "keras/layers/testdata/keras/augmentation_color.json"
MODEL = "keras/testdata/keras/augmentation_color_model.keras"
MODEL_JSON = "keras/testdata/keras/augmentation_color_model.json"
L = keras.layers


def flat(a):
    a = np.asarray(a)
    if a.dtype == bool:
        a = a.astype(np.float32)
    return {"shape": list(a.shape), "values": [float(v) for v in a.reshape(-1)]}


def jsonable(v):
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def images(rng, shape, value_range, kind="uniform"):
    lo, hi = sorted(value_range)
    if kind == "levels":  # whole levels of 0..255, scaled into the range
        x = rng.integers(0, 256, shape).astype(np.float32) / np.float32(255)
    elif kind == "clustered":  # few distinct levels: a histogram with gaps
        x = rng.choice(np.array([0.1, 0.12, 0.5, 0.52, 0.9], np.float32), shape)
    else:
        x = rng.random(shape, dtype=np.float32)
    x = (x * np.float32(hi - lo) + np.float32(lo)).astype(np.float32)
    return x


def jitter_transformation(layer, x):
    """Runs a training call of a RandomColorJitter, recording what each
    sublayer's get_random_transformation returned."""
    seen = {}
    for key in ("brightness", "contrast", "saturation", "hue"):
        sub = getattr(layer, "random_" + key)
        if sub is None:
            continue
        orig = sub.get_random_transformation

        def record(*a, _orig=orig, _key=key, **k):
            t = _orig(*a, **k)
            seen[_key] = {n: flat(keras.ops.convert_to_numpy(v)) for n, v in t.items()}
            return t

        sub.get_random_transformation = record
    y = layer(x, training=True)
    for key in ("brightness", "contrast", "saturation", "hue"):
        sub = getattr(layer, "random_" + key)
        if sub is not None:
            del sub.get_random_transformation
    return seen, keras.ops.convert_to_numpy(y)


def case(rng, name, layer, shape, value_range=(0, 255), kind="uniform"):
    x = images(rng, shape, value_range, kind)
    if isinstance(layer, L.RandomColorJitter):
        transformation, train = jitter_transformation(layer, x)
    else:
        t = layer.get_random_transformation(x, training=True)
        train = keras.ops.convert_to_numpy(layer.transform_images(x, t, training=True))
        if t is None:
            transformation = None
        else:
            transformation = {k: flat(keras.ops.convert_to_numpy(v)) for k, v in t.items()} \
                if isinstance(t, dict) else {"should_apply": flat(keras.ops.convert_to_numpy(t))}
    infer = keras.ops.convert_to_numpy(layer(x, training=False))
    # "shape" (the input's) is what keras/config_fuzz_test.go's seeds read.
    return {"class_name": layer.__class__.__name__, "name": name, "config": jsonable(layer.get_config()),
            "shape": list(x.shape), "x": flat(x), "transformation": transformation, "training": flat(train), "inference": flat(infer)}


def cases(rng):
    s3 = (3, 4, 5, 3)
    out = []
    add = lambda *a, **k: out.append(case(rng, *a, **k))  # noqa: E731
    add("default", L.RandomGrayscale(seed=1), s3)
    add("all", L.RandomGrayscale(factor=1.0, seed=2), s3, (0, 1))
    add("one_channel", L.RandomGrayscale(factor=0.8, seed=3), (3, 4, 5, 1))
    add("number", L.RandomHue(0.5, seed=4), s3)
    add("pair_unit", L.RandomHue((0.2, 0.9), value_range=(0, 1), seed=5), s3, (0, 1))
    add("one_signed", L.RandomHue(1.0, value_range=(-1, 1), seed=6), s3, (-1, 1))
    add("number", L.RandomSaturation(0.5, seed=7), s3)
    add("pair_unit", L.RandomSaturation((0.3, 0.9), value_range=(0, 1), seed=8), s3, (0, 1))
    add("near_one", L.RandomSaturation((0.95, 1.0), value_range=(0, 1), seed=9), s3, (0, 1))
    add("number", L.RandomColorDegeneration(0.5, seed=10), s3)
    add("pair_unit", L.RandomColorDegeneration((-0.3, 0.8), value_range=(0, 1), seed=11), s3, (0, 1))
    add("all", L.RandomColorJitter(value_range=(0, 255), brightness_factor=0.2, contrast_factor=0.3,
                                   saturation_factor=(0.4, 0.6), hue_factor=0.2, seed=12), s3)
    add("brightness_hue", L.RandomColorJitter(value_range=(0, 1), brightness_factor=(-0.1, 0.3),
                                              hue_factor=(0.1, 0.5), seed=13), s3, (0, 1))
    add("contrast_saturation", L.RandomColorJitter(value_range=(0, 1), contrast_factor=(0.2, 0.5),
                                                   saturation_factor=0.7, seed=14), s3, (0, 1))
    add("number", L.RandomSharpness(0.5, seed=15), s3)
    add("pair_unit", L.RandomSharpness((0.1, 0.9), value_range=(0, 1), seed=16), (3, 4, 5, 4), (0, 1))
    add("default", L.RandomInvert(seed=17), s3)
    add("pair_unit", L.RandomInvert((0.7, 1.0), value_range=(0, 1), seed=18), s3, (0, 1))
    add("number", L.RandomPosterization(4, seed=19), s3)
    add("pair_unit", L.RandomPosterization((2, 7), value_range=(0, 1), seed=20), s3, (0, 1))
    add("eight", L.RandomPosterization((8, 8), seed=21), s3)
    add("default", L.Solarization(seed=22), s3)
    add("numbers", L.Solarization(addition_factor=0.5, threshold_factor=0.5, seed=23), s3)
    add("pairs_unit", L.Solarization(addition_factor=(0.1, 0.3), threshold_factor=(0.4, 0.6),
                                     value_range=(0, 1), seed=24), s3, (0, 1))
    ac = case(rng, "constant_channel", L.AutoContrast(), s3)
    out.append(ac)
    add("unit", L.AutoContrast(value_range=(0, 1)), s3, (0, 1))
    add("default", L.Equalization(), s3, kind="levels")
    add("bins_unit", L.Equalization(value_range=(0, 1), bins=64), s3, (0, 1))
    add("clustered", L.Equalization(bins=32), (2, 4, 5, 3), kind="clustered")
    return out


def constant_channel_autocontrast(rng, cases_):
    """Reruns the AutoContrast case with channel 1 of image 0 constant, the
    case Keras' NaN branch keeps."""
    for i, c in enumerate(cases_):
        if c["class_name"] == "AutoContrast" and c["name"] == "constant_channel":
            x = np.array(c["x"]["values"], np.float32).reshape(c["x"]["shape"])
            x[0, :, :, 1] = 77.0
            layer = L.AutoContrast()
            c["x"] = flat(x)
            c["training"] = flat(keras.ops.convert_to_numpy(layer.transform_images(x, None, training=True)))
            c["inference"] = flat(keras.ops.convert_to_numpy(layer(x, training=False)))
            c["config"] = jsonable(layer.get_config())


def model_file(rng):
    augmentation = keras.Sequential([
        L.RandomGrayscale(factor=0.3, seed=1),
        L.RandomHue((0.1, 0.4), value_range=(0, 1), seed=2),
        L.RandomSaturation(0.4, value_range=(0, 1), seed=3),
        L.RandomColorDegeneration((0.2, 0.6), value_range=(0, 1), seed=4),
        L.RandomColorJitter(value_range=(0, 1), brightness_factor=0.1, contrast_factor=(0.1, 0.2),
                            saturation_factor=0.5, hue_factor=0.1, seed=5),
        L.RandomSharpness(0.3, value_range=(0, 1), seed=6),
        L.RandomInvert(0.4, value_range=(0, 1), seed=7),
        L.RandomPosterization((3, 6), value_range=(0, 1), seed=8),
        L.Solarization(addition_factor=0.2, threshold_factor=(0.3, 0.7), value_range=(0, 1), seed=9),
        L.AutoContrast(value_range=(0, 1)),
        # No Equalization: its compute_output_spec returns the symbolic
        # input itself, so Keras 3.15.1 finds a functional model calling it
        # "part of a cycle" and cannot build or save one.
    ], name="augmentation")
    x = keras.Input((8, 7, 3))
    a = augmentation(x)
    a = L.Conv2D(4, 3, activation="relu")(a)
    y = L.Dense(2)(L.Flatten()(a))
    model = keras.Model(x, y)
    for w in model.weights:
        w.assign((rng.standard_normal(w.shape) * 0.3).astype(np.float32))
    xs = (rng.random((2, 8, 7, 3), dtype=np.float32) * np.float32(0.6) + np.float32(0.2)).astype(np.float32)
    pred = model.predict(xs, verbose=0)
    classes = sorted({layer.__class__.__name__ for layer in model.layers + augmentation.layers})
    os.makedirs(os.path.dirname(MODEL), exist_ok=True)
    model.save(MODEL)
    with open(MODEL_JSON, "w") as f:
        json.dump({"manifest": manifest(), "file": os.path.basename(MODEL), "classes": classes,
                   "x_shape": list(xs.shape), "x": [float(v) for v in xs.reshape(-1)],
                   "pred_shape": list(pred.shape), "predictions": [float(v) for v in pred.reshape(-1)]}, f, indent=1)
        f.write("\n")
    print(f"wrote {MODEL}")


def manifest():
    return {"generator": "tools/keras_reference/augmentation_color_vectors.py",
            "tensorflow": tf.__version__, "keras": keras.__version__,
            "numpy": np.__version__, "python": sys.version.split()[0], "seed": SEED}


def main():
    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    cs = cases(rng)
    constant_channel_autocontrast(rng, cs)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        # One case a line: a regenerated file's diff names the cases it changes.
        f.write('{"manifest": ' + json.dumps(manifest()) + ',\n "cases": [\n  ')
        f.write(",\n  ".join(json.dumps(c, separators=(",", ":")) for c in cs))
        f.write("\n ]}\n")
    print(f"wrote {OUT} ({len(cs)} cases)")
    model_file(rng)


if __name__ == "__main__":
    main()
