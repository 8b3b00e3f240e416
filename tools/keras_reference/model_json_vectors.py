"""Writes keras/testdata/keras/model_json.json: Keras 3's model.to_json()
of a Sequential and a functional model, with count_params() and the layer
names, for gokeras' ModelFromJSON test (keras/model_methods_test.go).

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/model_json_vectors.py
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers  # noqa: E402

OUT = "keras/testdata/keras/model_json.json"


def main():
    seq = keras.Sequential([
        keras.Input((28, 28, 1)),
        layers.Conv2D(8, 3, activation="relu", name="conv"),
        layers.MaxPooling2D(name="pool"),
        layers.Flatten(name="flatten"),
        layers.BatchNormalization(name="bn"),
        layers.Dense(10, name="logits"),
    ], name="cnn")
    inp = keras.Input((6,), name="features")
    h = layers.Dense(4, activation="relu", name="hidden")(inp)
    out = layers.Dense(1, name="out")(layers.Dropout(0.5, name="drop")(h))
    fn = keras.Model(inp, out, name="mlp")
    cases = []
    for m in (seq, fn):
        cases.append({"name": m.name, "json": m.to_json(), "count_params": m.count_params(),
                      "layers": [l.name for l in m.layers]})
    with open(OUT, "w") as f:
        manifest = {"generator": "tools/keras_reference/model_json_vectors.py", "keras": keras.__version__,
                    "tensorflow": tf.__version__}
        json.dump({"manifest": manifest, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
