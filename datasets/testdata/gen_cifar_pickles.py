"""Writes the CIFAR pickle fixtures of cifar_test.go with real Python and numpy.

Run from datasets/testdata:  /usr/bin/python3 gen_cifar_pickles.py
(written with Python 3.11 and numpy 1.24). Each file is a two-image batch
pickled as Python's pickle.dump writes one: a dict with bytes keys, b'data'
a (2, 3072) uint8 numpy array and the labels a list of ints, at pickle
protocol 0, 2 (bytes through _codecs.encode), 4 (numpy's _reconstruct and
BUILD) and 5 (numpy's _frombuffer). Pixel j of image i is (7*i + j) % 256;
the CIFAR-10 labels are [3, 9]; the CIFAR-100 file has fine labels [42, 99]
and coarse labels [7, 19].
"""
import pickle

import numpy as np

data = ((7 * np.arange(2)[:, None] + np.arange(3072)[None, :]) % 256).astype(np.uint8)
for proto in (0, 2, 4, 5):
    batch = {
        b"batch_label": b"testing batch 1 of 1",
        b"labels": [3, 9],
        b"data": data,
        b"filenames": [b"a.png", b"b.png"],
    }
    with open(f"cifar10_batch_p{proto}.pkl", "wb") as f:
        pickle.dump(batch, f, protocol=proto)
with open("cifar100_batch_p4.pkl", "wb") as f:
    pickle.dump({b"filenames": [b"a.png", b"b.png"], b"batch_label": b"training batch 1 of 1",
                 b"fine_labels": [42, 99], b"coarse_labels": [7, 19], b"data": data}, f, protocol=4)
