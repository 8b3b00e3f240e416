"""Writes keras/testdata/keras/mask_propagation.json and one
mask_propagation_<case>.weights.h5 per case (model.save_weights): small functional models in
which Embedding(mask_zero=True)'s timestep mask reaches a recurrent layer
or GlobalAveragePooling1D only through the layers between them, which
Keras' compute_mask carries (Dropout, Dense, LayerNormalization: the input's
mask; Add: the OR of its inputs' masks, none when one input has none;
Concatenate: along the steps the masks concatenated, along the features
ORed, an unmasked input counting as all kept) or drops (Conv1D). gokeras'
TestMaskPropagationMatchesKeras (keras/mask_propagation_test.go) builds the
same models in Go, loads these weights and compares its predictions. The
token rows have padding (0) in the middle and at the end.

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/run_all.py --only mask_propagation_vectors.py
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers  # noqa: E402

DIR = "keras/testdata/keras"
STEPS, VOCAB = 6, 12


def emb(x):
    return layers.Embedding(VOCAB, 4, mask_zero=True)(x)


# Each case: the model and its inputs' kinds ("ids": token rows, "float":
# a (steps, 4) float sequence, which carries no mask).
def case_chain():
    i = keras.Input((STEPS,))
    h = layers.LayerNormalization()(layers.Dense(5, activation="relu")(layers.Dropout(0.5)(emb(i))))
    return keras.Model(i, layers.Dense(2)(layers.LSTM(3)(h))), ["ids"]


def case_add():
    a, b = keras.Input((STEPS,)), keras.Input((STEPS,))
    h = layers.Add()([emb(a), emb(b)])
    return keras.Model([a, b], layers.GlobalAveragePooling1D()(layers.GRU(3, return_sequences=True)(h))), ["ids", "ids"]


def case_add_unmasked():
    a, b = keras.Input((STEPS,)), keras.Input((STEPS,))
    h = layers.Add()([emb(a), layers.Conv1D(4, 1)(emb(b))])
    return keras.Model([a, b], layers.SimpleRNN(3)(h)), ["ids", "ids"]


def case_concat_steps():
    a, b = keras.Input((STEPS,)), keras.Input((STEPS,))
    h = layers.Concatenate(axis=1)([emb(a), emb(b)])
    return keras.Model([a, b], layers.LSTM(2)(h)), ["ids", "ids"]


# An unmasked input counts as all steps kept. (Not Conv1D(emb(b)) here:
# Keras' compute_mask then puts operation nodes into the graph that change
# the layers' depths, and so their order, which gokeras' by-place weight
# loading follows; see the closing notes of issue 30.)
def case_concat_steps_unmasked():
    a, f = keras.Input((STEPS,)), keras.Input((STEPS, 4))
    h = layers.Concatenate(axis=1)([emb(a), f])
    return keras.Model([a, f], layers.LSTM(2)(h)), ["ids", "float"]


def case_concat_features():
    a, b = keras.Input((STEPS,)), keras.Input((STEPS,))
    h = layers.Concatenate()([emb(a), layers.Dense(3)(emb(b))])
    return keras.Model([a, b], layers.GRU(2)(h)), ["ids", "ids"]


CASES = [("chain", case_chain), ("add", case_add), ("add_unmasked", case_add_unmasked),
         ("concat_steps", case_concat_steps), ("concat_steps_unmasked", case_concat_steps_unmasked),
         ("concat_features", case_concat_features)]


def main():
    rng = np.random.default_rng(20261203)
    cases = []
    for name, build in CASES:
        model, kinds = build()
        # Biases and normalization offsets away from their zero start, so
        # that every weight shows in the outputs.
        for w in model.weights:
            w.assign(rng.normal(0, 0.5, w.shape).astype(np.float32))
        xs = []
        for kind in kinds:
            if kind == "float":
                xs.append(rng.normal(0, 1, (4, STEPS, 4)).astype(np.float32))
                continue
            x = rng.integers(1, VOCAB, (4, STEPS))
            x[0, 2] = 0          # a padded step in the middle
            x[1, -2:] = 0        # padding at the end
            x[2, 0] = 0          # at the start
            x[3, 1:4] = 0
            xs.append(x.astype(np.float32))
        y = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        path = os.path.join(DIR, f"mask_propagation_{name}.weights.h5")
        model.save_weights(path)
        cases.append({"name": name, "inputs": [x.ravel().tolist() for x in xs], "input_shapes": [list(x.shape) for x in xs],
                      "shape": list(y.shape),
                      "y": y.ravel().tolist(), "weights": os.path.basename(path)})
    with open(os.path.join(DIR, "mask_propagation.json"), "w") as f:
        manifest = {"generator": "tools/keras_reference/mask_propagation_vectors.py", "keras": keras.__version__,
                    "tensorflow": tf.__version__}
        json.dump({"manifest": manifest, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
