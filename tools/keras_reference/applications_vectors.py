"""Writes keras/applications/testdata/keras/: Keras 3.15.1's
keras.applications models described, for keras/applications' Go tests.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/applications_vectors.py

structure.json.gz (gzip without a timestamp, so its bytes are the same on
every run: the uncompressed JSON is about 1 MB) has one case per constructor (Keras' defaults:
include_top=True, weights=None, plus a few cases with other arguments):
the arguments, the parameter counts (trainable, non-trainable) and
model.layers in order, each as [name, class, "var:shape", ...] with its
variables' names and shapes in the order Keras saves them (for some
cases also the layer's output shape and parameter count, the rows of
model.summary()).

predictions.json has, for a subset of constructors at small inputs, the
model's output for an input and weights that the Go test computes by the
same formulas (weight_values, input_values below) instead of reading a
file: every variable's values are a sine of its flat index, phased by its
layer's name and its index among the layer's variables ("conv1_conv/0";
not the variable's path, which holds Keras' name scopes in NASNet),
scaled by what the variable is, by its name (kernels by 2/sqrt(fan-in),
batch normalization's variances kept positive). The
outputs are stored as a strided sample plus their mean and mean absolute
value, to keep the file small.

custom_scale.keras is a small functional model with Inception-ResNet's
CustomScaleLayer (keras.src.applications.inception_resnet_v2), saved by
Keras, with formula weights; predictions.json's case "keras_file" has its
outputs.

norm_count.weights.h5 and norm_count.h5 are the weights of a small model
with EfficientNet's stem (Rescaling, an adapted Normalization, whose count
Keras keeps as an int64, and a convolution), in both formats;
predictions.json's case "norm_file" has its outputs.

preprocess.json has every family's preprocess_input applied to a small
batch of pixels.

mobilenet_025.weights.h5 and mobilenet_025.h5 are the weights of
MobileNet(alpha=0.25, include_top=False, input_shape=(32, 32, 3)) set by
the same formula, as Keras 3 writes them (save_weights) and as a legacy
Keras 2 .h5 (the format of the files keras.applications downloads), for
the Go test that loads them into the Go constructor's model. To keep them
at half the size, every dataset Keras wrote is then stored as float16 (as
Keras writes the variables of a float16 model); the model's weights are
set to those float16 values before its predictions for the test are
taken (predictions.json's case "file").
"""

import gzip
import json
import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = "keras/applications/testdata/keras"
A = keras.applications

# Every constructor at Keras' defaults.
CONSTRUCTORS = [
    "ResNet50", "ResNet101", "ResNet152", "ResNet50V2", "ResNet101V2", "ResNet152V2",
    "VGG16", "VGG19", "MobileNet", "MobileNetV2", "DenseNet121", "DenseNet169", "DenseNet201",
    "MobileNetV3Small", "MobileNetV3Large",
    "EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
    "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
    "EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2S",
    "InceptionV3", "InceptionResNetV2", "Xception",
    "ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "NASNetMobile",
]

# Cases with other arguments: (constructor, kwargs). The kwargs use
# Keras' names; the Go test maps them to its options.
VARIANTS = [
    ("ResNet50", {"include_top": False, "pooling": "avg", "input_shape": [64, 64, 3]}),
    ("ResNet50", {"include_top": True, "classes": 10, "classifier_activation": None, "input_shape": [32, 32, 3]}),
    ("VGG16", {"include_top": False, "pooling": "max", "input_shape": [48, 48, 3]}),
    ("MobileNet", {"alpha": 0.5, "depth_multiplier": 2, "include_top": True, "classes": 7, "input_shape": [128, 128, 3]}),
    ("MobileNet", {"alpha": 0.25, "include_top": False, "input_shape": [32, 32, 3]}),
    ("MobileNetV2", {"alpha": 0.35, "include_top": False, "pooling": "avg", "input_shape": [96, 96, 3]}),
    ("MobileNetV2", {"alpha": 1.3, "include_top": True, "classes": 5, "input_shape": [96, 96, 3]}),
    ("DenseNet121", {"include_top": False, "input_shape": [32, 32, 3]}),
    ("MobileNetV3Small", {"alpha": 0.75, "minimalistic": True, "include_top": True, "classes": 4,
                          "input_shape": [64, 64, 3], "include_preprocessing": False}),
    ("MobileNetV3Large", {"include_top": False, "pooling": "avg", "input_shape": [64, 64, 3]}),
    ("EfficientNetB0", {"include_top": False, "input_shape": [32, 32, 3]}),
    ("EfficientNetV2B0", {"include_top": False, "input_shape": [32, 32, 3], "include_preprocessing": False}),
    ("ConvNeXtTiny", {"include_top": False, "pooling": "avg", "input_shape": [32, 32, 3], "include_preprocessing": False}),
]

# Cases whose rows of model.summary() (output shape and parameters per
# layer) are recorded.
SUMMARY = {("MobileNetV2", 0), ("ResNet50", 0)}

# Predictions: (constructor, kwargs, input kind). "pixels" inputs are
# 127.5 + 127.5 sin(...), "centered" ones sin(...).
PREDICT = [
    ("ResNet50", {"include_top": True, "classes": 10, "classifier_activation": None, "input_shape": [32, 32, 3]}, "centered"),
    ("ResNet50V2", {"include_top": False, "pooling": "avg", "input_shape": [32, 32, 3]}, "centered"),
    ("VGG16", {"include_top": False, "pooling": "max", "input_shape": [32, 32, 3]}, "centered"),
    ("VGG19", {"include_top": True, "classes": 6, "input_shape": [32, 32, 3]}, "centered"),
    ("MobileNet", {"alpha": 0.5, "include_top": True, "classes": 8, "input_shape": [32, 32, 3]}, "centered"),
    ("MobileNetV2", {"alpha": 0.35, "include_top": False, "pooling": "avg", "input_shape": [32, 32, 3]}, "centered"),
    ("DenseNet121", {"include_top": False, "pooling": "avg", "input_shape": [32, 32, 3]}, "centered"),
    ("MobileNetV3Small", {"include_top": True, "classes": 10, "input_shape": [32, 32, 3]}, "pixels"),
    ("MobileNetV3Large", {"minimalistic": True, "include_top": False, "pooling": "max", "input_shape": [32, 32, 3]}, "pixels"),
    ("EfficientNetB0", {"include_top": True, "classes": 10, "classifier_activation": None, "input_shape": [32, 32, 3]}, "pixels"),
    ("EfficientNetV2B0", {"include_top": False, "pooling": "avg", "input_shape": [32, 32, 3]}, "pixels"),
    ("InceptionV3", {"include_top": False, "pooling": "avg", "input_shape": [75, 75, 3]}, "centered"),
    ("InceptionResNetV2", {"include_top": False, "pooling": "avg", "input_shape": [75, 75, 3]}, "centered"),
    ("Xception", {"include_top": False, "pooling": "avg", "input_shape": [71, 71, 3]}, "centered"),
    ("ConvNeXtTiny", {"include_top": True, "classes": 10, "input_shape": [32, 32, 3]}, "pixels"),
    ("ConvNeXtTiny", {"include_top": False, "pooling": "avg", "input_shape": [32, 32, 3]}, "pixels"),
    ("NASNetMobile", {"include_top": False, "pooling": "avg", "input_shape": [32, 32, 3]}, "centered"),
]

SAMPLES = 48  # outputs kept per case


def build(ctor, kwargs):
    kw = dict(kwargs)
    if "input_shape" in kw:
        kw["input_shape"] = tuple(kw["input_shape"])
    keras.backend.clear_session()
    return getattr(A, ctor)(weights=None, **kw)


def shape_str(s):
    return "x".join(str(int(d)) for d in s) if len(s) else "scalar"


def layer_rows(model, with_summary):
    rows = []
    for layer in model.layers:
        row = [layer.name, layer.__class__.__name__]
        for v in layer.weights:
            row.append(v.path.rsplit("/", 1)[-1] + ":" + shape_str(v.shape))
        if with_summary:
            out = layer.output
            shape = out.shape if not isinstance(out, (list, tuple)) else out[0].shape
            row.append("#" + ",".join("None" if d is None else str(d) for d in shape) + "#" + str(layer.count_params()))
        rows.append(row)
    return rows


def path_phase(key):
    """A variable's phase: its key's bytes, weighted by position, mod 1000."""
    return sum((i + 1) * b for i, b in enumerate(key.encode())) % 1000 / 1000.0


def weight_values(key, name, cls, shape):
    """The deterministic value of a variable (float64 before the cast):
    key is "<layer name>/<index among the layer's variables>", name the
    variable's name ("kernel", "moving_variance")."""
    n = int(np.prod(shape)) if len(shape) else 1
    t = np.arange(n, dtype=np.float64)
    s = np.sin(0.61 * t + 6.2831853 * path_phase(key) + 0.3)
    if name in ("moving_variance", "variance"):
        v = 1.0 + 0.5 * s
    elif name == "gamma":
        v = 1.0 + 0.25 * s
    elif name in ("moving_mean", "mean", "beta", "bias"):
        v = 0.1 * s
    else:
        if len(shape) == 4 and (cls == "DepthwiseConv2D" or name == "depthwise_kernel"):
            fan_in = shape[0] * shape[1]
        elif len(shape) >= 2:
            fan_in = int(np.prod(shape[:-1]))
        else:
            fan_in = 1
        v = s * 2.0 / math.sqrt(fan_in)
    return v.reshape(shape)


def set_weights(model):
    for layer in model.layers:
        for i, v in enumerate(layer.weights):
            if "int" in str(v.dtype):
                continue  # Normalization's count
            vals = weight_values(f"{layer.name}/{i}", v.path.rsplit("/", 1)[-1], layer.__class__.__name__, tuple(v.shape))
            v.assign(vals.astype(str(v.dtype)))


def input_values(kind, shape):
    n = int(np.prod(shape))
    s = np.sin(0.37 * np.arange(n, dtype=np.float64) + 0.5)
    if kind == "pixels":
        s = 127.5 + 127.5 * s
    return s.reshape(shape).astype(np.float32)


def sample(y):
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    stride = max(1, len(y) // SAMPLES)
    return {"size": len(y), "stride": stride, "values": [float(v) for v in y[::stride][:SAMPLES]],
            "mean": float(y.mean()), "mean_abs": float(np.abs(y).mean())}


def counts(model):
    tr = sum(int(np.prod(v.shape)) for v in model.trainable_weights)
    non = sum(int(np.prod(v.shape)) for v in model.non_trainable_weights)
    return tr, non


def to_float16(path):
    """Rewrites an HDF5 file with its float32 datasets as float16 (into a
    new file: HDF5 does not give back the space of a deleted dataset)."""
    import h5py

    def copy(src, dst):
        for k, v in src.attrs.items():
            dst.attrs[k] = v
        for name, obj in src.items():
            if isinstance(obj, h5py.Group):
                copy(obj, dst.create_group(name))
            else:
                vals = obj[()]
                if obj.dtype == np.float32:
                    vals = np.asarray(vals, np.float16)
                d = dst.create_dataset(name, data=vals)
                for k, v in obj.attrs.items():
                    d.attrs[k] = v

    tmp = path + ".tmp"
    with h5py.File(path, "r") as src, h5py.File(tmp, "w") as dst:
        copy(src, dst)
    os.replace(tmp, path)


def file_case():
    """Writes the two weight files and returns the predictions case for them."""
    from keras.src.legacy.saving import legacy_h5_format
    import h5py

    kwargs = {"alpha": 0.25, "include_top": False, "input_shape": [32, 32, 3]}
    model = build("MobileNet", kwargs)
    set_weights(model)
    for v in model.weights:
        v.assign(np.asarray(v.numpy(), np.float16).astype(np.float32))
    path = os.path.join(OUT, "mobilenet_025.weights.h5")
    model.save_weights(path)
    to_float16(path)
    path = os.path.join(OUT, "mobilenet_025.h5")
    with h5py.File(path, "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, model)
    to_float16(path)
    x = input_values("centered", (1, 32, 32, 3))
    y = model.predict(x, verbose=0)
    return {"constructor": "MobileNet", "kwargs": kwargs, "input": "centered", "file": True,
            "output_shape": list(y.shape), "output": sample(y)}


PREPROCESS = ["resnet", "resnet_v2", "vgg16", "vgg19", "mobilenet", "mobilenet_v2", "mobilenet_v3", "densenet",
              "efficientnet", "efficientnet_v2", "inception_v3", "inception_resnet_v2", "xception", "convnext",
              "nasnet"]


def preprocess_cases():
    x = (127.5 + 127.5 * np.sin(0.9 * np.arange(2 * 2 * 3 * 2) + 0.2)).reshape(2, 2, 3, 2)
    x = np.moveaxis(x, -1, 0).astype(np.float32)  # (2, 2, 3, 2) -> (2, 2, 2, 3): channels last
    cases = []
    for fam in PREPROCESS:
        mod = getattr(A, fam)
        y = mod.preprocess_input(np.array(x))
        cases.append({"family": fam, "input": {"shape": list(x.shape), "data": [float(v) for v in x.reshape(-1)]},
                      "output": [float(v) for v in np.asarray(y, np.float32).reshape(-1)]})
    return cases


def custom_scale_case():
    from keras.src.applications.inception_resnet_v2 import CustomScaleLayer

    keras.backend.clear_session()
    inp = keras.Input((5, 5, 3), name="image")
    up = keras.layers.Conv2D(3, 1, name="up")(inp)
    y = CustomScaleLayer(0.17, name="custom_scale_layer")([inp, up])
    y = keras.layers.Activation("relu", name="ac")(y)
    model = keras.Model(inp, y, name="block_like")
    set_weights(model)
    model.save(os.path.join(OUT, "custom_scale.keras"))
    x = input_values("centered", (1, 5, 5, 3))
    y = model.predict(x, verbose=0)
    return {"constructor": "CustomScaleLayer", "kwargs": {"input_shape": [5, 5, 3]}, "input": "centered",
            "keras_file": "custom_scale.keras", "output_shape": list(y.shape), "output": sample(y)}


def norm_case():
    from keras.src.legacy.saving import legacy_h5_format
    import h5py

    keras.backend.clear_session()
    inp = keras.Input((4, 4, 3), name="image")
    x = keras.layers.Rescaling(1.0 / 255.0, name="rescaling")(inp)
    norm = keras.layers.Normalization(axis=3, name="normalization")
    x = norm(x)
    x = keras.layers.Conv2D(2, 1, name="stem_conv")(x)
    model = keras.Model(inp, x, name="stem_like")
    norm.adapt(input_values("pixels", (6, 4, 4, 3)) / 255.0)
    for v in norm.weights:
        if v.path.endswith("count"):
            v.assign(96)  # Keras 3's adapt leaves it at 0; older files hold the sample count
    conv = model.get_layer("stem_conv")
    for i, v in enumerate(conv.weights):
        v.assign(weight_values(f"stem_conv/{i}", v.path.rsplit("/", 1)[-1], "Conv2D", tuple(v.shape)).astype("float32"))
    model.save_weights(os.path.join(OUT, "norm_count.weights.h5"))
    with h5py.File(os.path.join(OUT, "norm_count.h5"), "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, model)
    x = input_values("pixels", (1, 4, 4, 3))
    y = model.predict(x, verbose=0)
    return {"constructor": "stem_like", "kwargs": {"input_shape": [4, 4, 3]}, "input": "pixels",
            "norm_file": True, "output_shape": list(y.shape), "output": sample(y)}


def main():
    os.makedirs(OUT, exist_ok=True)
    manifest = {"generator": "tools/keras_reference/applications_vectors.py", "keras": keras.__version__,
                "tensorflow": tf.__version__}
    cases = []
    for ctor, kwargs in [(c, {}) for c in CONSTRUCTORS] + VARIANTS:
        model = build(ctor, kwargs)
        tr, non = counts(model)
        cases.append({"constructor": ctor, "kwargs": kwargs, "name": model.name, "trainable": tr,
                      "non_trainable": non,
                      "layers": layer_rows(model, (ctor, len(kwargs)) in SUMMARY)})
    text = json.dumps({"manifest": manifest, "cases": cases}, indent=None, separators=(",", ":")) + "\n"
    with open(os.path.join(OUT, "structure.json.gz"), "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write(text.encode())

    with open(os.path.join(OUT, "preprocess.json"), "w") as f:
        json.dump({"manifest": manifest, "cases": preprocess_cases()}, f, indent=None, separators=(",", ":"))
        f.write("\n")

    preds = [file_case(), custom_scale_case(), norm_case()]
    for ctor, kwargs, kind in PREDICT:
        model = build(ctor, kwargs)
        set_weights(model)
        x = input_values(kind, (1,) + tuple(kwargs["input_shape"]))
        y = model.predict(x, verbose=0)
        preds.append({"constructor": ctor, "kwargs": kwargs, "input": kind, "output_shape": list(y.shape),
                      "output": sample(y)})
        print(f"{ctor}: output {y.shape}, mean |y| {np.abs(y).mean():.4g}, max |y| {np.abs(y).max():.4g}", flush=True)
    with open(os.path.join(OUT, "predictions.json"), "w") as f:
        json.dump({"manifest": manifest, "cases": preds}, f, indent=None, separators=(",", ":"))
        f.write("\n")



if __name__ == "__main__":
    main()
