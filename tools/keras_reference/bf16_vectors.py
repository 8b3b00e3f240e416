"""Writes reference vectors for gokeras' float32 -> bfloat16 / float16 conversions and SgemmBF16.

Run from the repository root with the pinned environment (requirements.txt;
ml_dtypes comes with tensorflow):

    ~/.cache/gokeras-keras-ref/bin/python tools/keras_reference/bf16_vectors.py

It writes internal/kernels/testdata/bf16_vectors.json:

- "f32_bits": float32 bit patterns (edge cases: zeros, subnormals, the
  largest finite values, Inf, NaN, rounding ties of both parities and their
  neighbours; and random patterns),
- "bf16_bits": each rounded by ml_dtypes.bfloat16 (numpy astype),
- "f16_bits": each rounded by numpy float16 (astype),
- "gemm": small GEMMs with float32 A (m x k) and B (k x n) as bit patterns
  and "c": A and B rounded to bfloat16 by ml_dtypes, multiplied in float64.

internal/kernels/bf16_ref_test.go compares BF16FromFloat32, F16FromFloat32,
their vector forms and SgemmBF16 with these (NaN payloads are not compared:
ml_dtypes returns a canonical NaN).
"""

import json
import os

import ml_dtypes
import numpy as np

OUT = os.path.join("internal", "kernels", "testdata", "bf16_vectors.json")


def edge_bits():
    s = [
        0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,
        0x00808000, 0x00818000, 0x00008000, 0x00018000, 0x00017FFF, 0x7F7FFFFF,
        0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x7F800000, 0xFF800000, 0x7FC00000,
        0xFFC00000, 0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF,
        0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001, 0x47800000, 0x38800000,
        0x387FFFFF, 0x387FE000, 0x387FF000, 0x33000000, 0x33000001, 0x32FFFFFF,
        0x33800000, 0x33C00000, 0x38001000, 0x38003000, 0x3F801000, 0x3F803000,
    ]
    return s


def main():
    rng = np.random.default_rng(20261124)
    rnd = rng.integers(0, 2**32, size=1500, dtype=np.uint64).astype(np.uint32)
    # Random patterns, plus ties and near-ties for bfloat16 (low 16 bits
    # 0x8000, 0x7fff, 0x8001) and float16-range values.
    ties = (rnd[:300] & np.uint32(0xFFFF0000)) | np.uint32(0x8000)
    near = (rnd[300:600] & np.uint32(0xFFFF0000)) | np.uint32(0x7FFF)
    halfrange = (rnd[600:1200] & np.uint32(0x87FFFFFF)) | np.uint32(0x38000000)
    bits = np.concatenate([np.array(edge_bits(), dtype=np.uint32), rnd, ties, near, halfrange])
    x = bits.view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        bf16 = x.astype(ml_dtypes.bfloat16).view(np.uint16)
        f16 = x.astype(np.float16).view(np.uint16)

    gemms = []
    for m, n, k in [(3, 5, 7), (17, 33, 64), (12, 9, 130)]:
        a = rng.uniform(-2, 2, size=(m, k)).astype(np.float32)
        b = rng.uniform(-2, 2, size=(k, n)).astype(np.float32)
        ar = a.astype(ml_dtypes.bfloat16).astype(np.float64)
        br = b.astype(ml_dtypes.bfloat16).astype(np.float64)
        c = ar @ br
        gemms.append({
            "m": m, "n": n, "k": k,
            "a_bits": a.view(np.uint32).ravel().tolist(),
            "b_bits": b.view(np.uint32).ravel().tolist(),
            "c": c.ravel().tolist(),
        })

    out = {
        "manifest": {
            "generator": "tools/keras_reference/bf16_vectors.py",
            "numpy": np.__version__,
            "ml_dtypes": ml_dtypes.__version__,
        },
        "f32_bits": bits.tolist(),
        "bf16_bits": bf16.tolist(),
        "f16_bits": f16.tolist(),
        "gemm": gemms,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, len(bits), "values")


if __name__ == "__main__":
    main()
