"""Writes keras/testdata/zoo/: Keras 3 model files of the kinds issue 30's
zoo refused, with inputs and Keras' predictions, for keras/zoo_keras_test.go.

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/zoo_vectors.py

Every model is saved as <name>.keras; the small ones also as
<name>.weights.h5 and as a legacy <name>.h5 (cases "weights" and "legacy").
manifest.json lists the cases: the files, the inputs (shape, dtype, values
row-major) and Keras' outputs for them (model.predict), the parameter
count and model.layers' names.

The models:

- the keras.applications architectures, with seeded random weights (every
  variable drawn again: kernels around Keras' initial scale, batch
  normalization statistics and scales near 1, LayerScale's gamma near 1 so
  that the residual branches count) and reduced sizes so that the files
  stay at a few hundred KB (about 200 KB compressed: the random weights,
  some 50 000 values each, do not compress; the configs and HDF5 headers
  do). The images are integer pixel values in [0, 255]:
  - efficientnet_b0: EfficientNet's builder with B0's block list, depth
    coefficient 0.5 (10 of its 16 blocks; the repeated ones residual, with
    Dropout(noise_shape=(None, 1, 1, 1))), width coefficient 0.1, 32x32
    inputs (Keras' least), 10 classes;
  - mobilenet_v3_small: MobileNetV3Small(alpha=0.1) on 32x32 inputs, 10
    classes, its head's 1024-channel convolution cut to 32 (the builder's
    last_point_ch; the full head alone is 4 times the rest): hard_sigmoid
    and hard_swish as Add(x, 3.0) and Multiply(x, 1/6) operation nodes;
  - convnext_tiny: ConvNeXt's builder with ConvNeXtTiny's layer kinds
    (depthwise Conv2D with groups = channels, LayerNormalization, Dense,
    GELU, LayerScale, the residual Add operation, the stem and
    downsampling Sequential models) and depths (1, 1, 2, 1), widths (8,
    16, 24, 32) instead of (3, 3, 9, 3) and (96, 192, 384, 768), 32x32
    inputs, 10 classes;
- the masked text models of the functional API, whose masks Keras 3 saves
  as NotEqual and Any operation nodes passed to the recurrent layers as
  mask=: Embedding(mask_zero=True) + LSTM, + GRU(return_sequences) +
  GlobalAveragePooling1D, + Dropout + Bidirectional(LSTM), Masking + LSTM,
  and an attention model whose merged masks are LogicalOr and
  ConvertToTensor nodes;
- grouped convolutions: Conv2D and Conv1D with groups (one channel per
  group, several, strided, dilated, causal);
- graphs of keras.ops calls on symbolic tensors: arithmetic with
  constants, comparisons, logic, casts, reductions, reshape, transpose,
  expand_dims, squeeze, indexing, concatenate, stack, where, matmul and
  the activations as operations.

augment.json: RandomTranslation layers (bilinear and nearest, every fill
mode) called in training mode with ranges of one value, which draw
nothing: their configs, an input batch and Keras' outputs.
"""

import json
import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

import numpy as np  # noqa: E402
import keras  # noqa: E402
from keras import layers, ops  # noqa: E402
from keras.src.applications import convnext, efficientnet, mobilenet_v3  # noqa: E402

SEED = 20261124 + 30
OUT = "keras/testdata/zoo"
BATCH = 2


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]


def flat_input(a):
    """An input's values, integers (pixels, tokens) as JSON integers."""
    return [int(v) if v == int(v) else float(v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]


def randomize(model, rng):
    """Draws every variable of model again from rng, by what it is."""
    for v in model.weights:
        shape, path = tuple(v.shape), v.path
        name = path.rsplit("/", 1)[-1]
        if "int" in str(v.dtype):
            continue  # Normalization's count
        if name in ("moving_variance", "variance"):
            val = rng.uniform(0.5, 1.5, shape)
        elif name in ("gamma",):
            val = rng.uniform(0.5, 1.5, shape)
        elif name in ("moving_mean", "mean", "beta", "bias"):
            val = rng.normal(0, 0.1, shape)
        else:
            fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
            if "depthwise" in path or (len(shape) == 4 and shape[2] == 1):
                fan_in = int(np.prod(shape[:2]))
            val = rng.normal(0, 1.0 / math.sqrt(max(fan_in, 1)), shape)
        v.assign(val.astype(str(v.dtype)))


def covered_classes(model):
    """The layer and operation classes of a model's config (nested models
    included), which keras/coverage_keras_test.go counts as covered."""
    found = set()

    def walk(v):
        if isinstance(v, dict):
            module = v.get("module") or ""
            if "class_name" in v and (module.startswith("keras.layers") or module.startswith("keras.src.ops")
                                      or module.startswith("keras.src.applications")):
                found.add(v["class_name"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(json.loads(json.dumps(model.get_config())))
    return sorted(found)


def save_case(model, name, inputs, small, extra=None):
    path = os.path.join(OUT, name + ".keras")
    model.save(path)
    files = {"keras": name + ".keras"}
    if small:
        model.save_weights(os.path.join(OUT, name + ".weights.h5"))
        model.save(os.path.join(OUT, name + ".h5"))
        files["weights"] = name + ".weights.h5"
        files["legacy"] = name + ".h5"
    feed = [x for x, _ in inputs]
    ys = model.predict(feed if len(feed) > 1 else feed[0], batch_size=BATCH, verbose=0)
    if not isinstance(ys, (list, tuple)):
        ys = [ys]
    case = {
        "name": name,
        "files": files,
        "inputs": [{"shape": list(x.shape), "dtype": dt, "data": flat_input(x)} for x, dt in inputs],
        "outputs": [{"shape": list(y.shape), "data": flat(y)} for y in ys],
        "params": int(model.count_params()),
        "layers": [l.name for l in model.layers],
        "covers": covered_classes(model),
    }
    if extra:
        case.update(extra)
    return case


def images(rng, shape):
    return (rng.integers(0, 256, (BATCH,) + shape).astype(np.float32), "float32")


def tokens(rng, steps, vocab, pads):
    x = rng.integers(1, vocab, (BATCH, steps)).astype(np.int32)
    for i, p in enumerate(pads):
        if p:
            x[i, -p:] = 0  # padded at the end
    return (x, "int32")


def efficientnet_b0():
    return efficientnet.EfficientNet(0.1, 0.5, 32, 0.2, name="efficientnetb0", weights=None,
                                     input_shape=(32, 32, 3), classes=10)


def mobilenet_v3_small():
    orig = mobilenet_v3.MobileNetV3

    def small_head(stack_fn, last_point_ch, *args, **kwargs):
        return orig(stack_fn, 32, *args, **kwargs)

    mobilenet_v3.MobileNetV3 = small_head
    try:
        return keras.applications.MobileNetV3Small(input_shape=(32, 32, 3), alpha=0.1, weights=None, classes=10)
    finally:
        mobilenet_v3.MobileNetV3 = orig


def convnext_tiny():
    return convnext.ConvNeXt(depths=[1, 1, 2, 1], projection_dims=[8, 16, 24, 32], name="convnext_tiny",
                             weights=None, input_shape=(32, 32, 3), classes=10)


def emb_lstm():
    t = keras.Input((7,), dtype="int32", name="tokens")
    x = layers.Embedding(20, 4, mask_zero=True, name="embed")(t)
    x = layers.LSTM(5, name="lstm")(x)
    return keras.Model(t, layers.Dense(3, name="head")(x), name="emb_lstm")


def emb_gru_pool():
    t = keras.Input((7,), dtype="int32", name="tokens")
    x = layers.Embedding(20, 4, mask_zero=True, name="embed")(t)
    x = layers.GRU(4, return_sequences=True, name="gru")(x)
    x = layers.GlobalAveragePooling1D(name="pool")(x)
    return keras.Model(t, layers.Dense(2, name="head")(x), name="emb_gru_pool")


def emb_dropout_bilstm():
    t = keras.Input((7,), dtype="int32", name="tokens")
    x = layers.Embedding(20, 4, mask_zero=True, name="embed")(t)
    x = layers.Dropout(0.3, name="drop")(x)  # Keras passes the mask on through it
    x = layers.Bidirectional(layers.LSTM(3), name="bilstm")(x)
    return keras.Model(t, x, name="emb_dropout_bilstm")


def masking_lstm():
    s = keras.Input((6, 3), name="series")
    x = layers.Masking(0.0, name="mask")(s)
    x = layers.LSTM(4, return_sequences=True, name="lstm")(x)
    x = layers.LSTM(2, name="lstm_2")(x)
    return keras.Model(s, x, name="masking_lstm")


def emb_attention():
    t = keras.Input((6,), dtype="int32", name="tokens")
    e = layers.Embedding(20, 4, mask_zero=True, name="embed")(t)
    a = layers.Attention(name="att")([e, e])
    m = layers.MultiHeadAttention(2, 2, name="mha")(e, e)
    s = layers.Add(name="sum")([a, m])
    y = layers.TimeDistributed(layers.Dense(3), name="td")(s)
    return keras.Model(t, layers.GlobalAveragePooling1D(name="pool")(y), name="emb_attention")


def grouped_conv():
    img = keras.Input((9, 8, 6), name="image")
    x = layers.Conv2D(6, 3, groups=6, padding="same", name="depthwise_as_grouped")(img)
    x = layers.Conv2D(12, 3, groups=6, strides=2, padding="same", name="grouped_x2")(x)
    x = layers.Conv2D(4, (3, 2), groups=2, dilation_rate=(2, 1), activation="relu", name="two_groups")(x)
    seq = keras.Input((10, 4), name="sequence")
    y = layers.Conv1D(6, 3, groups=2, padding="causal", name="conv1d_groups")(seq)
    y = layers.Conv1D(6, 2, groups=6, name="conv1d_depthwise")(y)
    return keras.Model([img, seq], [layers.GlobalAveragePooling2D(name="pool")(x), y], name="grouped_conv")


def augment_cases(rng):
    """RandomTranslation in training mode with one-value ranges (no draw):
    bilinear and nearest, every fill mode."""
    out = []
    x = rng.uniform(0, 1, (2, 5, 6, 2)).astype(np.float32)
    for interp in ("bilinear", "nearest"):
        for mode in ("reflect", "wrap", "nearest", "constant"):
            for hf, wf in (((0.3, 0.3), (-0.25, -0.25)), ((-0.43, -0.43), (0.55, 0.55))):
                layer = layers.RandomTranslation(hf, wf, fill_mode=mode, interpolation=interp, fill_value=0.5)
                y = layer(x, training=True)
                out.append({"class_name": "RandomTranslation", "covers": ["RandomTranslation"], "config": json.loads(json.dumps(layer.get_config())),
                            "input": {"shape": list(x.shape), "data": flat(x)},
                            "output": {"shape": list(y.shape), "data": flat(y)}})
    return out


def op_graph():
    x = keras.Input((4, 6), name="x")
    a = x + 3.0
    b = a * (1 / 6)
    c = ops.relu(b) - x
    d = ops.reshape(c, (-1, 24))
    e = ops.transpose(c, (0, 2, 1))
    f = ops.expand_dims(e, -1)
    g = ops.squeeze(f, axis=-1)
    h = g[:, 1:5, ::2]
    i = ops.concatenate([h, h * 2.0], axis=-1)
    j = ops.mean(i, axis=[1], keepdims=True)
    k = ops.sum(i, axis=-1)
    l_ = ops.max(x, axis=1)
    m = ops.cast(ops.greater(l_, 0.5), "float32")
    n = ops.sigmoid(k) + ops.hard_sigmoid(k) + ops.tanh(k)
    o = x[:, 0]
    p = x[..., None, 2]
    q = 2.0 - x
    r = ops.where(x > 0, x, 0.0)
    s = ops.maximum(x, 0.1) / 4.0
    t = ops.minimum(x, -0.2) ** 2
    u = ops.any(ops.not_equal(x, 0.0), axis=-1)
    v = ops.all(ops.less_equal(x, 1.0), axis=-1)
    w = ops.logical_and(ops.logical_or(x > 0.5, x < -0.5), ops.logical_not(ops.equal(x, 0.0)))
    y = ops.stack([x[:, 0], x[:, 1]], axis=1)
    z = ops.matmul(x, np.linspace(-1, 1, 12, dtype="float32").reshape(6, 2))
    aa = ops.softmax(x, axis=1) + ops.log_softmax(x) + ops.silu(x) + ops.gelu(x) + ops.leaky_relu(x, 0.1)
    bb = ops.abs(x) + ops.square(x) + ops.negative(x) + ops.exp(x * 0.1) + ops.sqrt(ops.abs(x)) + ops.log(ops.abs(x) + 1.0)
    cc = ops.clip(x, -0.5, 0.5) + ops.relu6(x * 4.0) + ops.elu(x) + ops.selu(x) + ops.softplus(x) + ops.softsign(x) + ops.hard_silu(x)
    dd = ops.min(x, axis=[1, 2]) + ops.sign(ops.sum(x, axis=(1, 2)))
    outs = [d, j, m, n, o, p, q, r, s, t, ops.cast(u, "float32"), ops.cast(v, "float32"), ops.cast(w, "float32"), y, z, aa, bb, cc, dd]
    return keras.Model(x, outs, name="op_graph")


def main():
    os.makedirs(OUT, exist_ok=True)
    keras.utils.set_random_seed(SEED)
    rng = np.random.default_rng(SEED)
    cases = []
    for name, build, big in [("efficientnet_b0", efficientnet_b0, True), ("mobilenet_v3_small", mobilenet_v3_small, True),
                             ("convnext_tiny", convnext_tiny, True)]:
        keras.backend.clear_session()
        model = build()
        randomize(model, rng)
        cases.append(save_case(model, name, [images(rng, (32, 32, 3))], small=not big))
    for name, build, inputs in [
        ("emb_lstm", emb_lstm, lambda: [tokens(rng, 7, 20, [0, 3])]),
        ("emb_gru_pool", emb_gru_pool, lambda: [tokens(rng, 7, 20, [2, 5])]),
        ("emb_dropout_bilstm", emb_dropout_bilstm, lambda: [tokens(rng, 7, 20, [1, 4])]),
        ("emb_attention", emb_attention, lambda: [tokens(rng, 6, 20, [0, 2])]),
    ]:
        keras.backend.clear_session()
        model = build()
        randomize(model, rng)
        cases.append(save_case(model, name, inputs(), small=True))
    keras.backend.clear_session()
    model = masking_lstm()
    randomize(model, rng)
    s = rng.normal(0, 1, (BATCH, 6, 3)).astype(np.float32)
    s[0, 4:] = 0
    s[1, 2:] = 0
    s[1, 0] = 0  # a masked step before unmasked ones
    cases.append(save_case(model, "masking_lstm", [(s, "float32")], small=True))
    keras.backend.clear_session()
    model = grouped_conv()
    randomize(model, rng)
    img = rng.normal(0, 1, (BATCH, 9, 8, 6)).astype(np.float32)
    seq = rng.normal(0, 1, (BATCH, 10, 4)).astype(np.float32)
    cases.append(save_case(model, "grouped_conv", [(img, "float32"), (seq, "float32")], small=True))
    keras.backend.clear_session()
    model = op_graph()
    x = rng.normal(0, 1, (BATCH, 4, 6)).astype(np.float32)
    x[0, 0, :2] = 0
    cases.append(save_case(model, "op_graph", [(x, "float32")], small=True))
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"manifest": {"generator": "tools/keras_reference/zoo_vectors.py", "keras": keras.__version__,
                                "seed": SEED}, "cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")
    with open(os.path.join(OUT, "augment.json"), "w") as f:
        json.dump({"manifest": {"generator": "tools/keras_reference/zoo_vectors.py", "keras": keras.__version__},
                   "cases": augment_cases(rng)}, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
