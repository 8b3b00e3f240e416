"""Writes Keras test vectors for gokeras' GroupedQueryAttention.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/grouped_query_attention_vectors.py

It writes keras/layers/testdata/keras/grouped_query_attention.json: for
keras.layers.GroupQueryAttention (self- and cross-attention with a key,
multi-query and multi-head extremes, no bias, use_gate, sliding_window,
attention masks of rank 3 and 4 with a fully masked query row, causal
masks, the Keras masks of query, value and key, dropout in inference),
each case's get_config() (before the first call), the inputs, the masks,
the call arguments, the weights (layer.weights order) and two calls:
with return_attention_scores=True (Keras' explicit-scores path: y,
scores, and the gradients of sum(y*dy) + sum(scores*ds)) and without it
(Keras' fused dot-product path when dropout is 0: y_call and the
gradients of sum(y_call*dy)). The Go test
keras/registry_grouped_query_attention_test.go rebuilds each layer with
keras.LayerFromConfig and compares within 1e-5.

It also writes keras/testdata/keras/grouped_query_attention_model.keras,
a functional model Keras saved with three GroupQueryAttention layers (a
causal self-attention with use_gate over an Embedding with mask_zero, a
cross-attention with a key, a sliding window), and
grouped_query_attention_model.json with its inputs and predictions.
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

SEED = 20261202
OUT = "keras/layers/testdata/keras/grouped_query_attention.json"
MODEL = "keras/testdata/keras/grouped_query_attention_model.keras"
MODEL_JSON = "keras/testdata/keras/grouped_query_attention_model.json"


def manifest():
    return {
        "generator": "tools/keras_reference/grouped_query_attention_vectors.py",
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


def bool_mask(rng, shape, keep_first=True):
    m = rng.random(shape) < 0.6
    if keep_first:
        m[..., 0] = True  # every row keeps a position
    return m


def cases(rng):
    G = keras.layers.GroupQueryAttention
    # name, layer, input shapes [query, value, key?], self-attention,
    # masks (Keras masks of the inputs or the attention_mask argument;
    # "attention_mask_dead" leaves query row 1 of batch 0 without a key),
    # call kwargs.
    specs = [
        ("gqa_self", G(head_dim=3, num_query_heads=4, num_key_value_heads=2), [(2, 4, 6)], True, {}, {}),
        ("gqa_cross_key", G(head_dim=2, num_query_heads=6, num_key_value_heads=3), [(2, 3, 5), (2, 4, 5), (2, 4, 7)],
         False, {}, {}),
        ("gqa_multi_query_no_bias", G(head_dim=3, num_query_heads=4, num_key_value_heads=1, use_bias=False),
         [(2, 3, 4), (2, 5, 4)], False, {}, {}),
        ("gqa_multi_head", G(head_dim=2, num_query_heads=2, num_key_value_heads=2), [(3, 3, 4), (3, 4, 4)], False, {}, {}),
        ("gqa_attention_mask_dead_row", G(head_dim=2, num_query_heads=4, num_key_value_heads=2), [(2, 3, 4), (2, 5, 4)],
         False, {"attention_mask_dead": (2, 3, 5)}, {}),
        ("gqa_attention_mask_per_head", G(head_dim=2, num_query_heads=4, num_key_value_heads=2), [(2, 3, 4), (2, 5, 4)],
         False, {"attention_mask": (2, 4, 3, 5)}, {}),
        ("gqa_causal", G(head_dim=3, num_query_heads=2, num_key_value_heads=1), [(2, 5, 4)], True, {},
         {"use_causal_mask": True}),
        ("gqa_keras_masks", G(head_dim=2, num_query_heads=4, num_key_value_heads=2), [(3, 4, 5), (3, 5, 5), (3, 5, 3)],
         False, {"query_mask": (3, 4), "value_mask": (3, 5), "key_mask": (3, 5)}, {}),
        ("gqa_gate", G(head_dim=3, num_query_heads=4, num_key_value_heads=2, use_gate=True), [(2, 4, 5), (2, 3, 5)],
         False, {}, {}),
        ("gqa_sliding_window_causal", G(head_dim=2, num_query_heads=4, num_key_value_heads=2, sliding_window=2),
         [(2, 5, 3)], True, {}, {"use_causal_mask": True}),
        ("gqa_sliding_window", G(head_dim=2, num_query_heads=2, num_key_value_heads=1, sliding_window=3),
         [(2, 4, 3), (2, 6, 3)], False, {}, {}),
        ("gqa_dropout_inference_dead_row", G(head_dim=2, num_query_heads=4, num_key_value_heads=2, dropout=0.2, seed=3),
         [(2, 3, 4), (2, 5, 4)], False, {"attention_mask_dead": (2, 3, 5)}, {}),
    ]
    out = []
    for name, layer, shapes, self_attn, maskspec, kwargs in specs:
        config = json.loads(json.dumps(layer.get_config(), default=str))
        xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        masks = {}
        for k, s in maskspec.items():
            m = bool_mask(rng, s)
            if k == "attention_mask_dead":
                m[0, 1, :] = False
                k = "attention_mask"
            masks[k] = m
        if self_attn:
            layer.build(shapes[0], shapes[0])
        else:
            layer.build(*shapes)
        weights = [(rng.standard_normal(w.shape) * 0.5).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        ts = [tf.constant(x) for x in xs]

        def call(tape, with_scores):
            for t in ts:
                tape.watch(t)
            # Keras masks ride on (copies of) the input tensors.
            q = tf.identity(ts[0])
            v = q if self_attn else tf.identity(ts[1])
            k = tf.identity(ts[2]) if len(ts) > 2 else None
            if "query_mask" in masks:
                backend.set_keras_mask(q, tf.constant(masks["query_mask"]))
            if "value_mask" in masks and not self_attn:
                backend.set_keras_mask(v, tf.constant(masks["value_mask"]))
            if "key_mask" in masks:
                backend.set_keras_mask(k, tf.constant(masks["key_mask"]))
            args = dict(kwargs, training=False)
            if with_scores:
                args["return_attention_scores"] = True
            if "attention_mask" in masks:
                args["attention_mask"] = tf.constant(masks["attention_mask"])
            return layer(q, v, key=k, **args)

        with tf.GradientTape() as tape:
            y, s = call(tape, True)
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            ds = tf.constant(rng.standard_normal(s.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy) + tf.reduce_sum(s * ds)
        grads = tape.gradient(loss, ts + list(layer.trainable_weights))
        with tf.GradientTape() as tape:
            yc = call(tape, False)
            loss = tf.reduce_sum(yc * dy)
        gc = tape.gradient(loss, ts + list(layer.trainable_weights))
        case = {
            "name": name, "class_name": "GroupQueryAttention", "config": config,
            "self_attention": self_attn, "call": {k: bool(v) for k, v in kwargs.items()},
            "inputs": [{"shape": list(x.shape), "value": arr(x)} for x in xs],
            "masks": {k: {"shape": list(m.shape), "value": arr(m.astype(np.float32))} for k, m in masks.items()},
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(wv)} for w, wv in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "scores_shape": list(s.shape), "scores": arr(s),
            "dy": arr(dy), "ds": arr(ds),
            "dinputs": [arr(g) for g in grads[:len(ts)]],
            "dweights": [arr(g) for g in grads[len(ts):]],
            "y_call": arr(yc),
            "dinputs_call": [arr(g) for g in gc[:len(ts)]],
            "dweights_call": [arr(g) for g in gc[len(ts):]],
        }
        out.append(case)
    return out


def model_file(rng):
    L = keras.layers
    B, T, S, V, D = 3, 5, 4, 9, 8
    ids = keras.Input((T,), dtype="int32", name="ids")
    ctx = keras.Input((S, D), name="context")
    e = L.Embedding(V, D, mask_zero=True)(ids)
    a = L.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2, use_gate=True)(
        e, e, use_causal_mask=True)
    k = L.Dense(6)(ctx)
    c = L.GroupQueryAttention(head_dim=3, num_query_heads=2, num_key_value_heads=1)(a, ctx, key=k)
    w = L.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=4, sliding_window=2)(c, c)
    y = L.Dense(3)(L.GlobalAveragePooling1D()(w))
    model = keras.Model([ids, ctx], y)
    for wt in model.weights:
        wt.assign((rng.standard_normal(wt.shape) * 0.5).astype(np.float32))
    x_ids = rng.integers(1, V, size=(B, T)).astype(np.int32)
    x_ids[0, 3:] = 0  # padding the mask drops
    x_ids[1, 4:] = 0
    x_ctx = rng.standard_normal((B, S, D)).astype(np.float32)
    pred = model.predict([x_ids, x_ctx], verbose=0)
    os.makedirs(os.path.dirname(MODEL), exist_ok=True)
    model.save(MODEL)
    with open(MODEL_JSON, "w") as f:
        json.dump({"manifest": manifest(), "file": os.path.basename(MODEL),
                   "ids_shape": [B, T], "ids": arr(x_ids), "context_shape": [B, S, D], "context": arr(x_ctx),
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
