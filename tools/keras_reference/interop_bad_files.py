"""Writes hostile Keras files for gokeras' loader tests, and checks that
Python Keras refuses each of them too.

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/interop_bad_files.py

writes keras/testdata/bad_h5/ (relative to the current directory): a tiny
Keras model (Input(4), Dense(3)) saved as .keras, then copies whose
model.weights.h5 is rewritten with h5py so that the kernel
layers/dense/vars/0 is

- soft_link.keras: a soft link (to a dataset of the right shape elsewhere),
- external_link.keras: an external link into another file,
- external_storage.keras: a dataset whose data live in an external file,
- shape_bomb.keras: a chunked, compressed dataset declaring 16 GiB of
  float32 but storing nothing (its chunks are never written),

and legacy_soft_link.h5, a legacy Keras 2 whole-model file whose kernel is a
soft link. Keras 3.15 refuses the soft and external links and the external
storage ("Not allowed: ..."); the shape bomb is below its 4 GiB floor ratio
test only by declared size, and Keras refuses it too (stored bytes far
below 1/1000 of the declared size).
"""

import io
import json
import os
import shutil
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import keras  # noqa: E402
from keras.src.legacy.saving import legacy_h5_format  # noqa: E402

OUT = os.path.join("keras", "testdata", "bad_h5")


def rewrite_weights(src, dst, edit):
    """Copies the .keras archive src to dst with its model.weights.h5 edited
    by edit(h5py.File)."""
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    buf = io.BytesIO(members["model.weights.h5"])
    with h5py.File(buf, "a") as f:
        edit(f)
    members["model.weights.h5"] = buf.getvalue()
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            z.writestr(info, data)


def kernel_group(f):
    return f["layers/dense/vars"]


def soft_link(f):
    g = kernel_group(f)
    data = g["0"][()]
    del g["0"]
    f.create_dataset("stash", data=data)
    g["0"] = h5py.SoftLink("/stash")


def external_link(f):
    g = kernel_group(f)
    del g["0"]
    g["0"] = h5py.ExternalLink("other.h5", "/kernel")


def external_storage(f):
    g = kernel_group(f)
    del g["0"]
    # The data would come from a file next to the archive.
    g.create_dataset("0", shape=(4, 3), dtype="f4", external=[("kernel.bin", 0, 48)])


def shape_bomb(f):
    g = kernel_group(f)
    del g["0"]
    g.create_dataset("0", shape=(1 << 20, 1 << 12), dtype="f4", chunks=(1 << 10, 1 << 8), compression="gzip")


def why(e):
    """The line of Keras' error that says why (it wraps the cause)."""
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    for l in lines:
        if "Not allowed" in l or "refusing" in l:
            return l[:200]
    return f"{type(e).__name__}: {lines[0][:200] if lines else ''}"


def refused(path):
    try:
        keras.saving.load_model(path)
    except Exception as e:  # what Keras says, for the record
        return why(e)
    return None


def main():
    os.makedirs(OUT, exist_ok=True)
    keras.utils.set_random_seed(1)
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    base = os.path.join(OUT, "base.keras")
    m.save(base)
    verdicts = {}
    for name, edit in [("soft_link", soft_link), ("external_link", external_link),
                       ("external_storage", external_storage), ("shape_bomb", shape_bomb)]:
        path = os.path.join(OUT, name + ".keras")
        rewrite_weights(base, path, edit)
        verdicts[name + ".keras"] = refused(path)
    legacy = os.path.join(OUT, "legacy_soft_link.h5")
    legacy_h5_format.save_model_to_hdf5(m, legacy, include_optimizer=False)
    with h5py.File(legacy, "a") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["model_weights/dense"].attrs["weight_names"]]
        g = f["model_weights/dense"]
        data = g[names[0]][()]
        del g[names[0]]
        f.create_dataset("stash", data=data)
        g[names[0]] = h5py.SoftLink("/stash")
    try:
        legacy_h5_format.load_model_from_hdf5(legacy)
        verdicts["legacy_soft_link.h5"] = None
    except Exception as e:
        verdicts["legacy_soft_link.h5"] = why(e)
    os.remove(base)
    with open(os.path.join(OUT, "keras_verdicts.json"), "w") as f:
        json.dump({"keras": keras.__version__, "h5py": h5py.__version__,
                   "generator": "tools/keras_reference/interop_bad_files.py", "refused": verdicts}, f, indent=1)
        f.write("\n")
    for k, v in verdicts.items():
        print(f"{k}: Keras {'refuses: ' + v if v else 'LOADS IT'}")


if __name__ == "__main__":
    main()
