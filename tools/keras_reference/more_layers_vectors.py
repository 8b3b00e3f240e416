"""Writes Keras vectors for the classes of issue 31 (the merge layers
Average, Subtract, Maximum, Minimum and Dot; GaussianNoise,
GaussianDropout, AlphaDropout, SpatialDropout1D/2D/3D; GroupNormalization,
RMSNormalization, UnitNormalization; ZeroPadding1D/3D, Cropping1D/3D,
UpSampling1D/3D; GlobalAveragePooling3D, GlobalMaxPooling3D,
RandomBrightness, DepthwiseConv1D, SeparableConv1D, Conv1DTranspose,
Conv3D, MaxPooling3D, AveragePooling3D, EinsumDense; the constraints MaxNorm, NonNeg, UnitNorm, MinMaxNorm;
activity_regularizer and the gamma/beta regularizers), for gokeras' Go tests:

    keras/testdata/keras/more_layers.json              single-input layers
    keras/testdata/keras/more_layers_multi_input.json  merge layers
        (both read by keras/layer_vectors_more_layers_test.go)
    keras/testdata/keras/constraints.json              constraint projections
    keras/testdata/keras/constraints_train_<name>.keras models with
        constraints and regularizers, compiled, before training
    keras/testdata/keras/constraints_train.json        their data, Keras'
        losses and weights after fit
    keras/testdata/keras/more_layers_model.keras       a model using every
        class above
    keras/testdata/keras/more_layers_model.json        its inputs and
        Keras' predictions

Run from the repository root with the pinned environment (requirements.txt),
or through run_all.py:

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/more_layers_vectors.py

Layer cases have the format of conv_more_vectors.py's (and
gen_vectors.py's layers_multi_input.json for the merge layers): Keras'
get_config(), the weights, the inference output and the gradients of
sum(y*dy) with respect to the inputs and the trainable weights. The noise
layers are the identity in inference, which is what real Keras vectors can
pin down (their training draws come from TensorFlow's random streams,
which gokeras does not reproduce; the Go tests check their distributions).
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
OUT = "keras/testdata/keras"
L = keras.layers
C = keras.constraints
R = keras.regularizers


def manifest():
    return {
        "generator": "tools/keras_reference/more_layers_vectors.py",
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


def plain(cfg):
    return json.loads(json.dumps(cfg, default=str))


def write(name, doc):
    path = os.path.join(OUT, name)
    os.makedirs(OUT, exist_ok=True)
    with open(path, "w") as f:
        json.dump({"manifest": manifest(), **doc}, f, indent=1)
        f.write("\n")
    print(f"wrote {path}")


def layer_cases(rng):
    specs = [
        ("gaussian_noise", L.GaussianNoise(0.3, seed=5), (2, 3, 4)),
        ("gaussian_dropout", L.GaussianDropout(0.4), (2, 5)),
        ("alpha_dropout", L.AlphaDropout(0.2, seed=1), (3, 4)),
        ("spatial_dropout1d", L.SpatialDropout1D(0.3), (2, 4, 3)),
        ("spatial_dropout2d", L.SpatialDropout2D(0.3, seed=2), (1, 3, 3, 2)),
        ("spatial_dropout3d", L.SpatialDropout3D(0.3), (1, 2, 2, 2, 2)),
        ("group_normalization", L.GroupNormalization(groups=2), (2, 3, 4)),
        ("group_normalization_instance", L.GroupNormalization(groups=-1, epsilon=1e-2), (2, 2, 2, 3)),
        ("group_normalization_axis1", L.GroupNormalization(groups=3, axis=1, center=False), (2, 6, 2)),
        ("group_normalization_one_group_no_scale", L.GroupNormalization(groups=1, scale=False), (3, 4)),
        ("rms_normalization", L.RMSNormalization(), (2, 3, 5)),
        ("rms_normalization_two_axes", L.RMSNormalization(axis=[1, 2], epsilon=1e-3), (2, 3, 4)),
        ("unit_normalization", L.UnitNormalization(), (3, 4)),
        ("unit_normalization_axes", L.UnitNormalization(axis=[1, 2]), (2, 3, 2)),
        ("zero_padding1d", L.ZeroPadding1D(), (2, 3, 2)),
        ("zero_padding1d_pair", L.ZeroPadding1D((2, 0)), (1, 3, 2)),
        ("zero_padding3d", L.ZeroPadding3D(((1, 0), (0, 2), (1, 1))), (1, 2, 2, 1, 2)),
        ("cropping1d", L.Cropping1D((1, 2)), (2, 6, 2)),
        ("cropping3d", L.Cropping3D(((1, 0), (0, 1), (1, 1))), (1, 3, 3, 4, 2)),
        ("upsampling1d", L.UpSampling1D(3), (2, 3, 2)),
        ("upsampling3d", L.UpSampling3D((2, 1, 3)), (1, 2, 2, 2, 2)),
        # The optional list of issue 31.
        ("global_average_pooling3d", L.GlobalAveragePooling3D(), (2, 2, 3, 2, 3)),
        ("global_max_pooling3d_keepdims", L.GlobalMaxPooling3D(keepdims=True), (2, 2, 3, 2, 3)),
        ("random_brightness_inference", L.RandomBrightness(0.3, value_range=(0, 1)), (2, 3, 3, 2)),
        ("depthwise_conv1d", L.DepthwiseConv1D(3, depth_multiplier=2, activation="relu"), (2, 6, 3)),
        ("depthwise_conv1d_same_stride2", L.DepthwiseConv1D(2, strides=2, padding="same"), (1, 7, 2)),
        ("depthwise_conv1d_dilated", L.DepthwiseConv1D(3, dilation_rate=2, padding="same", use_bias=False), (1, 8, 2)),
        ("separable_conv1d", L.SeparableConv1D(4, 3, depth_multiplier=2, padding="same", activation="tanh"), (2, 6, 3)),
        ("separable_conv1d_stride2", L.SeparableConv1D(3, 2, strides=2), (1, 7, 2)),
        ("conv1d_transpose", L.Conv1DTranspose(3, 3), (2, 4, 2)),
        ("conv1d_transpose_same_stride2", L.Conv1DTranspose(2, 3, strides=2, padding="same", activation="relu"), (1, 5, 3)),
        ("conv1d_transpose_output_padding", L.Conv1DTranspose(2, 2, strides=3, output_padding=1), (1, 3, 2)),
        ("conv3d", L.Conv3D(3, 2), (2, 3, 4, 3, 2)),
        ("conv3d_same_strided", L.Conv3D(2, (3, 2, 3), strides=(2, 1, 2), padding="same", activation="relu"), (1, 5, 4, 5, 2)),
        ("conv3d_dilated", L.Conv3D(2, 2, dilation_rate=(2, 1, 2), use_bias=False), (1, 4, 3, 4, 1)),
        ("conv3d_same_even_kernel", L.Conv3D(2, (2, 2, 2), padding="same"), (1, 3, 3, 3, 2)),
        ("max_pooling3d", L.MaxPooling3D(), (2, 4, 4, 2, 2)),
        ("max_pooling3d_same", L.MaxPooling3D((3, 2, 2), strides=(2, 1, 2), padding="same"), (1, 5, 3, 3, 2)),
        ("average_pooling3d", L.AveragePooling3D((2, 1, 2)), (2, 4, 2, 4, 2)),
        ("average_pooling3d_same", L.AveragePooling3D(3, strides=2, padding="same"), (1, 5, 4, 5, 2)),
        ("einsum_dense_dense", L.EinsumDense("ab,bc->ac", output_shape=4, bias_axes="c", activation="relu"), (3, 5)),
        ("einsum_dense_3d", L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de"), (2, 3, 4)),
        ("einsum_dense_bias_one_axis", L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="d"), (2, 3, 4)),
        ("einsum_dense_left_ellipsis", L.EinsumDense("...b,bc->...c", output_shape=4, bias_axes="c"), (2, 3, 5)),
        ("einsum_dense_right_ellipsis", L.EinsumDense("ab...,bc->ac...", output_shape=5, bias_axes="c"), (2, 4, 3)),
        ("einsum_dense_contract_two", L.EinsumDense("abcd,cde->abe", output_shape=(None, 4), bias_axes="e"), (2, 3, 2, 3)),
        ("einsum_dense_no_bias", L.EinsumDense("abc,cd->abd", output_shape=(None, 3)), (2, 2, 4)),
        # windows deeper than the input: taps that read only padding
        ("max_pooling3d_deep_window", L.MaxPooling3D((7, 1, 2), strides=(1, 1, 2), padding="same"), (1, 3, 2, 2, 1)),
        ("average_pooling3d_deep_window", L.AveragePooling3D((6, 2, 1), strides=(2, 1, 1), padding="same"), (1, 3, 2, 2, 1)),
        ("conv3d_deep_kernel", L.Conv3D(2, (5, 1, 2), padding="same"), (1, 2, 2, 3, 2)),
        # The identity (its penalty enters the training losses of
        # train_models' seq model).
        ("activity_regularization", L.ActivityRegularization(l1=0.01, l2=0.02), (2, 3)),
    ]
    cases = []
    for name, layer, shape in specs:
        x = (rng.standard_normal(shape) * 2).astype(np.float32)
        layer.build(shape)
        weights = [rng.standard_normal(w.shape).astype(np.float32) for w in layer.weights]
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
            "config": plain(layer.get_config()),
            "shape": list(shape), "x": arr(x),
            "weights": [{"name": w.path, "shape": list(w.shape), "value": arr(v)} for w, v in zip(layer.weights, weights)],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dx": arr(grads[0]), "dweights": [arr(g) for g in grads[1:]],
        })
    return cases


def multi_input_cases(rng):
    specs = [
        ("average_3", L.Average(), [(2, 3, 4)] * 3),
        ("average_broadcast", L.Average(), [(2, 3, 4), (2, 1, 4)]),
        ("subtract", L.Subtract(), [(3, 5)] * 2),
        ("maximum_3", L.Maximum(), [(2, 6)] * 3),
        ("minimum_2", L.Minimum(), [(2, 2, 3)] * 2),
        ("dot_vectors", L.Dot(axes=1), [(3, 4), (3, 4)]),
        ("dot_axes_1_2", L.Dot(axes=(1, 2)), [(2, 3, 5), (2, 4, 3)]),
        ("dot_normalize", L.Dot(axes=-1, normalize=True), [(2, 3, 4), (2, 5, 4)]),
        ("dot_rank4_rank2", L.Dot(axes=(2, 1)), [(2, 3, 4, 2), (2, 4)]),
        ("dot_matrix_vector", L.Dot(axes=(1, 1)), [(2, 3), (2, 3, 4)]),
    ]
    cases = []
    for name, layer, shapes in specs:
        xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        if name == "maximum_3":
            xs[1][0, :3] = xs[0][0, :3]  # ties: the gradient goes to the first input
        layer.build(shapes)
        xts = [tf.constant(x) for x in xs]
        with tf.GradientTape(persistent=True) as tape:
            for x in xts:
                tape.watch(x)
            y = layer(xts, training=False)
            dy = tf.constant(rng.standard_normal(y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * dy)
        dxs = [arr(g) for g in tape.gradient(loss, xts)]
        cases.append({
            "name": name, "class_name": layer.__class__.__name__,
            "config": plain(layer.get_config()),
            "inputs": [{"shape": list(x.shape), "integer": False, "x": arr(x)} for x in xs],
            "weights": [],
            "y_shape": list(y.shape), "y": arr(y), "dy": arr(dy),
            "dxs": dxs, "dweights": [],
        })
    return cases


def constraint_cases(rng):
    specs = [
        ("max_norm_default", C.MaxNorm(), (3, 4), 1.5),
        ("max_norm_axis1", C.MaxNorm(max_value=1.0, axis=1), (3, 4), 1.0),
        ("max_norm_conv_axes", C.MaxNorm(max_value=0.5, axis=[0, 1, 2]), (2, 2, 2, 3), 1.0),
        ("max_norm_zeros", C.MaxNorm(), (2, 3), 0.0),
        ("non_neg", C.NonNeg(), (3, 4), 1.0),
        ("unit_norm", C.UnitNorm(), (4, 3), 1.0),
        ("unit_norm_axis_neg", C.UnitNorm(axis=-1), (2, 3, 2), 1.0),
        ("min_max_norm", C.MinMaxNorm(min_value=0.5, max_value=1.5, rate=0.7), (5, 3), 1.0),
        ("min_max_norm_axes", C.MinMaxNorm(min_value=2.0, max_value=3.0, axis=[0, 1]), (2, 3, 2), 0.3),
    ]
    cases = []
    for name, c, shape, scale in specs:
        w = (rng.standard_normal(shape) * 2 * scale).astype(np.float32)
        cases.append({
            "name": name, "constraint": c.__class__.__name__,
            "config": plain(keras.constraints.serialize(c)),
            "shape": list(shape), "w": arr(w), "projected": arr(c(tf.constant(w))),
        })
    return cases


def train_models():
    """Models whose layers carry constraints and regularizers, trained by
    fit with plain SGD, so that each update is followed by the projection."""
    inp = keras.Input((6, 3))
    h = L.Conv1D(4, 3, kernel_constraint=C.MinMaxNorm(0.2, 0.6, 0.7, axis=[0, 1]), bias_constraint=C.NonNeg(),
                 activity_regularizer=R.L2(0.05))(inp)
    h = L.LayerNormalization(gamma_constraint=C.MaxNorm(1.2), beta_regularizer=R.L1(0.02),
                             gamma_regularizer=R.L2(0.03))(h)
    h = L.GlobalAveragePooling1D()(h)
    h = L.ActivityRegularization(l1=0.01, l2=0.03)(h)
    h = L.Dense(5, activation="tanh", kernel_constraint=C.MaxNorm(0.5), bias_constraint=C.UnitNorm(),
                activity_regularizer=R.L1L2(0.01, 0.02))(h)
    h = L.BatchNormalization(gamma_regularizer=R.L2(0.1), beta_constraint=C.NonNeg(),
                             gamma_constraint=C.MinMaxNorm(0.0, 2.0))(h)
    h = L.GroupNormalization(groups=1, gamma_regularizer=R.L2(0.05), beta_constraint=C.MaxNorm(0.3))(h)
    out = L.Dense(2, kernel_constraint=C.UnitNorm(axis=0))(h)
    seq = keras.Model(inp, out, name="constrained_seq")

    img = keras.Input((5, 5, 2))
    g = L.Conv2D(3, 3, kernel_constraint=C.MaxNorm(0.8, axis=[0, 1, 2]))(img)
    g = L.DepthwiseConv2D(2, depthwise_constraint=C.NonNeg(), bias_constraint=C.MaxNorm(0.1))(g)
    g = L.SeparableConv2D(2, 2, depthwise_constraint=C.UnitNorm(axis=[0, 1]), pointwise_constraint=C.MaxNorm(0.4, axis=2),
                          activity_regularizer=R.L2(0.1))(g)
    g = L.Flatten()(g)
    g = L.Dense(2)(g)
    cnn = keras.Model(img, g, name="constrained_cnn")

    ids = keras.Input((4,), dtype="int32")
    e = L.Embedding(6, 3, embeddings_constraint=C.UnitNorm(axis=1))(ids)
    e = L.Flatten()(e)
    e = L.Dense(2, kernel_constraint=C.NonNeg())(e)
    emb = keras.Model(ids, e, name="constrained_embedding")
    steps = keras.Input((5, 3))
    r = L.LSTM(4, return_sequences=True, kernel_constraint=C.MaxNorm(0.6), recurrent_constraint=C.UnitNorm(),
               bias_constraint=C.NonNeg(), activity_regularizer=R.L2(0.05))(steps)
    r = L.PReLU(alpha_constraint=C.NonNeg(), alpha_initializer="ones")(r)
    r = L.GRU(3, recurrent_constraint=C.MaxNorm(0.5, axis=[0, 1]), kernel_constraint=C.MinMaxNorm(0.1, 0.4))(r)
    r = L.Dense(2)(r)
    rnn = keras.Model(steps, r, name="constrained_rnn")
    return [("seq", seq, (6, 3), False), ("cnn", cnn, (5, 5, 2), False), ("embedding", emb, (4,), True),
            ("rnn", rnn, (5, 3), False)]


def train_cases(rng):
    cases = []
    for name, model, shape, integer in train_models():
        n = 8
        if integer:
            x = rng.integers(0, 6, (n,) + shape).astype(np.int32)
        else:
            x = rng.standard_normal((n,) + shape).astype(np.float32)
        y = rng.standard_normal((n, 2)).astype(np.float32)
        model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.2), loss="mse")
        path = os.path.join(OUT, f"constraints_train_{name}.keras")
        model.save(path)
        hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        cases.append({
            "name": name, "file": os.path.basename(path),
            "shape": [n] + list(shape), "integer": integer,
            "x": [int(v) for v in x.reshape(-1)] if integer else arr(x), "y": arr(y),
            "batch_size": 4, "epochs": 2, "loss": [float(v) for v in hist.history["loss"]],
            "weights_after": [{"path": w.path, "shape": list(w.shape), "value": arr(w.numpy())} for w in model.weights],
        })
        print(f"wrote {path}")
    return cases


def model_with_every_class(rng):
    a = keras.Input((6, 4), name="a")
    b = keras.Input((6, 4), name="b")
    avg = L.Average()([a, b])
    sub = L.Subtract()([a, b])
    mx = L.Maximum()([a, b, avg])
    mn = L.Minimum()([a, b])
    h = L.Concatenate()([avg, sub, mx, mn])  # (6, 16)
    h = L.GaussianNoise(0.1)(h)
    h = L.GaussianDropout(0.2)(h)
    h = L.AlphaDropout(0.1)(h)
    h = L.SpatialDropout1D(0.2)(h)
    h = L.GroupNormalization(groups=4)(h)
    h = L.RMSNormalization()(h)
    h = L.ActivityRegularization(l1=0.001, l2=0.002)(h)
    h = L.ZeroPadding1D((1, 2))(h)  # (9, 16)
    h = L.Cropping1D((2, 1))(h)  # (6, 16)
    h = L.UpSampling1D(2)(h)  # (12, 16)
    u = L.UnitNormalization()(h)
    d = L.Dot(axes=(2, 2), normalize=True)([h, u])  # (12, 12)
    v = L.Reshape((2, 3, 2, 16))(h)
    v = L.ZeroPadding3D(((1, 0), (0, 1), (1, 1)))(v)  # (3, 4, 4, 16)
    v = L.Cropping3D(((0, 1), (1, 0), (1, 1)))(v)  # (2, 3, 2, 16)
    v = L.UpSampling3D((1, 2, 1))(v)  # (2, 6, 2, 16)
    v = L.SpatialDropout3D(0.2)(v)
    w = L.Reshape((12, 16, 1))(h)
    w = L.SpatialDropout2D(0.2)(w)
    # Keras records each layer's training argument in the node's kwargs,
    # the call signature's default when none is given (False for the noise
    # layers, True for RandomBrightness) and overrides it whenever the model
    # is called with training set; gokeras' loader keeps the recorded value,
    # so the default True would brighten in predict. Given explicitly here,
    # both agree (the identity in inference).
    w = L.RandomBrightness(0.2, value_range=(-10, 10))(w, training=False)
    c3 = L.Conv3D(4, (2, 3, 1), strides=(1, 2, 1), padding="same")(v)  # (2, 3, 2, 4)
    c3 = L.MaxPooling3D((2, 2, 1), padding="same")(c3)  # (1, 2, 2, 4)
    c3 = L.AveragePooling3D((1, 2, 2), strides=1, padding="same")(c3)
    g3 = L.Concatenate()([L.GlobalAveragePooling3D()(c3), L.GlobalMaxPooling3D()(c3)])
    s1 = L.DepthwiseConv1D(3, depth_multiplier=2, padding="same")(h)  # (12, 32)
    s1 = L.SeparableConv1D(4, 3, strides=2)(s1)  # (5, 4)
    s1 = L.Conv1DTranspose(3, 3, strides=2, padding="same")(s1)  # (10, 3)
    ed = L.EinsumDense("abc,cde->abde", output_shape=(12, 2, 3), bias_axes="de")(h)
    out = L.Concatenate()([L.Flatten()(d), L.Flatten()(v), L.Flatten()(w), g3, L.Flatten()(s1), L.Flatten()(ed)])
    out = L.Dense(3)(out)
    model = keras.Model([a, b], out, name="every_class")
    for wt in model.weights:
        wt.assign(rng.standard_normal(wt.shape).astype(np.float32) * (0.1 if len(wt.shape) > 1 else 1.0))
    xa = rng.standard_normal((3, 6, 4)).astype(np.float32)
    xb = rng.standard_normal((3, 6, 4)).astype(np.float32)
    pred = model.predict([xa, xb], verbose=0)
    path = os.path.join(OUT, "more_layers_model.keras")
    model.save(path)
    print(f"wrote {path}")
    return {"file": "more_layers_model.keras", "a": arr(xa), "b": arr(xb), "shape": list(xa.shape),
            "predictions": arr(pred), "pred_shape": list(pred.shape),
            "classes": sorted({l.__class__.__name__ for l in model.layers})}


def main():
    # As run_all.py does before each script, so that a run alone writes
    # the same files (the trained models start from Keras' initializers).
    keras.backend.clear_session()
    keras.utils.set_random_seed(SEED)
    rng = np.random.default_rng(SEED + 31 * 31)
    write("more_layers.json", {"cases": layer_cases(rng)})
    write("more_layers_multi_input.json", {"cases": multi_input_cases(rng)})
    write("constraints.json", {"cases": constraint_cases(rng)})
    write("constraints_train.json", {"cases": train_cases(rng)})
    write("more_layers_model.json", model_with_every_class(rng))


if __name__ == "__main__":
    main()
