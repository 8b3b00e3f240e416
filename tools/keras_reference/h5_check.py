"""Check that h5py reads the HDF5 files gokeras' writer made.

    GOKERAS_H5_OUT=/tmp/h5out go test ./internal/hdf5/ -run WriteForH5py -count=1
    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/h5_check.py /tmp/h5out

The Go test writes the files and a manifest.json of what they hold; this
script opens every file with h5py, describes it the way h5_fixtures.py
describes h5py's own files (children in h5py's iteration order, values
read through numpy) and compares. It also opens the Keras-style files the
way Keras does (H5IOStore lookups, legacy layer_names / weight_names) and
appends to one file with h5py, to show HDF5 itself accepts the structure.
Exit status 1 on any difference.
"""

import json
import math
import os
import shutil
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h5_fixtures import describe  # noqa: E402


def same(a, b):
    """Equal, with floats (and "inf"/"nan" spellings) compared as floats."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            fa, fb = float(a), float(b)
        except (TypeError, ValueError):
            return False
        return fa == fb or (math.isnan(fa) and math.isnan(fb))
    return a == b and type(a) is type(b)


def main(d):
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)["files"]
    bad = 0
    for name, want in sorted(manifest.items()):
        with h5py.File(os.path.join(d, name), "r") as f:
            got = describe(f)
        wmap = {o["path"]: o for o in want}
        gmap = {o["path"]: o for o in got}
        if wmap.keys() != gmap.keys():
            print(f"{name}: objects differ: only Go {sorted(wmap.keys() - gmap.keys())}, "
                  f"only h5py {sorted(gmap.keys() - wmap.keys())}")
            bad += 1
        for p in sorted(wmap.keys() & gmap.keys()):
            if not same(wmap[p], gmap[p]):
                print(f"{name}:{p}:\n  Go   {json.dumps(wmap[p])[:400]}\n  h5py {json.dumps(gmap[p])[:400]}")
                bad += 1
        print(f"{name}: {len(gmap)} objects checked")
    # Keras-style access.
    with h5py.File(os.path.join(d, "model.weights.h5"), "r") as f:
        k = np.asarray(f["layers/dense/vars"]["0"])
        assert k.shape == (4, 3) and k.dtype == np.float32, (k.shape, k.dtype)
        assert list(f["layers/dense/vars"]) == ["0", "1"]
    with h5py.File(os.path.join(d, "legacy_model.h5"), "r") as f:
        names = [n.decode("utf8") for n in f["model_weights"].attrs["layer_names"]]
        assert names == ["dense", "flatten"], names
        wn = [n.decode("utf8") for n in f["model_weights/dense"].attrs["weight_names"]]
        assert wn == ["dense/kernel:0", "dense/bias:0"], wn
        json.loads(f.attrs["model_config"])
        assert f["model_weights/dense/dense/kernel:0"].shape == (2, 3)
    # HDF5 accepts further writes to the structure (compact to dense links).
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "append.h5")
        shutil.copy(os.path.join(d, "sample.h5"), p)
        with h5py.File(p, "a") as f:
            for i in range(20):
                f[f"empty/new{i}"] = np.arange(i)
            f.attrs["added"] = "yes"
        with h5py.File(p, "r") as f:
            assert len(f["empty"]) == 20 and f.attrs["added"] == "yes"
    if bad:
        print(f"FAIL: {bad} differences")
        sys.exit(1)
    print("OK: h5py reads every file as written")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GOKERAS_H5_OUT", ""))
