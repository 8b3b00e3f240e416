"""Writes test vectors from real Keras (TensorFlow backend) for gokeras' Go tests.

Run from the repository root with the pinned environment (requirements.txt):

    python3 -m venv ~/.cache/gokeras-keras-ref
    ~/.cache/gokeras-keras-ref/bin/pip install -r tools/keras_reference/requirements.txt
    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/gen_vectors.py

Each file is JSON: {"manifest": {versions, seed}, "cases": [...]}, arrays
flattened in row-major order with their shapes beside them. Inputs are drawn
in float32 from a seeded generator, so reruns give the same bits; the Go
tests read the files, so `go test ./...` needs no Python.
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
        "generator": "tools/keras_reference/gen_vectors.py",
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


def write(path, cases):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"manifest": manifest(), "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases")


def batchnorm_cases(rng):
    """BatchNormalization, training=True, one step from fresh weights."""
    cases = []
    shape = (4, 3, 3, 3)
    for ratio in (1.0, 100.0, 1000.0):
        std = np.array([0.5, 2.0, 0.01], dtype=np.float32)
        mean = np.array([1.0, -1.0, 1.0], dtype=np.float32) * ratio * std
        x = (rng.standard_normal(shape) * std + mean).astype(np.float32)
        gamma = rng.uniform(0.5, 1.5, shape[-1:]).astype(np.float32)
        beta = rng.uniform(-0.5, 0.5, shape[-1:]).astype(np.float32)
        w = rng.standard_normal(shape).astype(np.float32)
        bn = keras.layers.BatchNormalization()  # momentum 0.99, epsilon 1e-3
        bn.build(shape)
        bn.gamma.assign(gamma)
        bn.beta.assign(beta)
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = bn(xt, training=True)
            loss = tf.reduce_sum(y * w)
        dx, dgamma, dbeta = tape.gradient(loss, [xt, bn.gamma, bn.beta])
        y_inf = bn(xt, training=False)  # with the moving statistics after the step
        cases.append({
            "name": f"mean_over_std_{int(ratio)}",
            "ratio": ratio,
            "momentum": 0.99,
            "epsilon": 1e-3,
            "shape": list(shape),
            "x": arr(x), "gamma": arr(gamma), "beta": arr(beta),
            "dy": arr(w),
            "y": arr(y), "moving_mean": arr(bn.moving_mean),
            "moving_variance": arr(bn.moving_variance),
            "dx": arr(dx), "dgamma": arr(dgamma), "dbeta": arr(dbeta),
            "y_inference": arr(y_inf),
        })
    return cases


def loss_case(name, loss, y_true, y_pred, kwargs, activation=None):
    """Per-example losses (reduction None), the reduced loss and its gradient
    with respect to the predictions. With activation ("sigmoid", "softmax")
    the predictions are keras.activations.<activation>(y_pred), which Keras
    recognises and takes the loss from y_pred as logits; the gradient is
    then with respect to y_pred."""
    yp = tf.constant(y_pred)
    yt = tf.constant(y_true)
    act = (lambda v: v) if activation is None else keras.activations.get(activation)
    per = loss(reduction=None, **kwargs)(yt, act(yp))
    with tf.GradientTape() as tape:
        tape.watch(yp)
        red = loss(**kwargs)(yt, act(yp))
    grad = tape.gradient(red, yp)
    return {
        "name": name,
        "loss": loss.__name__,
        "pred_activation": activation or "",
        "from_logits": bool(kwargs.get("from_logits", False)),
        "label_smoothing": float(kwargs.get("label_smoothing", 0.0)),
        "true_shape": list(np.shape(y_true)), "y_true": arr(y_true),
        "pred_shape": list(np.shape(y_pred)), "y_pred": arr(y_pred),
        "per_example_shape": list(per.shape), "per_example": arr(per),
        "reduced": float(red.numpy()),
        "grad": arr(grad),
    }


def loss_cases(rng):
    L = keras.losses
    cases = []
    # BinaryCrossentropy on probabilities at the edges: exact 0 and 1,
    # below and around epsilon, near 1, and ordinary values.
    p = np.array([
        [0.0, 1.0, 1e-9, 1e-7],
        [2e-7, 1e-5, 0.3, 0.5],
        [0.9, 1 - 1e-5, 1 - 1e-7, 1 - 1e-9],
        [0.999, 0.01, 0.7, 0.2],
    ], dtype=np.float32)
    yb = np.array([
        [0, 1, 0, 1],
        [1, 0, 1, 0],
        [1, 0, 1, 0],
        [0, 1, 1, 0],
    ], dtype=np.float32)
    ysoft = rng.uniform(0, 1, p.shape).astype(np.float32)
    logits = (rng.standard_normal(p.shape) * 4).astype(np.float32)
    logits[0, 0], logits[0, 1] = 40.0, -40.0
    for ls in (0.0, 0.1):
        cases.append(loss_case(f"bce_prob_hard_ls{ls}", L.BinaryCrossentropy, yb, p, {"label_smoothing": ls}))
        cases.append(loss_case(f"bce_prob_soft_ls{ls}", L.BinaryCrossentropy, ysoft, p, {"label_smoothing": ls}))
        cases.append(loss_case(f"bce_logits_ls{ls}", L.BinaryCrossentropy, yb, logits, {"from_logits": True, "label_smoothing": ls}))
    # Categorical crossentropy: probabilities (not normalised, with 0 and
    # 1), logits, label smoothing.
    k = 5
    lab = rng.integers(0, k, size=6)
    onehot = np.eye(k, dtype=np.float32)[lab]
    praw = rng.uniform(0, 1, (6, k)).astype(np.float32)
    praw[0] = [0, 0, 1, 0, 0]
    praw[1] = [1e-9, 0.5, 0.5, 0, 0]
    lg = (rng.standard_normal((6, k)) * 3).astype(np.float32)
    for ls in (0.0, 0.2):
        cases.append(loss_case(f"cce_prob_ls{ls}", L.CategoricalCrossentropy, onehot, praw, {"label_smoothing": ls}))
        cases.append(loss_case(f"cce_logits_ls{ls}", L.CategoricalCrossentropy, onehot, lg, {"from_logits": True, "label_smoothing": ls}))
    sp = praw / praw.sum(axis=-1, keepdims=True)
    cases.append(loss_case("scce_prob", L.SparseCategoricalCrossentropy, lab.astype(np.float32), sp.astype(np.float32), {}))
    cases.append(loss_case("scce_logits", L.SparseCategoricalCrossentropy, lab.astype(np.float32), lg, {"from_logits": True}))
    # Probabilities that are the output of sigmoid / softmax: Keras takes
    # the loss from the logits (exact where the probabilities saturate).
    big = (rng.standard_normal((4, 4)) * 30).astype(np.float32)
    cases.append(loss_case("bce_sigmoid_output", L.BinaryCrossentropy, yb, big, {}, "sigmoid"))
    cases.append(loss_case("cce_softmax_output", L.CategoricalCrossentropy, np.eye(4, dtype=np.float32)[lab[:4] % 4], big, {}, "softmax"))
    cases.append(loss_case("scce_softmax_output", L.SparseCategoricalCrossentropy, (lab[:4] % 4).astype(np.float32), big, {}, "softmax"))
    yr = rng.standard_normal((5, 3)).astype(np.float32)
    pr = rng.standard_normal((5, 3)).astype(np.float32)
    cases.append(loss_case("mse", L.MeanSquaredError, yr, pr, {}))
    cases.append(loss_case("mae", L.MeanAbsoluteError, yr, pr, {}))
    return cases


ACTIVATIONS = [
    "linear", "relu", "sigmoid", "tanh", "softmax", "softplus", "relu6",
    "elu", "selu", "gelu", "silu", "swish", "softsign", "hard_sigmoid",
    "hard_silu", "hard_swish", "mish", "log_softmax", "leaky_relu",
    "exponential",
]


def activation_cases(rng):
    """keras.activations.get(name)(x) and the gradient of sum(y*w)."""
    grid = np.linspace(-8, 8, 32, dtype=np.float32).reshape(4, 8)
    wide = np.array([[-100, -50, -20, -10, 10, 20, 50, 100],
                     [-30, -15, -7, -1e-3, 1e-3, 7, 15, 30]], dtype=np.float32)
    w = rng.standard_normal((4, 8)).astype(np.float32)
    cases = []
    for name in ACTIVATIONS:
        fn = keras.activations.get(name)
        for tag, x in (("grid", grid), ("wide", wide)):
            if name == "exponential" and tag == "wide":
                continue  # overflows float32
            wx = w[: x.shape[0]]
            xt = tf.constant(x)
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = fn(xt)
                loss = tf.reduce_sum(y * wx)
            dx = tape.gradient(loss, xt)
            cases.append({
                "name": f"{name}_{tag}", "activation": name,
                "shape": list(x.shape), "x": arr(x), "dy": arr(wx),
                "y": arr(y), "dx": arr(dx),
            })
    return cases


def confusion_metric_cases():
    """Confusion-matrix and top-k metrics: Keras' config and the result (all
    thresholds' results in "results") after each of two update_state calls.
    Their own generator, so that the sections after metrics keep theirs."""
    rng = np.random.default_rng(SEED + 17)
    M = keras.metrics
    cases = []

    def run(name, cls, batches, weights=None, **kwargs):
        m = cls(**kwargs)
        ups = []
        for i, (yt, yp) in enumerate(batches):
            sw = None if weights is None else weights[i]
            m.update_state(tf.constant(yt), tf.constant(yp), sample_weight=None if sw is None else tf.constant(sw))
            r = np.asarray(m.result().numpy(), np.float64).reshape(-1)
            u = {
                "true_shape": list(np.shape(yt)), "y_true": arr(yt),
                "pred_shape": list(np.shape(yp)), "y_pred": arr(yp),
                "result": float(r[0]), "results": [float(x) for x in r],
            }
            if sw is not None:
                u["sample_weight"] = arr(sw)
            ups.append(u)
        cases.append({"name": name, "metric": cls.__name__,
                      "config": json.loads(json.dumps(m.get_config(), default=str)),
                      "updates": ups})

    # Binary labels against probabilities with the edges and thresholds.
    y1 = rng.integers(0, 2, (6, 3)).astype(np.float32)
    p1 = rng.uniform(0, 1, (6, 3)).astype(np.float32)
    p1[0] = [0.0, 1.0, 0.5]
    y1[0] = [1, 0, 1]
    p1[1] = [0.3, 0.7, 0.25]
    p1[2] = [np.float32(100) / np.float32(199), np.float32(1) / np.float32(199), 0.5]
    y2 = rng.integers(0, 2, (4, 3)).astype(np.float32)
    p2 = rng.uniform(0, 1, (4, 3)).astype(np.float32)
    bin_b = [(y1, p1), (y2, p2)]
    # Multi-class rows with ties for top_k and class_id.
    c1 = rng.integers(0, 2, (5, 4)).astype(np.float32)
    q1 = rng.uniform(0, 1, (5, 4)).astype(np.float32)
    q1[0] = [0.5, 0.5, 0.5, 0.1]
    c2 = rng.integers(0, 2, (3, 4)).astype(np.float32)
    q2 = rng.uniform(0, 1, (3, 4)).astype(np.float32)
    cls_b = [(c1, q1), (c2, q2)]
    none_pos = [(np.zeros((3,), np.float32), np.array([0.9, 0.1, 0.6], np.float32)), (y2[:, 0], p2[:, 0])]
    for cls in (M.Precision, M.Recall):
        n = cls.__name__.lower()
        run(n, cls, bin_b)
        run(n + "_thresholds_even", cls, bin_b, thresholds=[0.0, 0.5, 1.0])
        run(n + "_thresholds", cls, bin_b, thresholds=[0.3, 0.7, 0.25])
        run(n + "_threshold_edge", cls, bin_b, thresholds=1.0)
        run(n + "_top_k", cls, cls_b, top_k=2)
        run(n + "_class_id", cls, cls_b, class_id=1)
        run(n + "_top_k_class_id", cls, cls_b, top_k=2, class_id=2, thresholds=0.4)
        run(n + "_no_positives", cls, none_pos)
    for cls in (M.TruePositives, M.FalsePositives, M.TrueNegatives, M.FalseNegatives):
        run(cls.__name__.lower(), cls, bin_b)
        run(cls.__name__.lower() + "_thresholds", cls, bin_b, thresholds=[0.0, 0.3, 1.0])
    run("auc", M.AUC, bin_b)
    run("auc_pr", M.AUC, bin_b, curve="PR")
    run("auc_roc_minoring", M.AUC, bin_b, summation_method="minoring")
    run("auc_pr_majoring", M.AUC, bin_b, curve="PR", summation_method="majoring")
    run("auc_logits", M.AUC, [(y1, p1 * 8 - 4), (y2, p2 * 8 - 4)], from_logits=True)
    run("auc_3_thresholds", M.AUC, bin_b, num_thresholds=3)
    run("auc_thresholds", M.AUC, bin_b, thresholds=[0.9, 0.2, 0.5])
    run("auc_thresholds_even_pr", M.AUC, bin_b, thresholds=[0.25, 0.5, 0.75], curve="PR")
    run("auc_no_positives", M.AUC, none_pos)
    sw = [np.array([2, 0, 0.5, 1, 1, 3], np.float32), np.array([[1], [0.25], [2], [0]], np.float32)]
    run("precision_weighted", M.Precision, bin_b, weights=sw, thresholds=[0.3, 0.5])
    run("recall_weighted_class_id", M.Recall, [(y1, p1), (y2, p2)], weights=sw, class_id=1)
    run("auc_weighted", M.AUC, bin_b, weights=sw)
    run("auc_pr_weighted", M.AUC, bin_b, weights=sw, curve="PR")
    run("true_negatives_weighted", M.TrueNegatives, bin_b, weights=sw)
    k = 8
    lab1, lab2 = rng.integers(0, k, 6), rng.integers(0, k, 3)
    s1 = rng.uniform(0, 1, (6, k)).astype(np.float32)
    s1[0] = 0.5  # every class tied: all in the top k
    s1[1, :] = np.arange(k, dtype=np.float32)
    lab1[1] = 2  # sixth highest of eight: out of the top 5
    s1[2, :] = [0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.2, 0.3]
    lab1[2] = 5  # tied at the boundary: in
    s2 = rng.uniform(0, 1, (3, k)).astype(np.float32)
    oh = np.eye(k, dtype=np.float32)
    run("top_k_categorical_accuracy", M.TopKCategoricalAccuracy, [(oh[lab1], s1), (oh[lab2], s2)])
    run("top_k_categorical_accuracy_k2", M.TopKCategoricalAccuracy, [(oh[lab1], s1), (oh[lab2], s2)], k=2)
    run("sparse_top_k_categorical_accuracy", M.SparseTopKCategoricalAccuracy,
        [(lab1.astype(np.float32), s1), (lab2.astype(np.float32).reshape(-1, 1), s2)])
    run("sparse_top_k_categorical_accuracy_k1", M.SparseTopKCategoricalAccuracy,
        [(lab1.astype(np.float32), s1), (lab2.astype(np.float32), s2)], k=1)
    run("sparse_top_k_categorical_accuracy_weighted", M.SparseTopKCategoricalAccuracy,
        [(lab1.astype(np.float32), s1), (lab2.astype(np.float32), s2)],
        weights=[np.array([1, 2, 0, 1, 0.5, 1], np.float32), np.array([3, 1, 1], np.float32)], k=3)
    return cases


def metric_cases(rng):
    """Label metrics: the result after each of two update_state calls."""
    M = keras.metrics
    cases = []

    def run(name, cls, batches, **kwargs):
        m = cls(**kwargs)
        ups = []
        for yt, yp in batches:
            m.update_state(tf.constant(yt), tf.constant(yp))
            ups.append({
                "true_shape": list(np.shape(yt)), "y_true": arr(yt),
                "pred_shape": list(np.shape(yp)), "y_pred": arr(yp),
                "result": float(m.result().numpy()),
            })
        cases.append({"name": name, "metric": cls.__name__,
                      "from_logits": bool(kwargs.get("from_logits", False)),
                      "label_smoothing": float(kwargs.get("label_smoothing", 0.0)),
                      "updates": ups})

    k = 4
    def cat(n):
        lab = rng.integers(0, k, size=n)
        return lab, np.eye(k, dtype=np.float32)[lab], rng.uniform(0, 1, (n, k)).astype(np.float32)
    b1, b2 = cat(6), cat(3)
    b1[2][0] = [0, 1, 0, 0]        # exact 0 and 1
    b1[2][1] = [0.25, 0.25, 0.25, 0.25]  # a tie: argmax takes the first
    run("categorical_accuracy", M.CategoricalAccuracy, [(b1[1], b1[2]), (b2[1], b2[2])])
    run("sparse_categorical_accuracy", M.SparseCategoricalAccuracy,
        [(b1[0].astype(np.float32), b1[2]), (b2[0].astype(np.float32).reshape(-1, 1), b2[2])])
    run("categorical_crossentropy", M.CategoricalCrossentropy, [(b1[1], b1[2]), (b2[1], b2[2])])
    run("categorical_crossentropy_logits_ls", M.CategoricalCrossentropy,
        [(b1[1], b1[2] * 10 - 5), (b2[1], b2[2] * 10 - 5)], from_logits=True, label_smoothing=0.1)
    sp1 = (b1[2] + 1e-3) / (b1[2] + 1e-3).sum(-1, keepdims=True)
    sp2 = b2[2] / b2[2].sum(-1, keepdims=True)
    run("sparse_categorical_crossentropy", M.SparseCategoricalCrossentropy,
        [(b1[0].astype(np.float32), sp1.astype(np.float32)), (b2[0].astype(np.float32), sp2.astype(np.float32))])
    yb1 = rng.integers(0, 2, (5, 3)).astype(np.float32)
    yb2 = rng.integers(0, 2, (2, 3)).astype(np.float32)
    pb1 = rng.uniform(0, 1, (5, 3)).astype(np.float32)
    pb1[0] = [0.0, 1.0, 0.5]  # exact edges and the threshold
    yb1[0] = [1, 0, 1]  # against the wrong edge: the clipped loss
    pb2 = rng.uniform(0, 1, (2, 3)).astype(np.float32)
    run("binary_accuracy", M.BinaryAccuracy, [(yb1, pb1), (yb2, pb2)])
    run("binary_crossentropy", M.BinaryCrossentropy, [(yb1, pb1), (yb2, pb2)])
    run("binary_crossentropy_logits_ls", M.BinaryCrossentropy,
        [(yb1, pb1 * 20 - 10), (yb2, pb2 * 20 - 10)], from_logits=True, label_smoothing=0.2)
    run("accuracy", M.Accuracy, [(np.array([1, 2, 3, 4], np.float32), np.array([1, 2, 0, 4], np.float32)),
                                 (np.array([0, 5], np.float32), np.array([0, 5], np.float32))])
    r1, r2 = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    q1, q2 = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    run("mean_squared_error", M.MeanSquaredError, [(r1, q1), (r2, q2)])
    run("mean_absolute_error", M.MeanAbsoluteError, [(r1, q1), (r2, q2)])
    return cases + confusion_metric_cases()


def optimizer_cases(rng):
    """The variable after each of 3 apply_gradients steps from the same
    weights and gradients."""
    O = keras.optimizers
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    grads = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    grads[2][0, 0] = 0.0  # a zero gradient
    configs = [
        ("sgd", O.SGD, {"learning_rate": 0.1}),
        ("sgd_momentum", O.SGD, {"learning_rate": 0.1, "momentum": 0.9}),
        ("sgd_nesterov", O.SGD, {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
        ("adam", O.Adam, {"learning_rate": 0.1}),
        ("adam_default", O.Adam, {}),
        ("adam_amsgrad", O.Adam, {"learning_rate": 0.1, "amsgrad": True}),
        ("adamw", O.AdamW, {"learning_rate": 0.1}),
        ("adamw_decay", O.AdamW, {"learning_rate": 0.1, "weight_decay": 0.1}),
        ("rmsprop", O.RMSprop, {"learning_rate": 0.1}),
        ("rmsprop_momentum_centered", O.RMSprop, {"learning_rate": 0.1, "momentum": 0.9, "centered": True}),
        ("sgd_clipnorm", O.SGD, {"learning_rate": 0.1, "clipnorm": 0.5}),
        ("sgd_clipvalue", O.SGD, {"learning_rate": 0.1, "clipvalue": 0.3}),
        ("adam_global_clipnorm", O.Adam, {"learning_rate": 0.1, "global_clipnorm": 0.5}),
        ("sgd_weight_decay", O.SGD, {"learning_rate": 0.1, "weight_decay": 0.2}),
        ("adagrad", O.Adagrad, {"learning_rate": 0.1}),
        ("adagrad_accumulator_epsilon", O.Adagrad,
         {"learning_rate": 0.1, "initial_accumulator_value": 0.0, "epsilon": 1e-3}),
        ("adamax", O.Adamax, {"learning_rate": 0.1}),
        ("adamax_betas", O.Adamax, {"learning_rate": 0.1, "beta_1": 0.5, "beta_2": 0.8, "epsilon": 1e-3}),
        ("nadam", O.Nadam, {"learning_rate": 0.1}),
        ("nadam_default", O.Nadam, {}),
        ("nadam_betas", O.Nadam, {"learning_rate": 0.1, "beta_1": 0.8, "beta_2": 0.9}),
        ("adadelta", O.Adadelta, {"learning_rate": 1.0}),
        ("adadelta_rho_epsilon", O.Adadelta, {"learning_rate": 1.0, "rho": 0.8, "epsilon": 1e-4}),
        ("lion", O.Lion, {"learning_rate": 0.1}),
        ("lion_betas_decay", O.Lion, {"learning_rate": 0.1, "beta_1": 0.5, "beta_2": 0.9, "weight_decay": 0.1}),
        ("ftrl", O.Ftrl, {"learning_rate": 0.1}),
        ("ftrl_regularized", O.Ftrl,
         {"learning_rate": 0.1, "learning_rate_power": -0.7, "initial_accumulator_value": 0.5,
          "l1_regularization_strength": 0.05, "l2_regularization_strength": 0.1,
          "l2_shrinkage_regularization_strength": 0.02, "beta": 0.3}),
        ("ftrl_l1_clipnorm", O.Ftrl, {"learning_rate": 0.5, "l1_regularization_strength": 0.3, "clipnorm": 1.0}),
    ]
    cases = []
    for name, cls, kw in configs:
        opt = cls(**kw)
        v = keras.Variable(w0, name="kernel")
        steps = []
        for g in grads:
            opt.apply_gradients([(tf.constant(g), v)])
            steps.append(arr(v.numpy()))
        # The same in float64: Keras' formulas without float32 rounding,
        # to tell which of two float32 results is the more exact.
        opt64 = cls(**kw)
        v64 = keras.Variable(w0.astype(np.float64), name="kernel", dtype="float64")
        steps64 = []
        for g in grads:
            opt64.apply_gradients([(tf.constant(g.astype(np.float64)), v64)])
            steps64.append([float(x) for x in v64.numpy().reshape(-1)])
        cases.append({"name": name, "optimizer": cls.__name__, "kwargs": kw,
                      "shape": list(w0.shape), "w0": arr(w0),
                      "grads": [arr(g) for g in grads], "steps": steps,
                      "steps_float64": steps64})
    return cases


def layer_cases(rng):
    """Single-input layers in inference: Keras' get_config(), weights (in
    layer.weights order), output, and the gradients of sum(y*dy) with
    respect to the input and the trainable weights."""
    L = keras.layers
    specs = [
        ("dense_relu", L.Dense(5, activation="relu"), (3, 4)),
        ("dense_rank3", L.Dense(3), (2, 3, 4)),
        ("conv2d_valid", L.Conv2D(4, 3), (2, 6, 6, 3)),
        ("conv2d_same_stride2", L.Conv2D(3, 3, strides=2, padding="same", activation="tanh"), (2, 7, 7, 2)),
        ("conv2d_dilated", L.Conv2D(2, 3, dilation_rate=2, use_bias=False), (1, 7, 8, 2)),
        ("conv2d_1x3_same", L.Conv2D(2, (1, 3), strides=(2, 1), padding="same"), (1, 5, 4, 2)),
        ("depthwise_conv2d", L.DepthwiseConv2D(3, depth_multiplier=2, padding="same"), (2, 5, 5, 3)),
        ("depthwise_conv2d_stride2", L.DepthwiseConv2D(3, strides=2), (1, 7, 7, 2)),
        ("max_pooling2d", L.MaxPooling2D(2), (2, 6, 6, 3)),
        ("max_pooling2d_same_stride1", L.MaxPooling2D(3, strides=1, padding="same"), (1, 5, 5, 2)),
        ("average_pooling2d", L.AveragePooling2D(2), (2, 6, 6, 3)),
        ("average_pooling2d_same", L.AveragePooling2D(3, strides=2, padding="same"), (1, 5, 5, 2)),
        ("global_average_pooling2d", L.GlobalAveragePooling2D(), (2, 4, 4, 3)),
        ("global_max_pooling2d", L.GlobalMaxPooling2D(), (2, 4, 4, 3)),
        ("flatten", L.Flatten(), (2, 3, 3, 2)),
        ("zero_padding2d", L.ZeroPadding2D(((1, 2), (0, 1))), (1, 3, 3, 2)),
        ("layer_normalization", L.LayerNormalization(), (3, 6)),
        ("relu_layer", L.ReLU(max_value=6.0, negative_slope=0.1, threshold=0.5), (3, 8)),
        ("softmax_layer", L.Softmax(), (3, 5)),
        ("rescaling", L.Rescaling(1 / 255.0, offset=-1.0), (2, 4)),
        ("reshape", L.Reshape((3, 4)), (2, 12)),
        ("batch_normalization_inference", L.BatchNormalization(), (4, 3)),
        # Appended after the first cases so that theirs keep their random
        # draws (one generator runs through the list).
        ("activation_gelu", L.Activation("gelu"), (3, 6)),
        ("activation_softmax", L.Activation("softmax"), (3, 5)),
        ("leaky_relu", L.LeakyReLU(negative_slope=0.1), (3, 8)),
        ("leaky_relu_default", L.LeakyReLU(), (3, 8)),
        ("elu", L.ELU(alpha=0.7), (3, 8)),
        ("prelu", L.PReLU(), (2, 3, 4)),
        ("prelu_shared_axes", L.PReLU(shared_axes=[1]), (2, 3, 4)),
        ("dropout_inference", L.Dropout(0.5), (3, 4)),
        ("random_flip_inference", L.RandomFlip(), (2, 4, 4, 3)),
        ("random_translation_inference", L.RandomTranslation(0.2, 0.2, interpolation="nearest"), (2, 5, 5, 2)),
    ]
    cases = []
    for name, layer, shape in specs:
        x = (rng.standard_normal(shape) * 2).astype(np.float32)
        if name == "rescaling":
            x = rng.uniform(0, 255, shape).astype(np.float32)
        layer.build(shape)
        weights = [rng.standard_normal(w.shape).astype(np.float32) for w in layer.weights]
        if name == "batch_normalization_inference":
            weights[-1] = np.abs(weights[-1]) + 0.5  # a variance
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = layer(xt, training=False)
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy)
        grads = tape.gradient(loss, [xt] + list(layer.trainable_weights))
        cases.append({
            "name": name, "class_name": layer.__class__.__name__,
            "config": json.loads(json.dumps(layer.get_config(), default=str)),
            "shape": list(shape), "x": arr(x),
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(v)} for w, v in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dx": arr(grads[0]), "dweights": [arr(g) for g in grads[1:]],
        })
    return cases


def multi_input_layer_cases():
    """Layers with several inputs or integer inputs (Add, Multiply,
    Concatenate, Embedding) in inference: config, weights, output and the
    gradients of sum(y*dy) with respect to the float inputs and the
    trainable weights. Their own generator, so that the sections before
    keep theirs."""
    rng = np.random.default_rng(SEED + 31)
    L = keras.layers
    specs = [
        ("add_3", L.Add(), [(2, 3, 4)] * 3),
        ("multiply_2", L.Multiply(), [(3, 5)] * 2),
        ("concatenate_last", L.Concatenate(), [(2, 3), (2, 4)]),
        ("concatenate_axis1", L.Concatenate(axis=1), [(2, 2, 3), (2, 1, 3), (2, 3, 3)]),
        ("embedding", L.Embedding(7, 3), [(4, 5)]),
    ]
    cases = []
    for name, layer, shapes in specs:
        integer = layer.__class__.__name__ == "Embedding"
        if integer:
            xs = [rng.integers(0, 7, s).astype(np.int32) for s in shapes]
            xs[0][0, :] = [0, 6, 6, 3, 0]  # both ends, a repeat
            layer.build(shapes[0])
        else:
            xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            layer.build(shapes if len(shapes) > 1 else shapes[0])
        weights = [rng.standard_normal(w.shape).astype(np.float32) for w in layer.weights]
        for w, v in zip(layer.weights, weights):
            w.assign(v)
        xts = [tf.constant(x) for x in xs]
        with tf.GradientTape(persistent=True) as tape:
            for x in xts:
                if not integer:
                    tape.watch(x)
            y = layer(xts if len(xts) > 1 else xts[0], training=False)
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy)
        dxs = [] if integer else [arr(g) for g in tape.gradient(loss, xts)]
        dws = tape.gradient(loss, list(layer.trainable_weights))
        dws = [arr(tf.convert_to_tensor(g)) for g in dws]  # IndexedSlices for Embedding
        cases.append({
            "name": name, "class_name": layer.__class__.__name__,
            "config": json.loads(json.dumps(layer.get_config(), default=str)),
            "inputs": [{"shape": list(x.shape), "integer": integer,
                        "x": [int(v) for v in x.reshape(-1)] if integer else arr(x)} for x in xs],
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(v)} for w, v in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dxs": dxs, "dweights": dws,
        })
    return cases


def schedule_cases():
    """Learning-rate schedules: Keras' config and the rate (float32, as
    Keras computes it) at steps 0..30 and some far steps. covers names the
    gokeras constructor where it is not the Keras class name."""
    S = keras.optimizers.schedules
    specs = [
        ("exponential_decay", S.ExponentialDecay(0.1, decay_steps=7, decay_rate=0.5), "ExponentialDecay"),
        ("exponential_decay_staircase", S.ExponentialDecay(0.1, decay_steps=7, decay_rate=0.5, staircase=True), "ExponentialDecay"),
        ("piecewise_constant_decay", S.PiecewiseConstantDecay([5, 12, 20], [1.0, 0.5, 0.25, 0.125]), "PiecewiseConstantDecay"),
        ("cosine_decay", S.CosineDecay(0.1, decay_steps=20), "CosineDecay"),
        ("cosine_decay_alpha", S.CosineDecay(0.1, decay_steps=20, alpha=0.1), "CosineDecay"),
        ("cosine_decay_warmup", S.CosineDecay(0.0, decay_steps=20, alpha=0.05, warmup_target=0.2, warmup_steps=6),
         "CosineDecayWithWarmup"),
        ("cosine_decay_warmup_from", S.CosineDecay(0.01, decay_steps=15, warmup_target=0.1, warmup_steps=4),
         "CosineDecayWithWarmup"),
    ]
    steps = list(range(31)) + [50, 100, 1000]
    cases = []
    for name, sched, ctor in specs:
        lr = [float(np.float32(sched(tf.constant(s, tf.int64)))) for s in steps]
        cases.append({"name": name, "schedule": sched.__class__.__name__, "covers": [ctor],
                      "config": json.loads(json.dumps(sched.get_config(), default=str)),
                      "steps": steps, "lr": lr})
    # An optimizer driven by a schedule: the variable after each of 3 steps.
    rng = np.random.default_rng(SEED + 41)
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    grads = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    for name, opt in (("sgd_exponential_decay", keras.optimizers.SGD(S.ExponentialDecay(0.1, 1, 0.5))),
                      ("adam_piecewise", keras.optimizers.Adam(S.PiecewiseConstantDecay([1], [0.1, 0.01])))):
        v = keras.Variable(w0, name="kernel")
        out = []
        for g in grads:
            opt.apply_gradients([(tf.constant(g), v)])
            out.append(arr(v.numpy()))
        sched = opt._learning_rate
        cases.append({"name": name, "schedule": sched.__class__.__name__, "optimizer": opt.__class__.__name__,
                      "config": json.loads(json.dumps(sched.get_config(), default=str)),
                      "shape": list(w0.shape), "w0": arr(w0), "grads": [arr(g) for g in grads], "opt_steps": out})
    return cases


def optimizer_slot_cases():
    """Every optimizer's own variables (iterations and the slots of the
    trained variable: momentum, velocity, accumulators, ...) after 3
    apply_gradients steps. Their own generator."""
    rng = np.random.default_rng(SEED + 71)
    O = keras.optimizers
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    grads = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    configs = [
        ("sgd_momentum", O.SGD, {"learning_rate": 0.1, "momentum": 0.9}),
        ("adam", O.Adam, {"learning_rate": 0.1}),
        ("adam_amsgrad", O.Adam, {"learning_rate": 0.1, "amsgrad": True}),
        ("adamw", O.AdamW, {"learning_rate": 0.1, "weight_decay": 0.1}),
        ("rmsprop_momentum_centered", O.RMSprop, {"learning_rate": 0.1, "momentum": 0.9, "centered": True}),
        ("adagrad", O.Adagrad, {"learning_rate": 0.1}),
        ("adamax", O.Adamax, {"learning_rate": 0.1}),
        ("nadam", O.Nadam, {"learning_rate": 0.1}),
        ("adadelta", O.Adadelta, {"learning_rate": 1.0}),
        ("lion", O.Lion, {"learning_rate": 0.1}),
        ("ftrl", O.Ftrl, {"learning_rate": 0.1, "l1_regularization_strength": 0.05}),
    ]
    cases = []
    for name, cls, kw in configs:
        opt = cls(**kw)
        v = keras.Variable(w0, name="kernel")
        for g in grads:
            opt.apply_gradients([(tf.constant(g), v)])
        # The slots of "kernel" by slot name (Keras' paths carry a counter
        # of optimizers made so far: adam_9/kernel_momentum); Nadam's
        # running product of momentum factors is an unnamed scalar.
        variables = []
        for x in opt.variables:
            last = x.path.split("/")[-1]
            if last in ("iteration", "learning_rate"):
                continue
            slot = last[len("kernel_"):] if last.startswith("kernel_") else "u_product" if cls is O.Nadam else last
            variables.append({"slot": slot, "shape": list(x.shape), "value": arr(np.asarray(x.numpy(), np.float32))})
        cases.append({"name": name, "optimizer": cls.__name__, "kwargs": kw, "shape": list(w0.shape),
                      "w0": arr(w0), "grads": [arr(g) for g in grads], "w": arr(v.numpy()),
                      "iterations": int(opt.iterations.numpy()), "variables": variables})
    return cases


def mean_metric_cases():
    """keras.metrics.Mean: the result after each update_state(values,
    sample_weight) of rank-1 values, each weighted alike (1 when none).
    (Keras averages the values of a sample, a row of a rank-2 batch, before
    the mean, and a scalar sample_weight weighs the whole batch as one
    sample; gokeras' Mean.Update weighs each element, so those are left
    out: see docs/keras_verification.md.)"""
    rng = np.random.default_rng(SEED + 53)
    cases = []
    for name, ups in (("mean", [(rng.standard_normal((4,)), None), (rng.standard_normal((6,)), None)]),
                      ("mean_weighted", [(rng.standard_normal((5,)), 2.0), (rng.standard_normal((3,)), 0.25),
                                         (rng.standard_normal((2,)), 0.0)])):
        m = keras.metrics.Mean()
        out = []
        for v, w in ups:
            v = v.astype(np.float32)
            m.update_state(tf.constant(v), sample_weight=None if w is None else tf.constant(np.full(v.shape, w, np.float32)))
            out.append({"shape": list(v.shape), "values": arr(v), "weight": 1.0 if w is None else w,
                        "result": float(m.result().numpy())})
        cases.append({"name": name, "metric": "Mean", "updates": out})
    return cases


def main():
    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    write("keras/layers/testdata/keras/batchnorm.json", batchnorm_cases(rng))
    write("keras/losses/testdata/keras/losses.json", loss_cases(rng))
    write("keras/layers/testdata/keras/activations.json", activation_cases(rng))
    write("keras/metrics/testdata/keras/metrics.json", metric_cases(rng))
    write("keras/optimizers/testdata/keras/optimizers.json", optimizer_cases(rng))
    write("keras/testdata/keras/layers.json", layer_cases(rng))
    write("keras/testdata/keras/layers_multi_input.json", multi_input_layer_cases())
    write("keras/optimizers/testdata/keras/schedules.json", schedule_cases())
    write("keras/metrics/testdata/keras/mean.json", mean_metric_cases())
    write("keras/optimizers/testdata/keras/optimizer_slots.json", optimizer_slot_cases())


if __name__ == "__main__":
    main()
