"""Writes Keras vectors for the conv and shape layers, the losses and the
metrics of issue 17, for gokeras' Go tests:

    keras/testdata/keras/conv_more.json         layers (read by keras/layer_vectors_conv_more_test.go)
    keras/losses/testdata/keras/losses_more.json losses (keras/losses/losses_more_keras_test.go)
    keras/metrics/testdata/keras/metrics_more.json metrics (keras/metrics/metrics_more_keras_test.go)

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/conv_more_vectors.py

Layer cases have the format of gen_vectors.py's layers.json: Keras'
get_config(), the weights, the inference output and the gradients of
sum(y*dy) with respect to the input and the trainable weights. Loss cases
carry the loss's get_config(), the per-example losses (reduction None),
the reduced loss and its gradient with respect to the predictions. Metric
cases carry get_config() and the result after each of two updates.
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


def manifest():
    return {
        "generator": "tools/keras_reference/conv_more_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
        "dtype": "float32",
    }


def arr(a):
    a = np.asarray(a, dtype=np.float32)
    return [float(v) for v in a.reshape(-1)]


def write(path, cases):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases")


def plain(cfg):
    return json.loads(json.dumps(cfg, default=str))


def layer_cases(rng):
    L = keras.layers
    specs = [
        ("conv1d_valid", L.Conv1D(4, 3), (2, 7, 3)),
        ("conv1d_causal_dilated", L.Conv1D(3, 2, padding="causal", dilation_rate=2, activation="relu"), (2, 8, 2)),
        ("conv1d_same_stride2", L.Conv1D(2, 3, strides=2, padding="same", use_bias=False), (1, 7, 2)),
        ("conv2d_transpose_same_stride2", L.Conv2DTranspose(3, 3, strides=2, padding="same"), (2, 4, 5, 2)),
        ("conv2d_transpose_valid", L.Conv2DTranspose(2, 3, activation="tanh"), (1, 4, 4, 3)),
        ("conv2d_transpose_valid_stride3_k2", L.Conv2DTranspose(2, 2, strides=3), (1, 3, 3, 2)),
        ("conv2d_transpose_output_padding", L.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1), (1, 3, 4, 2)),
        ("conv2d_transpose_valid_output_padding", L.Conv2DTranspose(2, (2, 3), strides=(3, 2), output_padding=(2, 1)), (1, 3, 3, 2)),
        ("conv2d_transpose_autoencoder", L.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu"), (2, 7, 7, 3)),
        ("separable_conv2d", L.SeparableConv2D(4, 3, depth_multiplier=2, padding="same", activation="tanh"), (2, 5, 5, 3)),
        ("separable_conv2d_stride2", L.SeparableConv2D(3, 3, strides=2), (1, 7, 7, 2)),
        ("upsampling2d_nearest", L.UpSampling2D((2, 3)), (2, 3, 2, 2)),
        ("upsampling2d_bilinear", L.UpSampling2D(2, interpolation="bilinear"), (1, 3, 4, 2)),
        ("upsampling2d_bilinear_3x1", L.UpSampling2D((3, 1), interpolation="bilinear"), (2, 2, 3, 1)),
        ("cropping2d", L.Cropping2D(((1, 2), (0, 1))), (1, 6, 5, 2)),
        ("max_pooling1d", L.MaxPooling1D(2), (2, 7, 3)),
        ("max_pooling1d_same", L.MaxPooling1D(3, strides=2, padding="same"), (1, 8, 2)),
        ("average_pooling1d", L.AveragePooling1D(2), (2, 7, 3)),
        ("average_pooling1d_same", L.AveragePooling1D(3, strides=1, padding="same"), (1, 6, 2)),
        ("global_average_pooling1d", L.GlobalAveragePooling1D(), (2, 5, 3)),
        ("global_max_pooling1d_keepdims", L.GlobalMaxPooling1D(keepdims=True), (2, 5, 3)),
        # called with a timestep mask (the Go test attaches it with layers.SetMask)
        ("global_average_pooling1d_masked", L.GlobalAveragePooling1D(), (2, 5, 3)),
        ("permute", L.Permute((2, 1)), (2, 3, 4)),
        ("permute_3d", L.Permute((3, 1, 2)), (2, 3, 4, 2)),
        ("identity", L.Identity(), (2, 3)),
        # The Go test builds this one with layers.NewLambda(2x + 1).
        ("lambda_affine", L.Lambda(lambda x: x * 2.0 + 1.0), (2, 3)),
    ]
    cases = []
    for name, layer, shape in specs:
        x = (rng.standard_normal(shape) * 2).astype(np.float32)
        layer.build(shape)
        weights = [rng.standard_normal(w.shape).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        xt = tf.constant(x)
        mask = None
        if name.endswith("_masked"):
            mask = np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], dtype=bool)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = layer(xt, training=False) if mask is None else layer(xt, mask=tf.constant(mask))
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy)
        grads = tape.gradient(loss, [xt] + list(layer.trainable_weights))
        cfg = plain(layer.get_config())
        if name == "lambda_affine":
            cfg = {"name": cfg["name"]}  # Python bytecode is of no use to Go
        cases.append({
            "name": name, "class_name": layer.__class__.__name__,
            "config": cfg,
            "shape": list(shape), "x": arr(x),
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(v)} for w, v in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dx": arr(grads[0]), "dweights": [arr(g) for g in grads[1:]],
        })
        if mask is not None:
            cases[-1]["mask"] = arr(mask)
    return cases


def loss_case(name, loss_cls, y_true, y_pred, kwargs, activation=None):
    yp = tf.constant(y_pred)
    yt = tf.constant(y_true)
    act = (lambda v: v) if activation is None else keras.activations.get(activation)
    per = loss_cls(reduction=None, **kwargs)(yt, act(yp))
    loss = loss_cls(**kwargs)
    with tf.GradientTape() as tape:
        tape.watch(yp)
        red = loss(yt, act(yp))
    grad = tape.gradient(red, yp)
    return {
        "name": name,
        "loss": loss_cls.__name__,
        "config": plain(loss.get_config()),
        # Keras' Huber and CosineSimilarity leave delta and axis out of
        # get_config(): the constructor's arguments, to build the same loss.
        "kwargs": plain(kwargs),
        "pred_activation": activation or "",
        "true_shape": list(np.shape(y_true)), "y_true": arr(y_true),
        "pred_shape": list(np.shape(y_pred)), "y_pred": arr(y_pred),
        "per_example_shape": list(per.shape), "per_example": arr(per),
        "reduced": float(red.numpy()),
        "grad": arr(grad),
    }


def loss_cases(rng):
    L = keras.losses
    f32 = np.float32
    cases = []
    yr = rng.standard_normal((5, 4)).astype(f32)
    pr = (yr + rng.standard_normal((5, 4)) * 1.5).astype(f32)
    cases.append(loss_case("huber", L.Huber, yr, pr, {}))
    cases.append(loss_case("huber_delta0.5", L.Huber, yr, pr, {"delta": 0.5}))
    cases.append(loss_case("huber_rank3", L.Huber, yr.reshape(5, 2, 2), pr.reshape(5, 2, 2), {"delta": 2.0}))
    cases.append(loss_case("log_cosh", L.LogCosh, yr, pr * 3, {}))
    cases.append(loss_case("msle", L.MeanSquaredLogarithmicError, np.abs(yr) * 3, pr, {}))
    cases.append(loss_case("mape", L.MeanAbsolutePercentageError, yr, pr, {}))
    pos = rng.uniform(0.1, 3, (5, 4)).astype(f32)
    cnt = rng.integers(0, 5, (5, 4)).astype(f32)
    cases.append(loss_case("poisson", L.Poisson, cnt, pos, {}))
    pt = rng.uniform(0, 1, (5, 4)).astype(f32)
    pt /= pt.sum(-1, keepdims=True)
    pp = rng.uniform(0, 1, (5, 4)).astype(f32)
    pp /= pp.sum(-1, keepdims=True)
    pt[0, 0] = 0.0  # clipped to epsilon
    cases.append(loss_case("kl_divergence", L.KLDivergence, pt, pp, {}))
    cases.append(loss_case("cosine_similarity", L.CosineSimilarity, yr, pr, {}))
    cases.append(loss_case("cosine_similarity_axis0", L.CosineSimilarity, yr, pr, {"axis": 0}))
    yb = rng.integers(0, 2, (5, 4)).astype(f32)
    logits = (rng.standard_normal((5, 4)) * 2).astype(f32)
    cases.append(loss_case("hinge_01_labels", L.Hinge, yb, logits, {}))
    cases.append(loss_case("hinge_pm1_labels", L.Hinge, 2 * yb - 1, logits, {}))
    cases.append(loss_case("squared_hinge", L.SquaredHinge, yb, logits, {}))
    k = 5
    lab = rng.integers(0, k, 6)
    onehot = np.eye(k, dtype=f32)[lab]
    lg = (rng.standard_normal((6, k)) * 2).astype(f32)
    cases.append(loss_case("categorical_hinge", L.CategoricalHinge, onehot, lg, {}))
    praw = rng.uniform(0, 1, (6, k)).astype(f32)
    praw[0] = [0, 0, 1, 0, 0]
    cases.append(loss_case("categorical_focal_prob", L.CategoricalFocalCrossentropy, onehot, praw, {}))
    cases.append(loss_case("categorical_focal_logits_ls", L.CategoricalFocalCrossentropy, onehot, lg,
                           {"from_logits": True, "label_smoothing": 0.1, "alpha": 0.5, "gamma": 3.0}))
    cases.append(loss_case("categorical_focal_gamma1.5", L.CategoricalFocalCrossentropy, onehot, praw, {"gamma": 1.5}))
    pb = rng.uniform(0.01, 0.99, (5, 4)).astype(f32)
    cases.append(loss_case("binary_focal_prob", L.BinaryFocalCrossentropy, yb, pb, {}))
    cases.append(loss_case("binary_focal_logits_balanced", L.BinaryFocalCrossentropy, yb, logits,
                           {"from_logits": True, "apply_class_balancing": True, "alpha": 0.3}))
    cases.append(loss_case("binary_focal_ls_gamma0", L.BinaryFocalCrossentropy, yb, pb, {"label_smoothing": 0.2, "gamma": 0.0}))
    cases.append(loss_case("binary_focal_gamma1.5", L.BinaryFocalCrossentropy, yb, pb, {"gamma": 1.5}))
    cases.append(loss_case("binary_focal_sigmoid_output", L.BinaryFocalCrossentropy, yb, logits * 10, {}, "sigmoid"))
    return cases


def metric_case(name, cls, kwargs, updates):
    """A metric's result after each update (y_true, y_pred[, sample_weight])."""
    m = cls(**kwargs)
    ups = []
    for u in updates:
        yt, yp = u[0], u[1]
        sw = u[2] if len(u) > 2 else None
        m.update_state(yt, yp, sample_weight=sw)
        r = np.asarray(m.result(), dtype=np.float64)
        up = {"true_shape": list(np.shape(yt)), "y_true": arr(yt),
              "pred_shape": list(np.shape(yp)), "y_pred": arr(yp),
              "result": [float(v) for v in r.reshape(-1)]}
        if sw is not None:
            up["sample_weight"] = arr(sw)
        ups.append(up)
    return {"name": name, "metric": cls.__name__, "config": plain(m.get_config()), "kwargs": plain(kwargs), "updates": ups}


def metric_cases(rng):
    M = keras.metrics
    f32 = np.float32
    cases = []

    def reg(shape):
        y = rng.standard_normal(shape).astype(f32)
        return y, (y + rng.standard_normal(shape) * 0.7).astype(f32)

    (a, b), (c, d) = reg((6, 3)), reg((4, 3))
    sw = rng.uniform(0, 2, 4).astype(f32)
    for cls in (M.RootMeanSquaredError, M.LogCoshError, M.MeanAbsolutePercentageError, M.CosineSimilarity):
        cases.append(metric_case(cls.__name__, cls, {}, [(a, b), (c, d, sw)]))
    cases.append(metric_case("MeanSquaredLogarithmicError", M.MeanSquaredLogarithmicError, {}, [(np.abs(a), b), (np.abs(c), d, sw)]))
    cnt = rng.integers(0, 5, (6, 3)).astype(f32)
    lam = rng.uniform(0.1, 3, (6, 3)).astype(f32)
    cases.append(metric_case("Poisson", M.Poisson, {}, [(cnt, lam), (cnt[:4], lam[:4], sw)]))
    pt = rng.uniform(0, 1, (6, 3)).astype(f32)
    pt /= pt.sum(-1, keepdims=True)
    pp = rng.uniform(0, 1, (6, 3)).astype(f32)
    pp /= pp.sum(-1, keepdims=True)
    cases.append(metric_case("KLDivergence", M.KLDivergence, {}, [(pt, pp), (pt[:4], pp[:4], sw)]))
    yb = rng.integers(0, 2, (6, 3)).astype(f32)
    lg = (rng.standard_normal((6, 3)) * 2).astype(f32)
    cases.append(metric_case("Hinge", M.Hinge, {}, [(yb, lg), (2 * yb - 1, lg)]))
    cases.append(metric_case("SquaredHinge", M.SquaredHinge, {}, [(yb, lg), (yb, -lg)]))
    k = 4
    lab = rng.integers(0, k, 8)
    onehot = np.eye(k, dtype=f32)[lab]
    scores = rng.uniform(0, 1, (8, k)).astype(f32)
    cases.append(metric_case("CategoricalHinge", M.CategoricalHinge, {}, [(onehot, scores), (onehot[:4], scores[4:], sw)]))
    y2, p2 = reg((7, 2))
    cases.append(metric_case("R2Score", M.R2Score, {}, [(y2, p2), (y2[:4] * 2, p2[:4], sw)]))
    cases.append(metric_case("R2Score_variance_weighted_adjusted", M.R2Score,
                             {"class_aggregation": "variance_weighted_average", "num_regressors": 2}, [(y2, p2), (y2[:3], p2[:3] * 3)]))
    cases.append(metric_case("R2Score_per_output", M.R2Score, {"class_aggregation": None}, [(y2, p2)]))
    sw8 = rng.uniform(0, 2, 8).astype(f32)
    for avg in (None, "micro", "macro", "weighted"):
        cases.append(metric_case(f"F1Score_{avg}", M.F1Score, {"average": avg}, [(onehot, scores), (onehot, scores[::-1].copy(), sw8)]))
    cases.append(metric_case("F1Score_threshold", M.F1Score, {"average": "macro", "threshold": 0.5}, [(onehot, scores)]))
    ids_t = rng.integers(0, 3, (4, 5)).astype(f32)
    ids_p = rng.integers(0, 3, (4, 5)).astype(f32)
    cases.append(metric_case("MeanIoU", M.MeanIoU, {"num_classes": 3}, [(ids_t, ids_p), (ids_t[::-1].copy(), ids_p)]))
    cases.append(metric_case("MeanIoU_scores_ignore", M.MeanIoU,
                             {"num_classes": 4, "sparse_y_pred": False, "ignore_class": 0},
                             # MeanIoU's dtype is int: Keras truncates float weights, so whole ones
                             [(lab.astype(f32), scores), (lab[::-1].astype(f32), scores, rng.integers(0, 3, 8).astype(f32))]))
    return cases


def main():
    rng = np.random.default_rng(SEED + 17)
    write("keras/testdata/keras/conv_more.json", layer_cases(rng))
    write("keras/losses/testdata/keras/losses_more.json", loss_cases(rng))
    write("keras/metrics/testdata/keras/metrics_more.json", metric_cases(rng))


if __name__ == "__main__":
    main()
