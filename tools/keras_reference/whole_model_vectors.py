"""Writes keras/testdata/whole_model/: the seed CNN, a narrow seed ResNet and
keras.io's MNIST convnet trained by Keras' fit for 20 Adam steps from given
weights on given batches, for keras/whole_model_keras_test.go.

Run from the repository root with the pinned environment (requirements.txt),
or through run_all.py:

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/whole_model_vectors.py

The models are the seed models of examples/internal/models (the CNN of the
MirroredStrategy tutorial exactly, and the tutorial's ResNet with every
filter count divided by 8 (7x7 stem of 8 filters, blocks of 8, 8, 16, 16,
32, 32): the full ResNet's 2.8 million weights would be 22 MB of testdata;
the structure (stem, strided blocks with 1x1 shortcuts, BatchNormalization
in training, global pooling) is the same; both end in 10 logits, trained with
SparseCategoricalCrossentropy(from_logits=True)), and keras.io's MNIST
convnet without its Dropout (softmax output, categorical_crossentropy on
one-hot labels, validation_split=0.1: Keras holds out the last 8 of the 80
examples), all with Adam() at Keras' defaults, the accuracy metric and
shuffle=False.

Each <name>.npz holds: w_<i> (int16: the i-th weight of model.weights
times 2^12; Keras' own initialisation rounded to that grid, so that float32
holds it exactly in both), x (uint8 images; the model's input is x/255 in
float32), y (class ids), x_eval, logits_before and logits_after (predict
on x_eval/255 before and after training; logits_after_training_mode: the
trained model called with training=True on x_eval), batch_loss (the loss Keras
logs after each of the 20 steps: the running mean over the epoch), loss
and accuracy per epoch (fit's history), eval_loss and eval_accuracy
(evaluate on x_eval after training), val_loss and val_accuracy per epoch
(with validation_split) and final_<i> (float32: every weight
after training, moving statistics included); for the ResNet also
final64_<i> and logits_after_float64, the same training in float64
(training amplifies float32 rounding where a gradient is zero in exact
arithmetic: a convolution's bias in front of BatchNormalization, a
kernel entry whose gradient is below Adam's epsilon).
manifest.json lists the
cases: versions, sizes and the weights' Keras paths and shapes.
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
OUT = "keras/testdata/whole_model"
QUANT = 12  # weights are multiples of 2^-QUANT
L = keras.layers


def seed_cnn():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(32, 3, activation="relu"),
        L.MaxPooling2D(),
        L.Conv2D(64, 3, activation="relu"),
        L.MaxPooling2D(),
        L.Flatten(),
        L.Dense(128, activation="relu"),
        L.Dense(10),
    ])


def resnet_block(x, filters, kernel, stride, conv_shortcut):
    shortcut = x
    if conv_shortcut:
        shortcut = L.Conv2D(filters, 1, strides=stride)(shortcut)
        shortcut = L.BatchNormalization()(shortcut)
    x = L.Conv2D(filters, kernel, strides=stride, padding="same")(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    x = L.Conv2D(filters, kernel, padding="same")(x)
    x = L.BatchNormalization()(x)
    x = L.Add()([x, shortcut])
    return L.ReLU()(x)


def seed_resnet(div):
    inputs = keras.Input((32, 32, 3))
    x = L.Conv2D(64 // div, 7, strides=2, padding="same")(inputs)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    x = L.MaxPooling2D(3, strides=2, padding="same")(x)
    x = resnet_block(x, 64 // div, 3, 1, True)
    x = resnet_block(x, 64 // div, 3, 1, False)
    x = resnet_block(x, 128 // div, 3, 2, True)
    x = resnet_block(x, 128 // div, 3, 1, False)
    x = resnet_block(x, 256 // div, 3, 2, True)
    x = resnet_block(x, 256 // div, 3, 1, False)
    x = L.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, L.Dense(10)(x))


def images(rng, n, shape, labels):
    """uint8 images that depend on their class (a fixed pattern per class
    plus noise), so that training lowers the loss."""
    patterns = rng.uniform(0, 255, (10,) + shape)
    noise = rng.uniform(0, 255, (n,) + shape)
    return np.clip(0.6 * patterns[labels] + 0.4 * noise, 0, 255).astype(np.uint8)


def keras_io_convnet():
    """keras.io's MNIST convnet (examples/vision/mnist_convnet) without its
    Dropout(0.5), whose random mask no two programs share."""
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        L.MaxPooling2D(pool_size=(2, 2)),
        L.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        L.MaxPooling2D(pool_size=(2, 2)),
        L.Flatten(),
        L.Dense(10, activation="softmax"),
    ])


def labels_for(loss, y, dt):
    """Class ids for the sparse loss, one-hot rows for categorical."""
    return np.eye(10, dtype=dt)[y] if loss == "categorical_crossentropy" else y.astype(dt)


def train(model, q, xf, y, xef, batch, epochs, loss="sparse_logits", validation_split=0.0):
    """Sets the weights q * 2^-QUANT, fits and returns (logits before,
    per-step losses, history, logits after)."""
    dt = model.weights[0].dtype
    model.set_weights([v.astype(dt) / np.asarray(2.0**QUANT, dt) for v in q])
    logits_before = model.predict(xef, batch_size=batch, verbose=0)
    model.compile(optimizer=keras.optimizers.Adam(),
                  loss=(keras.losses.SparseCategoricalCrossentropy(from_logits=True) if loss == "sparse_logits" else loss),
                  metrics=["accuracy"])
    batch_loss = []
    cb = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batch_loss.append(logs["loss"]))
    hist = model.fit(xf, labels_for(loss, y, xf.dtype), batch_size=batch, epochs=epochs, shuffle=False, verbose=0,
                     callbacks=[cb], validation_split=validation_split)
    return logits_before, batch_loss, hist, model.predict(xef, batch_size=batch, verbose=0)


def case(name, build, rng, shape, n, batch, epochs, n_eval, float64=False, loss="sparse_logits", validation_split=0.0):
    y = rng.integers(0, 10, n)
    x = images(rng, n, shape, y)
    y_eval = rng.integers(0, 10, n_eval)
    x_eval = images(rng, n_eval, shape, y_eval)
    scale = np.float32(255)
    xf, xef = x.astype(np.float32) / scale, x_eval.astype(np.float32) / scale
    model = build()
    q = [np.round(np.asarray(w.numpy(), np.float64) * 2.0**QUANT).astype(np.int16) for w in model.weights]
    logits_before, batch_loss, hist, logits_after = train(model, q, xf, y, xef, batch, epochs, loss, validation_split)
    ev = model.evaluate(xef, labels_for(loss, y_eval, np.float32), batch_size=batch, verbose=0, return_dict=True)
    arrays = {"x": x, "y": y.astype(np.uint8), "x_eval": x_eval, "y_eval": y_eval.astype(np.uint8),
              "logits_before": logits_before.astype(np.float32), "logits_after": logits_after.astype(np.float32),
              "batch_loss": np.array(batch_loss, np.float32),
              "loss": np.array(hist.history["loss"], np.float32),
              "accuracy": np.array(hist.history["accuracy"], np.float32),
              "eval_loss": np.array([ev["loss"]], np.float32),
              "eval_accuracy": np.array([ev["accuracy"]], np.float32)}
    for k in ("val_loss", "val_accuracy"):
        if k in hist.history:
            arrays[k] = np.array(hist.history[k], np.float32)
    for i, v in enumerate(q):
        arrays[f"w_{i}"] = v
    for i, w in enumerate(model.weights):
        arrays[f"final_{i}"] = np.asarray(w.numpy(), np.float32)
    # The trained model called in training mode on x_eval (BatchNormalization
    # on the batch's statistics, which a convolution's bias in front of it
    # does not change); last, as it moves the moving statistics.
    arrays["logits_after_training_mode"] = np.asarray(model(xef, training=True), np.float32)
    if float64:
        # The same training in float64: Keras' computation without float32
        # rounding, to tell noise that training amplifies from a departure.
        keras.config.set_floatx("float64")
        try:
            m64 = build()
            d = np.float64(255)
            _, _, _, logits64 = train(m64, q, x.astype(np.float64) / d, y, x_eval.astype(np.float64) / d, batch, epochs)
        finally:
            keras.config.set_floatx("float32")
        arrays["logits_after_float64"] = logits64.astype(np.float64)
        for i, w in enumerate(m64.weights):
            arrays[f"final64_{i}"] = np.asarray(w.numpy(), np.float64)
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, name + ".npz"), **arrays)
    print(f"wrote {OUT}/{name}.npz: {len(q)} weights, {sum(v.size for v in q)} values, loss {hist.history['loss']}")
    n_train = int(n * (1 - validation_split)) if validation_split else n  # Keras' split point
    return {"name": name, "file": name + ".npz", "examples": n, "batch_size": batch, "epochs": epochs,
            "steps": epochs * -(-n_train // batch), "eval_examples": n_eval, "input_shape": list(shape),
            "quant_bits": QUANT, "optimizer": "Adam", "validation_split": validation_split,
            "loss": "SparseCategoricalCrossentropy(from_logits=True)" if loss == "sparse_logits" else loss,
            "weights": [{"path": w.path, "shape": list(w.shape), "trainable": bool(w.trainable)} for w in model.weights]}


def main():
    keras.backend.clear_session()
    keras.utils.set_random_seed(SEED)
    cases = [case("cnn", seed_cnn, np.random.default_rng(SEED + 61), (28, 28, 1), 64, 16, 5, 16)]
    keras.utils.set_random_seed(SEED + 1)
    cases.append(case("resnet", lambda: seed_resnet(8), np.random.default_rng(SEED + 67), (32, 32, 3), 32, 8, 5, 16,
                      float64=True))
    keras.utils.set_random_seed(SEED + 2)
    cases.append(case("keras_io_convnet", keras_io_convnet, np.random.default_rng(SEED + 73), (28, 28, 1), 80, 18, 5, 16,
                      loss="categorical_crossentropy", validation_split=0.1))
    manifest = {"generator": "tools/keras_reference/whole_model_vectors.py", "tensorflow": tf.__version__,
                "keras": keras.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
                "seed": SEED, "dtype": "float32"}
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"manifest": manifest, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
