"""Compares regenerated Keras vectors with the committed ones, numerically.

Usage, from the repository root:

    python tools/keras_reference/compare.py GENERATED_DIR [--rtol 1e-6] [--atol 1e-7] [--arr-rtol 1e-5]

Every file under GENERATED_DIR (written by run_all.py --out GENERATED_DIR)
must exist at the same path in the repository and agree with it: JSON
structure, keys, strings, booleans and integers exactly; floating-point
numbers within |a - b| <= atol + rtol * max(|a|, |b|) + arr_rtol * S,
S the largest magnitude in the array (JSON list of numbers, .npz or HDF5
dataset) they belong to (TensorFlow's float kernels sum in another order on
another CPU, so a byte diff would fail on another machine; see ARRAY_RTOL); .npz files array by array the same way (names, shapes
and dtypes exactly); .h5 files that differ in bytes as HDF5 trees read
with h5py (links, groups, datasets' dtype, shape, storage size, values and
attributes; h5py writes object timestamps, so the bytes change each run);
.keras files member by member (JSON but its save time and Python object
ids, HDF5 as above, the rest bytes);
other files byte for byte. A committed JSON vector
file whose manifest names a generator that ran but was not written again
is stale and fails too. Exits 1 on any drift, listing the first
differences per file.
"""

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np


class Drift:
    def __init__(self, rtol, atol, arr_rtol=0.0):
        self.rtol, self.atol, self.arr_rtol = rtol, atol, arr_rtol
        self.errors = []
        self.worst = 0.0
        self.worst_arr = 0.0  # largest difference over its array's largest magnitude

    def err(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    def num(self, where, a, b, arr_scale=0.0):
        """Compares two numbers; arr_scale is the largest magnitude of the
        array they belong to (0 for a lone number)."""
        if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, int) and isinstance(b, int):
            if a != b or type(a) is not type(b):
                self.err(where, f"{a!r} != committed {b!r}")
            return
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            if not (math.isnan(a) and math.isnan(b)):
                self.err(where, f"{a!r} != committed {b!r}")
            return
        if math.isinf(a) or math.isinf(b):
            if a != b:
                self.err(where, f"{a!r} != committed {b!r}")
            return
        d = abs(a - b)
        scale = max(abs(a), abs(b))
        if scale > 0:
            self.worst = max(self.worst, d / max(scale, self.atol / self.rtol))
        if arr_scale > 0:
            self.worst_arr = max(self.worst_arr, d / arr_scale)
        if d > self.atol + self.rtol * scale + self.arr_rtol * arr_scale:
            self.err(where, f"{a!r} != committed {b!r} (difference {d:.3g})")

    def walk(self, where, a, b, ignore=(), arr=None):
        """Compares two JSON values. arr is the largest magnitude of the
        outermost list of numbers (at any depth) that a and b lie in: set
        when the walk enters such a list, so that a weight's gradient that
        is rounding noise (a bias whose true gradient is zero) is judged
        against the case's other gradients."""
        if isinstance(a, dict) and isinstance(b, dict):
            if set(a) != set(b):
                self.err(where, f"keys {sorted(set(a) ^ set(b))} differ")
            for k in a:
                if k in b and k not in ignore:
                    self.walk(f"{where}.{k}", a[k], b[k], ignore)
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                self.err(where, f"length {len(a)} != committed {len(b)}")
                return
            if arr is None:
                arr = array_scale(a, b)
            for i, (x, y) in enumerate(zip(a, b)):
                self.walk(f"{where}[{i}]", x, y, ignore, arr)
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            # A number outside any list is its own array.
            self.num(where, a, b, arr if arr is not None else max(abs(float(a)), abs(float(b))))
        elif a != b:
            self.err(where, f"{a!r} != committed {b!r}")

    def tree(self, where, a, b):
        """Compares h5_tree results: numbers and arrays with tolerance."""
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind in "OSU" or b.dtype.kind in "OSU" or a.dtype.names or b.dtype.names:
                if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
                    if a.dtype.kind != "O" or a.tolist() != b.tolist():
                        self.err(where, "values differ")
                return
            self.arrays(where, a, b)
        elif isinstance(a, dict) and isinstance(b, dict):
            if list(a) != list(b):
                self.err(where, f"members {list(a)} != committed {list(b)}")
                return
            for k in a:
                self.tree(f"{where}/{k}", a[k], b[k])
        elif isinstance(a, tuple) and isinstance(b, tuple):
            if len(a) != len(b):
                self.err(where, f"{a[0]} != committed {b[0]}")
                return
            for i, (x, y) in enumerate(zip(a, b)):
                self.tree(where if i else where + "(kind)", x, y)
        elif isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
            self.num(where, float(a), float(b))
        elif a != b:
            self.err(where, f"{a!r} != committed {b!r}")

    def h5(self, where, path_a, path_b):
        try:
            ta = h5_tree(path_a)
        except Exception as e:  # noqa: BLE001  (a file h5py refuses: compare the refusal)
            ta = f"<unreadable: {type(e).__name__}>"
        try:
            tb = h5_tree(path_b)
        except Exception as e:  # noqa: BLE001
            tb = f"<unreadable: {type(e).__name__}>"
        self.tree(where, ta, tb)

    def keras_zip(self, where, path_a, path_b):
        """A .keras file: a zip whose members are compared by content (JSON
        numerically, .h5 as HDF5 trees, the rest byte for byte); the zip's
        own timestamps are left out."""
        import tempfile
        import zipfile
        with zipfile.ZipFile(path_a) as za, zipfile.ZipFile(path_b) as zb:
            na, nb = sorted(za.namelist()), sorted(zb.namelist())
            if na != nb:
                self.err(where, f"members {na} != committed {nb}")
                return
            for n in na:
                ba, bb = za.read(n), zb.read(n)
                if n.endswith(".json"):
                    self.walk(f"{where}:{n}", json.loads(ba), json.loads(bb), KERAS_VOLATILE)
                elif n.endswith(".h5"):
                    with tempfile.TemporaryDirectory() as d:
                        pa, pb = os.path.join(d, "a.h5"), os.path.join(d, "b.h5")
                        with open(pa, "wb") as f:
                            f.write(ba)
                        with open(pb, "wb") as f:
                            f.write(bb)
                        self.h5(f"{where}:{n}", pa, pb)
                elif ba != bb:
                    self.err(f"{where}:{n}", "bytes differ")

    def arrays(self, where, a, b):
        if a.shape != b.shape or a.dtype != b.dtype:
            self.err(where, f"{a.dtype}{list(a.shape)} != committed {b.dtype}{list(b.shape)}")
            return
        if a.dtype.kind in "fc":
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            nan = np.isnan(a64) | np.isnan(b64)
            if np.any(np.isnan(a64) != np.isnan(b64)):
                self.err(where, "NaN positions differ")
            with np.errstate(invalid="ignore"):
                d = np.where(nan, 0, np.abs(a64 - b64))
                scale = np.where(nan, 0, np.maximum(np.abs(a64), np.abs(b64)))
                d = np.where(np.isinf(a64) & (a64 == b64), 0, d)
            finite = scale[np.isfinite(scale)]
            arr = float(np.max(finite)) if finite.size else 0.0
            bad = np.argwhere(d > self.atol + self.rtol * scale + self.arr_rtol * arr)
            if scale.size:
                self.worst = max(self.worst, float(np.max(d / np.maximum(scale, self.atol / self.rtol))))
                if arr > 0:
                    self.worst_arr = max(self.worst_arr, float(np.nanmax(np.where(np.isfinite(d), d, 0)) / arr))
            for idx in bad[:5]:
                i = tuple(idx)
                self.err(f"{where}{list(i)}", f"{a[i]!r} != committed {b[i]!r}")
            if len(bad) > 5:
                self.err(where, f"... {len(bad)} values differ")
        elif not np.array_equal(a, b):
            self.err(where, "values differ")


def array_scale(a, b):
    """The largest finite magnitude among the numbers of two JSON lists
    nested to any depth (arrays of values, lists of weight arrays), or
    None when they hold anything but numbers and lists (records, strings)."""
    m = 0.0
    stack = [a, b]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
        elif math.isfinite(v):
            m = max(m, abs(float(v)))
    return m


# Keys of a .keras file's JSON that change on every save: the time
# (metadata.json) and the Python id() Keras writes for shared objects
# (config.json).
KERAS_VOLATILE = ("date_saved", "shared_object_id")

MAX_READ = 1 << 24  # bytes of a dataset read to compare values; larger ones compare metadata only


def h5_tree(path):
    """An HDF5 file as a comparable tree (h5py): for each link its kind
    (group, dataset, soft or external link and its target), each dataset's
    dtype, shape, storage size and values (when small enough to read), and
    every attribute. Object timestamps and addresses are left out: h5py
    writes the time into the file, so bytes differ between runs."""
    import h5py

    def attrs(obj):
        out = {}
        for k in sorted(obj.attrs.keys()):
            try:
                v = obj.attrs[k]
            except Exception as e:  # noqa: BLE001  (unreadable attribute: compare the error)
                v = f"<{type(e).__name__}>"
            out[k] = v
        return out

    def walk(group):
        out = {}
        for name in group.keys():
            link = group.get(name, getlink=True)
            if isinstance(link, h5py.SoftLink):
                out[name] = ("soft", link.path)
                continue
            if isinstance(link, h5py.ExternalLink):
                out[name] = ("external", link.filename, link.path)
                continue
            obj = group[name]
            if isinstance(obj, h5py.Group):
                out[name] = ("group", attrs(obj), walk(obj))
                continue
            val = None
            if obj.dtype.itemsize * obj.size <= MAX_READ and obj.id.get_storage_size() <= MAX_READ:
                try:
                    val = obj[()]
                except Exception as e:  # noqa: BLE001  (external storage and the like: compare the error)
                    val = f"<{type(e).__name__}>"
            out[name] = ("dataset", str(obj.dtype), obj.shape, obj.id.get_storage_size(), attrs(obj), val)
        return out

    with h5py.File(path, "r") as f:
        return ("file", attrs(f), walk(f))


def committed_generators(root, ran):
    """Committed JSON files under any testdata folder (testdata/keras,
    keras/testdata/multi_io, whole_model, interop, ...) whose manifest
    names a generator among ran (script paths relative to the root)."""
    out = subprocess.run(["git", "ls-files", "--", "*/testdata/*.json"], cwd=root,
                         capture_output=True, text=True, check=True).stdout.split()
    stale = []
    for rel in out:
        try:
            with open(os.path.join(root, rel)) as f:
                gen = json.load(f).get("manifest", {}).get("generator", "")
        except (OSError, ValueError, AttributeError):
            continue
        if gen and gen in ran:  # files without a manifest naming their generator are not judged
            stale.append(rel)
    return stale


# Every float is judged twice: against its own magnitude (rtol, atol) and
# against the largest magnitude of the array it belongs to (ARRAY_RTOL of
# it). TensorFlow's CPU kernels (Eigen's GEMM and convolution blocking, picked
# by the CPU's vector units: AVX-512 or AVX2) sum a dot product in another
# order on another CPU, so an element can move by float32 rounding of the
# terms it sums, which is the array's scale, not its own: a gradient element
# that cancels to 0.011 moved by 1.2e-6 (1e-4 of itself, 2e-7 of its array's
# largest value) on an AVX2-only AMD EPYC against vectors made on an AVX-512
# Intel; a bias gradient that is mathematically zero is rounding noise. Among
# the single-layer files the worst was 8.2e-7 of the array's largest value.
ARRAY_RTOL = 1e-5

# The applications' predictions (ResNet50, EfficientNet, ... built in Keras
# and run once: a hundred layers deep) and their means: 8.7e-6 on that AMD.
DEEP_FILES = ("keras/applications/testdata/keras/predictions.json",)
DEEP_ARRAY_RTOL = 1e-4


# Multi-step training trajectories (20 Fit steps of the seed CNN and ResNet,
# keras.io's convnet, mixed_float16 steps, trained interop models): each
# step's convolution gradients are summed by TensorFlow's CPU kernels in an
# order that depends on the CPU's vector units, and training amplifies the
# last-bit differences (seen: 3.9e-4 relative on a Skylake-SP AVX-512 machine
# against vectors made on an AVX-512+AMX one; the interop cases' outputs 3.7e-2
# of themselves, 2.4e-3 of their array's largest value, on the AMD EPYC). A
# changed script, version or seed drifts by far more than these looser bounds.
TRAJECTORY_RTOL = 2e-3
TRAJECTORY_ARRAY_RTOL = 1e-2
TRAJECTORY_FILES = (
    "keras/testdata/whole_model/",
    "keras/testdata/interop/cases.json",
    "keras/testdata/interop/resnet.keras",
)


# float16 arithmetic (mixed_float16 Dense layers trained a step, then predicted):
# oneDNN computes half-precision matmuls only on AVX-512 CPUs; elsewhere
# TensorFlow falls back to Eigen, which rounds differently. The outputs then
# differ by a few float16 ulps (seen on an AVX2-only AMD EPYC: 3.9e-4 on a
# softmax output of 0.1756, 2.2e-3 relative, against vectors made with
# oneDNN). Ten float16 epsilons (2^-10 each) bound that; a changed script or
# seed moves these outputs by O(0.1).
FLOAT16_RTOL = 1e-2
FLOAT16_FILES = ("keras/testdata/keras/mixed_float16.json",)


# bfloat16 arithmetic (the mixed_bfloat16 seed CNN predicted and trained):
# each layer rounds its output to 8 significant bits, so a float32 sum that
# lands on the other side of a rounding boundary on another CPU moves the
# activation by a whole bfloat16 epsilon (2^-8), and the next layers carry
# it on. On the AMD EPYC against AVX-512 vectors: logits 1.7e-2 of the
# largest logit, trained weights 3.5e-3 of the largest weight. Ten bfloat16
# epsilons of the array's largest value bound that; another seed or script
# moves them by O(1).
BFLOAT16_ARRAY_RTOL = 10 * 2.0 ** -8
BFLOAT16_FILES = (
    "keras/testdata/keras/mixed_bfloat16_cnn.json",
    "keras/testdata/keras/mixed_bfloat16_train.json",
)


# Models trained with batch normalization after biased layers (the ResNets,
# the interop two_io model) diverge further: such a bias's true gradient is
# zero, so what TensorFlow computes is rounding noise, which Adam turns into
# steps of about its learning rate either way. two_io's Dense bias before its
# BatchNormalization (2 steps at 0.01) came out 0.0118 apart on the AMD EPYC
# (-0.0089 against 0.0030), which 4e-2 (2 x steps x learning rate) bounds;
# ResNet conv biases of 1e-5 moved by 10%, its logits (about 0.1) by up to
# 3e-3, two_io's moving means by 1e-3. Still far below what another seed or
# script gives (O(1) on the weights that have a gradient).
BATCHNORM_TRAINED_FILES = (
    "keras/testdata/whole_model/resnet.npz",
    "keras/testdata/interop/resnet.keras",
    "keras/testdata/interop/two_io",
)
BATCHNORM_TRAINED_RTOL, BATCHNORM_TRAINED_ATOL = 5e-2, 4e-2


def tol_for(rel, rtol, atol, arr_rtol):
    """The (rtol, atol, array rtol) a generated file is compared with: the
    command line's, loosened for the file classes above."""
    if rel.startswith(BATCHNORM_TRAINED_FILES):
        return max(rtol, BATCHNORM_TRAINED_RTOL), max(atol, BATCHNORM_TRAINED_ATOL), max(arr_rtol, TRAJECTORY_ARRAY_RTOL)
    if rel.startswith(BFLOAT16_FILES):
        return rtol, atol, max(arr_rtol, BFLOAT16_ARRAY_RTOL)
    if rel.startswith(FLOAT16_FILES):
        return max(rtol, FLOAT16_RTOL), atol, arr_rtol
    if rel.startswith(TRAJECTORY_FILES):
        return max(rtol, TRAJECTORY_RTOL), atol, max(arr_rtol, TRAJECTORY_ARRAY_RTOL)
    if rel.startswith(DEEP_FILES):
        return rtol, atol, max(arr_rtol, DEEP_ARRAY_RTOL)
    return rtol, atol, arr_rtol


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("generated")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-7)
    ap.add_argument("--arr-rtol", type=float, default=ARRAY_RTOL)
    ap.add_argument("--root", default=".")
    args = ap.parse_args()
    gen_root, root = os.path.abspath(args.generated), os.path.abspath(args.root)
    failed = 0
    written, generators = set(), set()
    for dirpath, _, files in os.walk(gen_root):
        for fn in sorted(files):
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, gen_root)
            written.add(rel)
            ref = os.path.join(root, rel)
            d = Drift(*tol_for(rel, args.rtol, args.atol, args.arr_rtol))
            if not os.path.exists(ref):
                d.err(rel, "generated but not committed")
            elif fn.endswith(".json"):
                with open(path) as f:
                    a = json.load(f)
                with open(ref) as f:
                    b = json.load(f)
                if isinstance(a, dict):
                    generators.add(a.get("manifest", {}).get("generator", ""))
                d.walk(rel, a, b)
            elif fn.endswith(".npz"):
                with np.load(path) as za, np.load(ref) as zb:
                    if sorted(za.files) != sorted(zb.files):
                        d.err(rel, f"arrays {sorted(set(za.files) ^ set(zb.files))} differ")
                    for k in za.files:
                        if k in zb.files:
                            d.arrays(f"{rel}:{k}", za[k], zb[k])
            else:
                with open(path, "rb") as f, open(ref, "rb") as g:
                    same = f.read() == g.read()
                if not same and fn.endswith(".h5"):
                    d.h5(rel, path, ref)
                elif not same and fn.endswith(".keras"):
                    d.keras_zip(rel, path, ref)
                elif not same:
                    d.err(rel, "bytes differ")
            if d.errors:
                failed += 1
                print(f"DRIFT {rel}:")
                for e in d.errors[:10]:
                    print("   ", e)
                if len(d.errors) > 10:
                    print(f"    ... {len(d.errors)} differences in all")
            else:
                print(f"ok    {rel} (worst relative difference {d.worst:.3g}; "
                      f"{d.worst_arr:.3g} of its array's largest value)")
    for rel in committed_generators(root, generators):
        if rel not in written:
            failed += 1
            print(f"STALE {rel}: committed, its generator ran, but it was not written again")
    if not written:
        print("compare.py: nothing was generated")
        return 1
    if failed:
        print(f"compare.py: {failed} file(s) drifted from the committed vectors (rtol {args.rtol}, atol {args.atol}, "
              f"{args.arr_rtol} of an array's largest value); "
              "regenerate with run_all.py and look at the diff")
        return 1
    print(f"compare.py: {len(written)} files agree (rtol {args.rtol}, atol {args.atol}, "
          f"{args.arr_rtol} of an array's largest value)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
