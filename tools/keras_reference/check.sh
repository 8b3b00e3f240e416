#!/bin/sh
# Regenerates every Keras test vector (every tools/keras_reference/*vectors.py,
# in one Python process: run_all.py) into a scratch folder with the pinned
# versions and fails if any differs from the committed files by more than
# float32 noise (compare.py: relative 1e-6, absolute 1e-7; TensorFlow's
# kernels may differ by an ulp between CPUs, so no byte diff). Run from the
# repository root. KERAS_REF_VENV (default ~/.cache/gokeras-keras-ref) is the
# virtualenv; pip runs only when a pinned package is missing or at another
# version.
set -eu
venv=${KERAS_REF_VENV:-$HOME/.cache/gokeras-keras-ref}
req=tools/keras_reference/requirements.txt
if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv"
fi
if ! "$venv/bin/python" - "$req" <<'PY'
import sys
from importlib import metadata
bad = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, want = line.split("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != want:
        bad.append(f"{name} {have} (want {want})")
if bad:
    print("keras_reference: installing the pinned versions:", ", ".join(bad))
    sys.exit(1)
PY
then
	"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} TF_NUM_INTEROP_THREADS=${TF_NUM_INTEROP_THREADS:-1} \
	TF_NUM_INTRAOP_THREADS=${TF_NUM_INTRAOP_THREADS:-1} \
	"$venv/bin/python" tools/keras_reference/run_all.py --out "$out"
"$venv/bin/python" tools/keras_reference/compare.py "$out"
