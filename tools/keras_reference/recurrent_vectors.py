"""Writes Keras test vectors for gokeras' recurrent layers.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/recurrent_vectors.py

It writes keras/layers/testdata/keras/recurrent.json: for SimpleRNN, LSTM,
GRU (reset_after both ways), RNN over an LSTMCell, Bidirectional (every
merge mode), TimeDistributed, RepeatVector and Masking, in inference: the
layer's get_config(), weights (layer.weights order), input, optional
timestep mask (passed as mask=), output, final states (return_state), and
the gradients of sum(y*dy) with respect to the input and the trainable
weights. The Go test keras/registry_recurrent_test.go rebuilds each layer
from the config through keras.LayerFromConfig and compares within 1e-5.
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

SEED = 20261124
OUT = "keras/layers/testdata/keras/recurrent.json"


def manifest():
    return {
        "generator": "tools/keras_reference/recurrent_vectors.py",
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
    # (name, layer, input shape, mask (batch, timesteps) or None, covers)
    specs = [
        ("simple_rnn", L.SimpleRNN(4), (2, 5, 3), None),
        ("simple_rnn_relu_seq", L.SimpleRNN(3, activation="relu", return_sequences=True), (2, 4, 3), None),
        ("lstm", L.LSTM(4), (2, 5, 3), None),
        ("lstm_seq_backwards", L.LSTM(3, return_sequences=True, go_backwards=True), (2, 4, 3), None),
        ("lstm_return_state", L.LSTM(3, return_state=True, unit_forget_bias=False), (3, 4, 2), None),
        ("lstm_no_bias", L.LSTM(3, use_bias=False, return_sequences=True), (2, 3, 2), None),
        ("lstm_masked_seq", L.LSTM(3, return_sequences=True), (3, 5, 2), "mask"),
        ("lstm_masked_last", L.LSTM(3), (3, 5, 2), "mask"),
        ("lstm_masked_zero_output", L.LSTM(3, return_sequences=True, zero_output_for_mask=True), (3, 5, 2), "mask"),
        ("lstm_masked_backwards", L.LSTM(3, go_backwards=True, return_sequences=True), (3, 5, 2), "mask"),
        # 16 timesteps or more: gokeras runs these through its fused ops.
        ("lstm_long_masked", L.LSTM(3, return_sequences=True), (3, 20, 2), "mask"),
        ("lstm_long_backwards_state", L.LSTM(4, go_backwards=True, return_state=True), (2, 17, 3), None),
        ("gru_long_masked", L.GRU(3, return_sequences=True), (3, 18, 2), "mask"),
        ("gru_long_backwards_no_bias", L.GRU(3, go_backwards=True, use_bias=False), (2, 16, 3), None),
        ("gru", L.GRU(4, return_sequences=True), (2, 5, 3), None),
        ("gru_reset_before", L.GRU(3, reset_after=False), (2, 4, 3), None),
        ("gru_return_state_backwards", L.GRU(3, return_state=True, go_backwards=True), (2, 4, 3), None),
        ("gru_masked", L.GRU(3, return_sequences=True), (3, 5, 2), "mask"),
        ("rnn_lstm_cell", L.RNN(L.LSTMCell(3), return_sequences=True), (2, 4, 3), None),
        ("rnn_gru_cell", L.RNN(L.GRUCell(2)), (2, 4, 3), None),
        ("rnn_simple_cell", L.RNN(L.SimpleRNNCell(2)), (2, 4, 3), None),
        ("bidirectional_concat", L.Bidirectional(L.LSTM(3)), (2, 4, 3), None),
        ("bidirectional_seq_sum", L.Bidirectional(L.LSTM(3, return_sequences=True), merge_mode="sum"), (2, 4, 3), None),
        ("bidirectional_gru_mul", L.Bidirectional(L.GRU(3), merge_mode="mul"), (2, 4, 3), None),
        ("bidirectional_seq_ave_masked", L.Bidirectional(L.SimpleRNN(3, return_sequences=True), merge_mode="ave"), (3, 5, 2), "mask"),
        ("bidirectional_seq_concat_masked", L.Bidirectional(L.LSTM(2, return_sequences=True)), (3, 5, 2), "mask"),
        ("time_distributed_dense", L.TimeDistributed(L.Dense(3, activation="tanh")), (2, 4, 5), None),
        ("repeat_vector", L.RepeatVector(3), (2, 4), None),
        ("masking", L.Masking(mask_value=0.0), (2, 4, 3), "zero_steps"),
    ]
    out = []
    for name, layer, shape, maskkind in specs:
        x = rng.standard_normal(shape).astype(np.float32)
        mask = None
        if maskkind == "mask":
            # Every row starts with a valid step; holes and trailing padding.
            mask = np.ones(shape[:2], dtype=bool)
            mask[0, 3:] = False
            mask[1, 1] = False
            mask[1, 4] = False
            mask[2, 2:4] = False
        if maskkind == "zero_steps":
            x[0, 1, :] = 0
            x[1, 3, :] = 0
        layer.build(shape)
        weights = [(rng.standard_normal(w.shape) * 0.5).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        xt = tf.constant(x)
        kwargs = {}
        if mask is not None:
            kwargs["mask"] = tf.constant(mask)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            res = layer(xt, training=False, **kwargs)
            states = []
            if isinstance(res, (list, tuple)):
                y, states = res[0], list(res[1:])
            else:
                y = res
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy)
        grads = tape.gradient(loss, [xt] + list(layer.trainable_weights))
        covers = sorted({layer.__class__.__name__} | ({getattr(layer, "layer").__class__.__name__} if hasattr(layer, "layer") else set())
                        | ({layer.cell.__class__.__name__} if layer.__class__.__name__ == "RNN" else set()))
        case = {
            "name": name, "class_name": layer.__class__.__name__, "covers": covers,
            "config": json.loads(json.dumps(layer.get_config(), default=str)),
            "shape": list(shape), "x": arr(x),
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(v)} for w, v in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dx": arr(grads[0]), "dweights": [arr(g) for g in grads[1:]],
            "states": [{"shape": list(s.shape), "value": arr(s)} for s in states],
        }
        if mask is not None:
            case["mask"] = arr(mask.astype(np.float32))
        out.append(case)
    return out


def main():
    rng = np.random.default_rng(SEED + 17)
    keras.utils.set_random_seed(SEED)
    path = OUT
    os.makedirs(os.path.dirname(path), exist_ok=True)
    cs = cases(rng)
    with open(path, "w") as f:
        json.dump({"manifest": manifest(), "cases": cs}, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(cs)} cases")


if __name__ == "__main__":
    main()
