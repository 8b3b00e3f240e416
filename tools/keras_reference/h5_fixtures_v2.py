"""Write the HDF5 fixtures of files that HDF5 2.0 and users write and that
internal/hdf5 once refused (issue 35), with what h5py reads back from each.

Run from the repository root with h5py built on HDF5 2.0 (h5py 3.16 wheels):

    python -m venv /tmp/h5v2 && /tmp/h5v2/bin/pip install h5py==3.16.0
    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/h5_fixtures_v2.py keras
    /tmp/h5v2/bin/python tools/keras_reference/h5_fixtures_v2.py

(the first step writes, with real Keras, the legacy model that the second
rewrites compressed; the reference venv's h5py is built on HDF5 1.14).

- hdf5v2_latest.h5: h5_fixtures.py's new_style file written by HDF5 2.0
  with libver="latest": chunked datasets get layout message version 5.
- unwritten_chunked.h5 and unwritten_chunked_latest.h5: chunked datasets
  never written (no chunk allocated; h5py reads the fill value), with and
  without a fill value, under every chunk index HDF5 picks.
- legacy_gzip.h5: a legacy Keras 2 model file written by Keras 3
  (model.save("m.h5"): Dense(8192, kernel_initializer="zeros") on 16
  features, then Dense(2)) rewritten with every dataset gzip-compressed
  (shuffle, level 9), as users shrink such files: its 155,650 values are
  many times its size over 4.

manifest_v2.json records h5py's reading of each, as manifest.json does
(but for datasets of more than 4096 values).
"""

import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import h5_fixtures  # noqa: E402

OUT = h5_fixtures.OUT


def unwritten(path, libver):
    with h5py.File(path, "w", libver=libver) as f:
        f.create_dataset("plain", shape=(3, 4), chunks=(2, 2), dtype="f4")
        f.create_dataset("fill", shape=(5, 6), chunks=(2, 3), dtype="i4", fillvalue=11)
        f.create_dataset("gzip", shape=(7,), chunks=(3,), dtype="f8", compression="gzip", fillvalue=-2.5)
        f.create_dataset("single", shape=(4, 4), chunks=(4, 4), dtype="f4")
        f.create_dataset("extensible", shape=(6, 2), maxshape=(None, 2), chunks=(2, 2), dtype="f4")
        f.create_dataset("btree2", shape=(3, 3), maxshape=(None, None), chunks=(2, 2), dtype="i2", fillvalue=3)
        f.create_dataset("empty", shape=(0, 5), maxshape=(None, 5), chunks=(1, 5), dtype="f4")


WIDE = os.path.join(OUT, "legacy_wide.tmp.h5")


def keras_wide():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    keras.utils.set_random_seed(0)
    m = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8192, kernel_initializer="zeros", name="wide"),
                          keras.layers.Dense(2, name="out")])
    m.save(WIDE)


def legacy_gzip(path):
    src = WIDE
    with h5py.File(src, "r") as s, h5py.File(path, "w") as d:
        def copy(so, do):
            for k, v in so.attrs.items():
                do.attrs[k] = v
            for name in so:
                o = so[name]
                if isinstance(o, h5py.Group):
                    copy(o, do.create_group(name))
                    continue
                data = o[()]
                if o.ndim == 0:
                    do.create_dataset(name, data=data)
                else:
                    do.create_dataset(name, data=data, compression="gzip", compression_opts=9, shuffle=True)
                copy_attrs(o, do[name])

        def copy_attrs(so, do):
            for k, v in so.attrs.items():
                do.attrs[k] = v

        copy(s, d)


def main():
    if sys.argv[1:] == ["keras"]:
        keras_wide()
        return
    print("h5py", h5py.version.version, "HDF5", h5py.version.hdf5_version, file=sys.stderr)
    makers = {
        "hdf5v2_latest.h5": h5_fixtures.new_style,
        "unwritten_chunked.h5": lambda p: unwritten(p, "earliest"),
        "unwritten_chunked_latest.h5": lambda p: unwritten(p, "latest"),
        "legacy_gzip.h5": legacy_gzip,
    }
    manifest = {}
    for name, make in makers.items():
        p = os.path.join(OUT, name)
        make(p)
        with h5py.File(p, "r") as f:
            objs = h5_fixtures.describe(f)
        # The manifest leaves out the values of the wide zero kernel (the
        # Go test checks that it is all zeros).
        manifest[name] = [o for o in objs if o["kind"] == "group" or len(o["value"]) <= 4096]
        print(name, os.path.getsize(p), file=sys.stderr)
    os.remove(WIDE)
    with open(os.path.join(OUT, "manifest_v2.json"), "w") as f:
        json.dump({"h5py": h5py.version.version, "hdf5": h5py.version.hdf5_version,
                   "files": manifest}, f, indent=None, separators=(",", ":"))


if __name__ == "__main__":
    main()
