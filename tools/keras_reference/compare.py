"""Compares regenerated Keras vectors with the committed ones, numerically.

Usage, from the repository root:

    python tools/keras_reference/compare.py GENERATED_DIR [--rtol 1e-6] [--atol 1e-7]

Every file under GENERATED_DIR (written by run_all.py --out GENERATED_DIR)
must exist at the same path in the repository and agree with it: JSON
structure, keys, strings, booleans and integers exactly; floating-point
numbers within |a - b| <= atol + rtol * max(|a|, |b|) (TensorFlow's float
kernels may differ by an ulp between CPUs, so a byte diff would fail on
another machine); .npz files array by array the same way (names, shapes
and dtypes exactly); other files byte for byte. A committed JSON vector
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
    def __init__(self, rtol, atol):
        self.rtol, self.atol = rtol, atol
        self.errors = []
        self.worst = 0.0

    def err(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    def num(self, where, a, b):
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
        if d > self.atol + self.rtol * scale:
            self.err(where, f"{a!r} != committed {b!r} (difference {d:.3g})")

    def walk(self, where, a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            if set(a) != set(b):
                self.err(where, f"keys {sorted(set(a) ^ set(b))} differ")
            for k in a:
                if k in b:
                    self.walk(f"{where}.{k}", a[k], b[k])
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                self.err(where, f"length {len(a)} != committed {len(b)}")
                return
            for i, (x, y) in enumerate(zip(a, b)):
                self.walk(f"{where}[{i}]", x, y)
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            self.num(where, a, b)
        elif a != b:
            self.err(where, f"{a!r} != committed {b!r}")

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
            bad = np.argwhere(d > self.atol + self.rtol * scale)
            if scale.size:
                self.worst = max(self.worst, float(np.max(d / np.maximum(scale, self.atol / self.rtol))))
            for idx in bad[:5]:
                i = tuple(idx)
                self.err(f"{where}{list(i)}", f"{a[i]!r} != committed {b[i]!r}")
            if len(bad) > 5:
                self.err(where, f"... {len(bad)} values differ")
        elif not np.array_equal(a, b):
            self.err(where, "values differ")


def committed_generators(root, ran):
    """Committed */testdata/keras/*.json files whose manifest names a
    generator among ran (script paths relative to the root)."""
    out = subprocess.run(["git", "ls-files", "--", "*/testdata/keras/*.json"], cwd=root,
                         capture_output=True, text=True, check=True).stdout.split()
    stale = []
    for rel in out:
        try:
            with open(os.path.join(root, rel)) as f:
                gen = json.load(f).get("manifest", {}).get("generator", "")
        except (OSError, ValueError, AttributeError):
            continue
        if gen in ran:
            stale.append(rel)
    return stale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("generated")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-7)
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
            d = Drift(args.rtol, args.atol)
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
                    if f.read() != g.read():
                        d.err(rel, "bytes differ")
            if d.errors:
                failed += 1
                print(f"DRIFT {rel}:")
                for e in d.errors[:10]:
                    print("   ", e)
                if len(d.errors) > 10:
                    print(f"    ... {len(d.errors)} differences in all")
            else:
                print(f"ok    {rel} (worst relative difference {d.worst:.3g})")
    for rel in committed_generators(root, generators):
        if rel not in written:
            failed += 1
            print(f"STALE {rel}: committed, its generator ran, but it was not written again")
    if not written:
        print("compare.py: nothing was generated")
        return 1
    if failed:
        print(f"compare.py: {failed} file(s) drifted from the committed vectors (rtol {args.rtol}, atol {args.atol}); "
              "regenerate with run_all.py and look at the diff")
        return 1
    print(f"compare.py: {len(written)} files agree (rtol {args.rtol}, atol {args.atol})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
