"""Keras vectors for gokeras' schedules_more.go: CosineDecayRestarts,
PolynomialDecay and InverseTimeDecay.

Writes keras/optimizers/testdata/keras/schedules_more.json in the format of
schedules.json (gen_vectors.py): each case holds Keras' get_config() and the
rate Keras computes (float32) at steps 0..40 and a few far steps.

Run from the repository root with the pinned environment (requirements.txt),
or through run_all.py.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

SEED = 20261124
OUT = "keras/optimizers/testdata/keras/schedules_more.json"


def manifest():
    return {
        "generator": "tools/keras_reference/schedules_more_vectors.py",
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "seed": SEED,
        "dtype": "float32",
    }


def cases():
    S = keras.optimizers.schedules
    specs = [
        ("cosine_decay_restarts", S.CosineDecayRestarts(0.1, first_decay_steps=5)),
        ("cosine_decay_restarts_tmul1", S.CosineDecayRestarts(0.1, first_decay_steps=6, t_mul=1.0, m_mul=0.8)),
        ("cosine_decay_restarts_alpha", S.CosineDecayRestarts(0.2, first_decay_steps=4, t_mul=1.5, m_mul=0.5,
                                                              alpha=0.1)),
        ("polynomial_decay", S.PolynomialDecay(0.1, decay_steps=10)),
        ("polynomial_decay_power", S.PolynomialDecay(0.1, decay_steps=12, end_learning_rate=0.01, power=2.0)),
        ("polynomial_decay_cycle", S.PolynomialDecay(0.1, decay_steps=7, end_learning_rate=0.005, power=0.5,
                                                     cycle=True)),
        ("inverse_time_decay", S.InverseTimeDecay(0.1, decay_steps=3, decay_rate=0.5)),
        ("inverse_time_decay_staircase", S.InverseTimeDecay(0.1, decay_steps=3, decay_rate=0.5, staircase=True)),
    ]
    steps = list(range(41)) + [50, 63, 100, 1000]
    out = []
    for name, sched in specs:
        lr = [float(np.float32(sched(tf.constant(s, tf.int64)))) for s in steps]
        out.append({"name": name, "schedule": sched.__class__.__name__, "covers": [sched.__class__.__name__],
                    "config": json.loads(json.dumps(sched.get_config(), default=str)),
                    "steps": steps, "lr": lr})
    return out


def main():
    c = cases()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest(), "cases": c}, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(c)} cases")


if __name__ == "__main__":
    main()
