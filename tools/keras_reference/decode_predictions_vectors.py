"""Writes keras/applications/testdata/keras/decode_predictions.json: what
keras.applications.imagenet_utils.decode_predictions returns for batches of
ImageNet predictions, decoded with Keras' real class index, for gokeras'
DecodePredictions test (keras/applications/decode_keras_test.go).

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/run_all.py --only decode_predictions_vectors.py

The class index is the committed keras/applications/testdata/imagenet_class_index.json
(the file Keras downloads from storage.googleapis.com, MD5
c2c37ea517e94d9795004a39431a14cb; see that folder's README.md), found from
this script's place in the repository, not from the current directory
(run_all.py runs it in a scratch folder). It is put into a temporary Keras
home's models/ folder, where keras.utils.get_file finds it by its digest and
downloads nothing; the origin is pointed at a closed local port, so that
Keras cannot fetch a file in its place.

The predictions are made with plain float arithmetic (uniform draws of
NumPy's seeded legacy generator raised to a power by multiplication and
normalised by math.fsum): no exp, whose SIMD kernels differ by an ulp
between CPUs, so the order of the classes is the same on every machine.
Keras' order within tied scores is NumPy's default argsort's, which is not
stable (NumPy 2.4 dispatches it to SIMD kernels chosen by the CPU; on this
AVX2 machine equal values come out in no index order), so the file lists
tied classes by ascending index and marks the rows that have ties; where
the top-k cut falls inside a group of equal scores, which of them Keras
keeps depends on that order too, and those entries are written with their
score only (an empty class id and name).
"""

import hashlib
import json
import math
import os
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras.src.applications import imagenet_utils  # noqa: E402
from keras.src.backend import config as keras_config  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INDEX = os.path.join(ROOT, "keras", "applications", "testdata", "imagenet_class_index.json")
INDEX_REL = "keras/applications/testdata/imagenet_class_index.json"
KERAS_MD5 = "c2c37ea517e94d9795004a39431a14cb"
OUT = "keras/applications/testdata/keras/decode_predictions.json"
UNREACHABLE = "http://127.0.0.1:9/imagenet_class_index.json"  # discard port: nothing listens


def f32(x):
    """The float32 x as the shortest decimal that reads back as it."""
    return float(str(np.float32(x)))


def peaked(rng, power, boost=()):
    """A distribution over 1000 classes like a softmax output: u**power of
    uniform draws (power a power of two, by repeated squaring), a few
    classes raised, normalised to sum 1, in float32."""
    u = rng.random_sample(1000)
    for _ in range(int(math.log2(power))):
        u = u * u
    for i, factor in boost:
        u[i] = u.max() * factor
    total = math.fsum(float(v) for v in u)
    return np.array([v / total for v in u], dtype=np.float32)


def rows(rng):
    """(name, top, batch) cases."""
    cases = []
    batch = np.stack([peaked(rng, 8), peaked(rng, 16), peaked(rng, 32, [(207, 4.0)]),
                      peaked(rng, 64, [(281, 2.5), (285, 2.0), (282, 1.5)])])
    cases.append(("softmax-like rows, default top", 5, batch))
    # The two 'crane's (134, the bird; 517, the machine) and the two
    # 'maillot's (638, 639): one name, two WordNet ids.
    cases.append(("classes sharing a name", 5,
                  np.stack([peaked(rng, 16, [(134, 3.0), (517, 2.0), (638, 1.5), (639, 1.2)])])))
    cases.append(("top 1 and a confident row", 1, np.stack([peaked(rng, 64, [(999, 50.0)]), peaked(rng, 8)])))
    cases.append(("top 3", 3, np.stack([peaked(rng, 4), peaked(rng, 2, [(0, 1.5)])])))
    # u**16 underflows to 0 in float32 for the smallest draws: tied zeros
    # at the end, all kept.
    cases.append(("top 1000: the whole order", 1000, np.stack([peaked(rng, 16)])))
    cases.append(("top beyond 1000", 1500, np.stack([peaked(rng, 8)])))
    # Ties that the cut does not split: classes 10, 500 and 990 share the
    # second score, 3 and 600 the fourth.
    t = peaked(rng, 64) * np.float32(0.1)
    t[[1, 10, 500, 990, 3, 600]] = [0.4, 0.1, 0.1, 0.1, 0.05, 0.05]
    cases.append(("ties inside the top", 6, np.stack([t])))
    # A saturated softmax: one class 1, 999 at 0, and a row of equal
    # scores; the cut falls inside the zeros and inside the flat row.
    one = np.zeros(1000, np.float32)
    one[417] = 1.0
    cases.append(("ties at the cut", 5, np.stack([one, np.full(1000, 0.001, np.float32)])))
    return cases


def decode(batch, top, index_of):
    """Keras' decode_predictions of batch, each row's entries as
    [wnid, name, score], tied classes by ascending index, and whether the
    row's entries have ties."""
    got = imagenet_utils.decode_predictions(batch, top=top)
    out, ties = [], []
    for row, res in zip(batch, got):
        mask = np.ones(1000, bool)
        mask[[index_of[wnid] for wnid, _, _ in res]] = False
        # A kept score equal to a left-out one was chosen among equals by
        # argsort's CPU-dependent order: written with its score only.
        left = set(float(v) for v in row[mask])
        entries = []
        for wnid, name, s in res:
            s = float(s)
            if s in left:
                entries.append((s, 1000, "", ""))
            else:
                entries.append((s, index_of[wnid], wnid, name))
        entries.sort(key=lambda e: (-e[0], e[1]))
        scores = [e[0] for e in entries]
        ties.append(len(set(scores)) != len(scores))
        out.append([[wnid, name, f32(s)] for s, _, wnid, name in entries])
    return out, ties


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def main():
    got_md5 = md5(INDEX)
    if got_md5 != KERAS_MD5:
        raise SystemExit(f"{INDEX}: MD5 {got_md5}, not Keras' {KERAS_MD5}")
    home = tempfile.mkdtemp(prefix="keras_home_")
    saved = (keras_config._KERAS_DIR, imagenet_utils.CLASS_INDEX_PATH, imagenet_utils.CLASS_INDEX)
    try:
        # KERAS_HOME is read when Keras is imported (run_all.py imports it
        # before this script), so the home is also set where get_file reads it.
        keras_config._KERAS_DIR = home
        os.makedirs(os.path.join(home, "models"))
        cached = os.path.join(home, "models", "imagenet_class_index.json")
        shutil.copyfile(INDEX, cached)
        imagenet_utils.CLASS_INDEX_PATH = UNREACHABLE
        imagenet_utils.CLASS_INDEX = None
        with open(INDEX) as f:
            index_of = {wnid: int(k) for k, (wnid, _) in json.load(f).items()}
        rng = np.random.RandomState(20261203)
        cases = []
        for name, top, batch in rows(rng):
            decoded, ties = decode(batch, top, index_of)
            cases.append({"name": name, "top": top, "preds": [[f32(v) for v in r] for r in batch],
                          "decoded": decoded, "ties": ties})
        with open(INDEX) as f:
            assert imagenet_utils.CLASS_INDEX == json.load(f), "Keras read another class index"
        # Keras' digest check: a cached index with another digest is
        # downloaded again from the origin.
        with open(cached, "r+b") as f:
            f.seek(3)
            f.write(b"1")  # "0" -> "1": one byte changed
        imagenet_utils.CLASS_INDEX = None
        try:
            imagenet_utils.decode_predictions(np.zeros((1, 1000), np.float32))
            refetched = False
        except Exception as e:  # Keras: "URL fetch failure on <origin>"
            refetched = UNREACHABLE in str(e)
        # The shape check.
        try:
            imagenet_utils.decode_predictions(np.zeros((1, 10), np.float32))
            bad_shape = ""
        except ValueError as e:
            bad_shape = str(e)
    finally:
        keras_config._KERAS_DIR, imagenet_utils.CLASS_INDEX_PATH, imagenet_utils.CLASS_INDEX = saved
        shutil.rmtree(home, ignore_errors=True)
    manifest = {"generator": "tools/keras_reference/decode_predictions_vectors.py", "keras": keras.__version__,
                "tensorflow": tf.__version__, "numpy": np.__version__}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"manifest": manifest,
                   "index": {"file": INDEX_REL, "md5": got_md5,
                             "origin": "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"},
                   "tampered_cache_refetched": refetched, "bad_shape_error": bad_shape,
                   "cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
