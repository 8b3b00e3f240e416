"""Writes the IMDB and Reuters fixtures of imdb_test.go with real numpy and Keras.

Run from the repository root with the pinned environment
(tools/keras_reference/requirements.txt):

    ~/.cache/gokeras-keras-ref/bin/python datasets/testdata/gen_text_npz.py

It writes, under datasets/testdata/text/:
- imdb.npz: Keras' imdb.npz layout in small (x_train, x_test: 1-D numpy
  object arrays of Python int lists, written by np.savez, whose pickles
  are protocol 4; y_train, y_test: int64), 40 and 30 reviews of 0 to 60
  ids below 120 (ids are frequency ranks from 1, as Keras' file);
- imdb_p0.npz, imdb_p2.npz: the same arrays with the object arrays
  pickled at protocol 0 and 2 (as older numpy and Python 2 wrote them);
- reuters.npz: reuters.npz's layout (x, y; 46 topics), 50 newswires;
- imdb_word_index.json: a word index of the 120 ids;
- expected.json: what keras.datasets.imdb.load_data and
  reuters.load_data return on these files for several argument sets (the
  download is replaced by the fixture's path), and numpy's
  RandomState(seed).shuffle(np.arange(n)) for a few seeds and sizes.
"""

import io
import json
import os
import pickle
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
from keras.src.datasets import imdb, reuters  # noqa: E402

OUT = "datasets/testdata/text"


def ragged(rng, n, vocab, maxlen):
    a = np.empty(n, dtype=object)
    for i in range(n):
        a[i] = [int(v) for v in rng.integers(1, vocab, size=rng.integers(0, maxlen + 1))]
    return a


def npy_bytes(arr, protocol=None):
    """An .npy file of arr; object arrays pickled at the given protocol."""
    buf = io.BytesIO()
    if protocol is None or arr.dtype != object:
        np.lib.format.write_array(buf, arr, allow_pickle=True)
        return buf.getvalue()
    np.lib.format.write_array_header_1_0(buf, np.lib.format.header_data_from_array_1_0(arr))
    pickle.dump(arr, buf, protocol=protocol)
    return buf.getvalue()


def write_npz(path, arrays, protocol=None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in arrays.items():
            z.writestr(k + ".npy", npy_bytes(v, protocol))


def main():
    rng = np.random.default_rng(20261124)
    os.makedirs(OUT, exist_ok=True)
    vocab = 120
    im = {
        "x_train": ragged(rng, 40, vocab, 60), "y_train": rng.integers(0, 2, 40).astype(np.int64),
        "x_test": ragged(rng, 30, vocab, 60), "y_test": rng.integers(0, 2, 30).astype(np.int64),
    }
    im["x_train"][3] = []  # an empty review
    np.savez(os.path.join(OUT, "imdb.npz"), **im)
    write_npz(os.path.join(OUT, "imdb_p0.npz"), im, protocol=0)
    write_npz(os.path.join(OUT, "imdb_p2.npz"), im, protocol=2)
    rt = {"x": ragged(rng, 50, vocab, 50), "y": rng.integers(0, 46, 50).astype(np.int64)}
    np.savez(os.path.join(OUT, "reuters.npz"), **rt)
    with open(os.path.join(OUT, "imdb_word_index.json"), "w") as f:
        json.dump({f"w{i}": i for i in range(1, vocab)}, f)

    def run(mod, path, **kw):
        mod.get_file = lambda *a, **k: path
        (xtr, ytr), (xte, yte) = mod.load_data(**kw)
        return {"args": kw, "x_train": [list(map(int, x)) for x in xtr], "y_train": [int(v) for v in ytr],
                "x_test": [list(map(int, x)) for x in xte], "y_test": [int(v) for v in yte]}

    ip = os.path.join(OUT, "imdb.npz")
    rp = os.path.join(OUT, "reuters.npz")
    expected = {
        "imdb": [
            run(imdb, ip),
            run(imdb, ip, num_words=50, skip_top=5),
            run(imdb, ip, maxlen=30, seed=7),
            run(imdb, ip, num_words=40, oov_char=None, start_char=None, index_from=0),
            run(imdb, ip, start_char=9, oov_char=8, index_from=10, num_words=100),
        ],
        "reuters": [
            run(reuters, rp),
            run(reuters, rp, num_words=30, test_split=0.3, maxlen=40),
            run(reuters, rp, skip_top=3, oov_char=None, seed=1),
        ],
        "shuffles": [
            {"seed": s, "n": n, "perm": [int(v) for v in (lambda r, a: (r.shuffle(a), a)[1])(np.random.RandomState(s), np.arange(n))]}
            for s, n in [(113, 1), (113, 2), (113, 10), (113, 1000), (0, 300), (2**32 - 1, 70), (5, 70000)]
        ],
    }
    # Only the first permutation entries of the long shuffle are kept.
    expected["shuffles"][-1]["perm"] = expected["shuffles"][-1]["perm"][:200]
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
