"""The same denoising autoencoder in real Keras (keras.io's
examples/vision/autoencoder.py, the denoising part), for the numbers
gokeras' examples/conv_autoencoder is compared with in docs/accuracy.md.

    OMP_NUM_THREADS=1 TF_NUM_INTEROP_THREADS=1 TF_NUM_INTRAOP_THREADS=1 \\
      ~/.cache/gokeras-keras-ref/bin/python examples/conv_autoencoder/keras_reference.py \\
      --data /usr/share/datasets/fashion-mnist --epochs 3

Fashion-MNIST (or MNIST) from the four idx .gz files in --data, scaled to
[0, 1], Gaussian noise of factor 0.4 clipped to [0, 1], Adam, binary
crossentropy, batch 128, the test set as validation data. Prints Keras'
epoch lines and the test loss.
"""

import argparse
import gzip
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402


def idx(path):
    with gzip.open(path) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    keras.utils.set_random_seed(a.seed)
    train = idx(os.path.join(a.data, "train-images-idx3-ubyte.gz")).astype("float32")[..., None] / 255.0
    test = idx(os.path.join(a.data, "t10k-images-idx3-ubyte.gz")).astype("float32")[..., None] / 255.0
    rng = np.random.default_rng(a.seed)

    def noise(x):
        return np.clip(x + 0.4 * rng.standard_normal(x.shape).astype("float32"), 0.0, 1.0)

    noisy_train, noisy_test = noise(train), noise(test)
    inp = layers.Input(shape=(28, 28, 1))
    x = layers.Conv2D(32, (3, 3), activation="relu", padding="same")(inp)
    x = layers.MaxPooling2D((2, 2), padding="same")(x)
    x = layers.Conv2D(32, (3, 3), activation="relu", padding="same")(x)
    x = layers.MaxPooling2D((2, 2), padding="same")(x)
    x = layers.Conv2DTranspose(32, (3, 3), strides=2, activation="relu", padding="same")(x)
    x = layers.Conv2DTranspose(32, (3, 3), strides=2, activation="relu", padding="same")(x)
    x = layers.Conv2D(1, (3, 3), activation="sigmoid", padding="same")(x)
    autoencoder = keras.Model(inp, x)
    autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
    autoencoder.summary()
    autoencoder.fit(noisy_train, train, epochs=a.epochs, batch_size=128, shuffle=True,
                    validation_data=(noisy_test, test), verbose=2)
    loss = autoencoder.evaluate(noisy_test, test, batch_size=128, verbose=0)
    print(f"test_loss: {loss:.4f}")


if __name__ == "__main__":
    main()
