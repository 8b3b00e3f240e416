"""Writes a .keras file Keras saved with its common augmentation layers.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/augmentation_model_vectors.py

It writes keras/testdata/keras/augmentation_model.keras: a functional
model calling a Sequential block of RandomFlip, RandomRotation,
RandomZoom, RandomTranslation, RandomContrast and RandomBrightness
(arguments other than their defaults: factors, fill modes,
interpolation, value ranges, seeds), as keras.io's image classification
tutorial does, then a grouped Conv2D and a Dense, and augmentation_model.json with an input
and Keras' predictions (inference: the augmentation layers pass their
input through), which keras/augmentation_model_keras_test.go compares
with gokeras' after LoadModel.
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

SEED = 20261205
MODEL = "keras/testdata/keras/augmentation_model.keras"
MODEL_JSON = "keras/testdata/keras/augmentation_model.json"


def main():
    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    L = keras.layers
    # As keras.io's "Image classification from scratch": the augmentation
    # layers in a Sequential block called by the functional model.
    augmentation = keras.Sequential([
        L.RandomFlip("horizontal", seed=1),
        L.RandomRotation(0.1, fill_mode="constant", fill_value=0.5, seed=2),
        L.RandomZoom((-0.2, 0.1), width_factor=0.1, interpolation="nearest", seed=3),
        L.RandomTranslation(0.1, (-0.2, 0.2), fill_mode="nearest", seed=4),
        L.RandomContrast(0.3, value_range=(0, 1), seed=5),
        L.RandomBrightness(0.2, value_range=(0, 1), seed=6),
    ], name="augmentation")
    x = keras.Input((12, 10, 4))
    a = augmentation(x)
    a = L.Conv2D(6, 3, groups=2, activation="relu")(a)
    y = L.Dense(3)(L.Flatten()(a))
    model = keras.Model(x, y)
    for w in model.weights:
        w.assign((rng.standard_normal(w.shape) * 0.3).astype(np.float32))
    xs = rng.random((2, 12, 10, 4)).astype(np.float32)
    pred = model.predict(xs, verbose=0)
    classes = sorted({l.__class__.__name__ for l in model.layers + augmentation.layers})
    os.makedirs(os.path.dirname(MODEL), exist_ok=True)
    model.save(MODEL)
    with open(MODEL_JSON, "w") as f:
        json.dump({"manifest": {"generator": "tools/keras_reference/augmentation_model_vectors.py",
                                "tensorflow": tf.__version__, "keras": keras.__version__,
                                "numpy": np.__version__, "python": sys.version.split()[0], "seed": SEED},
                   "file": os.path.basename(MODEL), "classes": classes,
                   "x_shape": list(xs.shape), "x": [float(v) for v in xs.reshape(-1)],
                   "pred_shape": list(pred.shape), "predictions": [float(v) for v in pred.reshape(-1)]}, f, indent=1)
        f.write("\n")
    print(f"wrote {MODEL}")


if __name__ == "__main__":
    main()
