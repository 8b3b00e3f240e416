"""Writes Keras test vectors for gokeras' attention layers.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/attention_vectors.py

It writes keras/layers/testdata/keras/attention.json: for
MultiHeadAttention (self- and cross-attention, value_dim, output_shape,
no bias, attention_axes on rank-4 inputs, attention masks, causal masks,
the Keras masks of query, value and key), Attention (dot and concat
scores, use_scale, masks, causal) and AdditiveAttention, in inference:
the layer's get_config() (taken before the first call, as a user wrote
it), the inputs, the masks, the call arguments, the weights (layer.weights
order), the output, the attention scores, and the gradients of
sum(y*dy) + sum(scores*ds) with respect to the inputs and the trainable
weights. The Go test keras/registry_attention_test.go rebuilds each layer
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
from keras.src import backend  # noqa: E402

SEED = 20261124
OUT = "keras/layers/testdata/keras/attention.json"


def manifest():
    return {
        "generator": "tools/keras_reference/attention_vectors.py",
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
    L = keras.layers
    # name, layer, input shapes [query, value, key?], self-attention (value
    # is query), masks {query_mask, value_mask, key_mask, attention_mask}
    # (Keras masks of the inputs, or the attention_mask argument),
    # call kwargs.
    specs = [
        ("mha_self", L.MultiHeadAttention(num_heads=2, key_dim=3), [(2, 4, 5)], True, {}, {}),
        ("mha_cross_key_value_dim", L.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=4, output_shape=6),
         [(2, 3, 5), (2, 4, 6), (2, 4, 7)], False, {}, {}),
        ("mha_no_bias", L.MultiHeadAttention(num_heads=2, key_dim=4, use_bias=False), [(2, 3, 4), (2, 5, 4)], False, {}, {}),
        ("mha_attention_mask", L.MultiHeadAttention(num_heads=2, key_dim=3), [(2, 3, 4), (2, 5, 4)], False,
         {"attention_mask": (2, 3, 5)}, {}),
        ("mha_causal", L.MultiHeadAttention(num_heads=2, key_dim=3), [(2, 5, 4)], True, {}, {"use_causal_mask": True}),
        ("mha_causal_and_mask", L.MultiHeadAttention(num_heads=2, key_dim=2, dropout=0.1), [(2, 4, 3)], True,
         {"attention_mask": (2, 4, 4)}, {"use_causal_mask": True}),
        ("mha_keras_masks", L.MultiHeadAttention(num_heads=2, key_dim=3), [(3, 4, 5), (3, 5, 5), (3, 5, 3)], False,
         {"query_mask": (3, 4), "value_mask": (3, 5), "key_mask": (3, 5)}, {}),
        ("mha_rank4_default_axes", L.MultiHeadAttention(num_heads=2, key_dim=2), [(2, 2, 3, 4)], True, {}, {}),
        ("mha_rank4_axis2", L.MultiHeadAttention(num_heads=2, key_dim=3, attention_axes=(2,)), [(2, 2, 3, 4), (2, 2, 5, 3)],
         False, {}, {}),
        ("attention_dot", L.Attention(), [(2, 3, 4), (2, 5, 4)], False, {}, {}),
        ("attention_scale_key", L.Attention(use_scale=True), [(2, 3, 4), (2, 5, 6), (2, 5, 4)], False, {}, {}),
        ("attention_concat", L.Attention(score_mode="concat", use_scale=True), [(2, 3, 4), (2, 5, 4)], False, {}, {}),
        ("attention_concat_noscale", L.Attention(score_mode="concat"), [(2, 3, 4), (2, 5, 4)], False, {}, {}),
        ("attention_masks", L.Attention(), [(3, 4, 3), (3, 5, 3)], False, {"query_mask": (3, 4), "value_mask": (3, 5)}, {}),
        ("attention_causal", L.Attention(dropout=0.2), [(2, 4, 3)], True, {}, {"use_causal_mask": True}),
        ("additive", L.AdditiveAttention(), [(2, 3, 4), (2, 5, 4)], False, {}, {}),
        ("additive_noscale_key", L.AdditiveAttention(use_scale=False), [(2, 3, 4), (2, 5, 2), (2, 5, 4)], False, {}, {}),
        ("additive_masked_causal", L.AdditiveAttention(), [(3, 4, 3)], True, {"query_mask": (3, 4), "value_mask": (3, 4)},
         {"use_causal_mask": True}),
    ]
    out = []
    for name, layer, shapes, self_attn, maskspec, kwargs in specs:
        config = json.loads(json.dumps(layer.get_config(), default=str))
        xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        masks = {k: bool_mask(rng, s) for k, s in maskspec.items()}
        mha = isinstance(layer, L.MultiHeadAttention)
        if self_attn:
            if mha:
                layer.build(shapes[0], shapes[0])
            else:
                layer.build([shapes[0], shapes[0]])
        elif mha:
            layer.build(*shapes)
        else:
            layer.build(list(shapes))
        weights = [(rng.standard_normal(w.shape) * 0.5).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        ts = [tf.constant(x) for x in xs]
        with tf.GradientTape() as tape:
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
            if mha:
                call = dict(kwargs, return_attention_scores=True, training=False)
                if "attention_mask" in masks:
                    call["attention_mask"] = tf.constant(masks["attention_mask"])
                y, s = layer(q, v, key=k, **call)
            else:
                inputs = [q, v] + ([k] if k is not None else [])
                call = dict(kwargs, return_attention_scores=True, training=False)
                if "query_mask" in masks or "value_mask" in masks:
                    vm = masks.get("value_mask")
                    if self_attn:
                        vm = masks.get("query_mask")
                    call["mask"] = [tf.constant(masks["query_mask"]) if "query_mask" in masks else None,
                                    tf.constant(vm) if vm is not None else None]
                y, s = layer(inputs, **call)
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            ds = tf.constant(rng.standard_normal(s.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy) + tf.reduce_sum(s * ds)
        grads = tape.gradient(loss, ts + list(layer.trainable_weights))
        if self_attn and "query_mask" in masks:
            masks["value_mask"] = masks["query_mask"]
        case = {
            "name": name, "class_name": layer.__class__.__name__, "config": config,
            "self_attention": self_attn, "call": {k: bool(v) for k, v in kwargs.items()},
            "inputs": [{"shape": list(x.shape), "value": arr(x)} for x in xs],
            "masks": {k: {"shape": list(m.shape), "value": arr(m.astype(np.float32))} for k, m in masks.items()},
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(wv)} for w, wv in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "scores_shape": list(s.shape), "scores": arr(s),
            "dy": arr(dy), "ds": arr(ds),
            "dinputs": [arr(g) for g in grads[:len(ts)]],
            "dweights": [arr(g) for g in grads[len(ts):]],
        }
        out.append(case)
    return out


def transformer_block(rng):
    """keras.io's text classifier in small: Embedding, a transformer block
    (MultiHeadAttention, Dropout, Add, LayerNormalization on the last axis
    of 3-D tensors, Dense on 3-D tensors), GlobalAveragePooling1D and a
    softmax Dense, in inference: every layer's config and weights (in
    model.layers order), the token ids, the output and the gradients of
    sum(y*dy) with respect to the trainable weights."""
    L = keras.layers
    B, T, V, D, H, F = 3, 6, 11, 8, 2, 5
    ids = keras.Input((T,), dtype="int32")
    e = L.Embedding(V, D)(ids)
    a = L.MultiHeadAttention(num_heads=H, key_dim=D)(e, e)
    a = L.Dropout(0.1)(a)
    o1 = L.LayerNormalization(epsilon=1e-6)(L.Add()([e, a]))
    f = L.Dense(F, activation="relu")(o1)
    f = L.Dense(D)(f)
    f = L.Dropout(0.1)(f)
    o2 = L.LayerNormalization(epsilon=1e-6)(L.Add()([o1, f]))
    p = L.GlobalAveragePooling1D()(o2)
    p = L.Dropout(0.1)(p)
    y = L.Dense(2, activation="softmax")(p)
    model = keras.Model(ids, y)
    ls = []
    for layer in model.layers[1:]:
        ws = [(rng.standard_normal(w.shape) * 0.5).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, ws):
            w.assign(v)
        ls.append({"class_name": layer.__class__.__name__,
                   "config": json.loads(json.dumps(layer.get_config(), default=str)),
                   "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(v)} for w, v in zip(layer.weights, ws)]})
    x = rng.integers(0, V, size=(B, T)).astype(np.int32)
    with tf.GradientTape() as tape:
        out = model(tf.constant(x), training=False)
        dy = tf.constant(rng.standard_normal(out.shape).astype(np.float32))
        loss = tf.reduce_sum(out * dy)
    grads = tape.gradient(loss, model.trainable_weights)
    return {"name": "transformer_block", "covers": sorted({l["class_name"] for l in ls}),
            "layers": ls, "x_shape": [B, T], "x": arr(x), "y_shape": list(out.shape), "y": arr(out),
            "dy": arr(dy), "dweights": [arr(tf.convert_to_tensor(g)) for g in grads]}


def main():
    rng = np.random.default_rng(SEED + 41)
    keras.utils.set_random_seed(SEED)
    path = OUT
    os.makedirs(os.path.dirname(path), exist_ok=True)
    cs = cases(rng)
    block = transformer_block(np.random.default_rng(SEED + 42))
    with open(path, "w") as f:
        json.dump({"manifest": manifest(), "cases": cs, "blocks": [block]}, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(cs)} cases")


if __name__ == "__main__":
    main()
