"""Writes Keras test vectors for gokeras' ConvLSTM1D and ConvLSTM2D.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/conv_lstm_vectors.py

It writes keras/layers/testdata/keras/conv_lstm.json: for ConvLSTM2D
(Keras' defaults, "same" padding with an even kernel, strides,
dilation_rate, no bias, unit_forget_bias off, other activations,
return_sequences, go_backwards, a timestep mask with and without
zero_output_for_mask) and ConvLSTM1D, in inference: each layer's
get_config() (before the first call), the input, the mask, the weights
(layer.weights order), the output and the gradients of sum(y*dy) with
respect to the input and the weights. The Go test
keras/registry_conv_lstm_test.go rebuilds each layer with
keras.LayerFromConfig and compares within 1e-5.

It also writes keras/testdata/keras/conv_lstm_model.keras, a functional
model Keras saved with two ConvLSTM2D and a ConvLSTM1D, and
conv_lstm_model.json with its inputs and predictions.
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
from keras.src import backend  # noqa: E402

SEED = 20261203
OUT = "keras/layers/testdata/keras/conv_lstm.json"
MODEL = "keras/testdata/keras/conv_lstm_model.keras"
MODEL_JSON = "keras/testdata/keras/conv_lstm_model.json"


def manifest():
    return {
        "generator": "tools/keras_reference/conv_lstm_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
        "dtype": "float32",
    }


def arr(a):
    """A float32 array as a flat list of floats (exact float32 values)."""
    a = np.asarray(a, dtype=np.float32)
    return [float(v) for v in a.reshape(-1)]


def cases(rng):
    L = keras.layers
    # name, layer, input shape, timestep mask
    specs = [
        ("conv_lstm2d_defaults", L.ConvLSTM2D(3, 3), (2, 3, 5, 6, 2), False),
        ("conv_lstm2d_same_even_kernel_sequences", L.ConvLSTM2D(2, (2, 3), padding="same", return_sequences=True),
         (2, 3, 4, 5, 3), False),
        ("conv_lstm2d_strides_backwards", L.ConvLSTM2D(3, 3, strides=2, padding="same", go_backwards=True,
                                                        return_sequences=True), (2, 3, 7, 6, 2), False),
        ("conv_lstm2d_dilation_nobias_activations", L.ConvLSTM2D(2, 2, dilation_rate=2, use_bias=False,
                                                                  activation="relu", recurrent_activation="hard_sigmoid"),
         (2, 4, 6, 5, 2), False),
        ("conv_lstm2d_no_unit_forget_bias", L.ConvLSTM2D(2, 3, padding="same", unit_forget_bias=False,
                                                          bias_initializer="ones"), (1, 2, 4, 4, 3), False),
        ("conv_lstm2d_masked_sequences", L.ConvLSTM2D(2, 3, padding="same", return_sequences=True),
         (3, 4, 4, 4, 2), True),
        ("conv_lstm2d_masked_zero_output", L.ConvLSTM2D(2, 3, return_sequences=True, zero_output_for_mask=True),
         (3, 4, 5, 5, 2), True),
        ("conv_lstm2d_masked_last", L.ConvLSTM2D(2, 3, go_backwards=True), (3, 4, 5, 4, 2), True),
        ("conv_lstm1d_defaults", L.ConvLSTM1D(3, 3), (2, 3, 7, 2), False),
        ("conv_lstm1d_same_sequences_strides", L.ConvLSTM1D(4, 2, strides=2, padding="same", return_sequences=True),
         (2, 4, 7, 3), False),
        ("conv_lstm1d_dilation_masked", L.ConvLSTM1D(2, 3, dilation_rate=2, return_sequences=True), (3, 4, 8, 2), True),
    ]
    out = []
    for name, layer, shape, masked in specs:
        config = json.loads(json.dumps(layer.get_config(), default=str))
        x = rng.standard_normal(shape).astype(np.float32)
        mask = None
        if masked:
            mask = rng.random(shape[:2]) < 0.7
            mask[:, 0] = True
            mask[0, -1] = False
        layer.build(shape)
        weights = [(rng.standard_normal(w.shape) * 0.4).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        t = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(t)
            xin = tf.identity(t)
            if mask is not None:
                backend.set_keras_mask(xin, tf.constant(mask))
            y = layer(xin, training=False)
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy)
        grads = tape.gradient(loss, [t] + list(layer.trainable_weights))
        case = {
            "name": name, "class_name": layer.__class__.__name__, "config": config,
            "shape": list(shape), "x": arr(x),
            "mask": arr(mask.astype(np.float32)) if mask is not None else None,
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(wv)} for w, wv in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dx": arr(grads[0]), "dweights": [arr(g) for g in grads[1:]],
        }
        out.append(case)
    return out


def model_file(rng):
    L = keras.layers
    B = 2
    video = keras.Input((4, 6, 6, 2), name="video")
    signal = keras.Input((5, 7, 3), name="signal")
    a = L.ConvLSTM2D(4, 3, padding="same", return_sequences=True)(video)
    a = L.ConvLSTM2D(2, 3, go_backwards=True)(a)
    b = L.ConvLSTM1D(3, 2)(signal)
    y = L.Dense(3)(L.Concatenate()([L.Flatten()(a), L.Flatten()(b)]))
    model = keras.Model([video, signal], y)
    for w in model.weights:
        w.assign((rng.standard_normal(w.shape) * 0.3).astype(np.float32))
    xv = rng.standard_normal((B, 4, 6, 6, 2)).astype(np.float32)
    xs = rng.standard_normal((B, 5, 7, 3)).astype(np.float32)
    pred = model.predict([xv, xs], verbose=0)
    os.makedirs(os.path.dirname(MODEL), exist_ok=True)
    model.save(MODEL)
    with open(MODEL_JSON, "w") as f:
        json.dump({"manifest": manifest(), "file": os.path.basename(MODEL),
                   "video_shape": list(xv.shape), "video": arr(xv), "signal_shape": list(xs.shape), "signal": arr(xs),
                   "pred_shape": list(pred.shape), "predictions": arr(pred)}, f, indent=1)
        f.write("\n")


def main():
    rng = np.random.default_rng(SEED + 1)
    keras.utils.set_random_seed(SEED)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    cs = cases(rng)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": cs}, f, indent=1)
        f.write("\n")
    model_file(np.random.default_rng(SEED + 2))
    print(f"wrote {OUT}: {len(cs)} cases, and {MODEL}")


if __name__ == "__main__":
    main()
