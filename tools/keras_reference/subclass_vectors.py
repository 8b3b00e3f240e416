"""Writes keras/testdata/keras/vae_subclass.{json,weights.h5,keras}: the
VAE of Keras' guide "Making new layers and models via subclassing"
(tools/keras_reference/vae_guide.py's classes), small, for gokeras'
keras/subclass_keras_test.go (TestSubclassedVAEKerasFiles).

Run from the repository root with the pinned environment (requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/subclass_vectors.py

The model (original_dim 16, intermediate 8, latent 4) is built on a batch
and trained one epoch, then saved with save_weights and save. The JSON
holds every weight by its path in the weights file (the attribute path
Keras tracks: "encoder/dense_proj/vars/0"), a batch x and the model's
deterministic part on it: decoder(z_mean(x)), the reconstruction at the
latent mean (the call itself draws noise).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible sums

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vae_guide  # noqa: E402

OUT = "keras/testdata/keras/vae_subclass"
ORIGINAL, INTERMEDIATE, LATENT = 16, 8, 4


@keras.saving.register_keras_serializable(package="gokeras")
class VariationalAutoEncoder(vae_guide.VariationalAutoEncoder):
    """The guide's model with the get_config that model.save needs (the
    guide saves nothing); its weights and call are the guide's."""

    def __init__(self, original_dim, intermediate_dim=64, latent_dim=32, **kwargs):
        super().__init__(original_dim, intermediate_dim, latent_dim, **kwargs)
        self.dims = (original_dim, intermediate_dim, latent_dim)

    def get_config(self):
        o, i, l = self.dims
        return {"name": self.name, "trainable": self.trainable,
                "original_dim": o, "intermediate_dim": i, "latent_dim": l}


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float32).reshape(-1)]


def main():
    rng = np.random.default_rng(20261202)
    x = rng.uniform(0, 1, (32, ORIGINAL)).astype(np.float32)
    vae = VariationalAutoEncoder(ORIGINAL, INTERMEDIATE, LATENT)
    vae.compile(keras.optimizers.Adam(learning_rate=1e-3), loss=keras.losses.MeanSquaredError())
    vae.fit(x, x, epochs=1, batch_size=8, shuffle=False, verbose=0)
    vae.save_weights(OUT + ".weights.h5")
    vae.save(OUT + ".keras")
    weights = {}

    def walk(path, layer):
        for i, v in enumerate(layer._trainable_variables + layer._non_trainable_variables):
            weights[f"{path}/vars/{i}"] = {"shape": list(v.shape), "values": flat(v.numpy())}

    for name in ("dense_proj", "dense_mean", "dense_log_var"):
        walk("encoder/" + name, getattr(vae.encoder, name))
    for name in ("dense_proj", "dense_output"):
        walk("decoder/" + name, getattr(vae.decoder, name))
    enc = vae.encoder
    mean_recon = vae.decoder(enc.dense_mean(enc.dense_proj(x)))
    case = {"name": "vae", "original_dim": ORIGINAL, "intermediate_dim": INTERMEDIATE, "latent_dim": LATENT,
            "x": flat(x), "mean_reconstruction": flat(mean_recon), "weights": weights,
            "class_name": vae.__class__.__name__}
    manifest = {"generator": "tools/keras_reference/subclass_vectors.py", "keras": keras.__version__,
                "tensorflow": tf.__version__}
    with open(OUT + ".json", "w") as f:
        json.dump({"manifest": manifest, "cases": [case]}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
