#!/bin/sh
# The ONNX export checked by onnx and onnxruntime (issue 30): go test writes the exported models, an input batch and
# gokeras' predictions for each (GOKERAS_ONNX_OUT), and check.py runs onnx's checker and onnxruntime on them (read its
# docstring). Run from the repository root; with a DIR argument it checks the models already written there instead.
# ONNX_REF_VENV (default ~/.cache/gokeras-onnx-ref) is the virtualenv; pip runs only when a pinned package is missing
# or at another version.
set -eu
venv=${ONNX_REF_VENV:-$HOME/.cache/gokeras-onnx-ref}
req=tools/onnx_reference/requirements.txt
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
    print("onnx_reference: installing the pinned versions:", ", ".join(bad))
    sys.exit(1)
PY
then
	"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
fi
if [ $# -ge 1 ]; then
	out=$1
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	GOKERAS_ONNX_OUT="$out" go test ./keras/ -run '^TestExportONNXForOnnxruntime$' -count=1
fi
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$venv/bin/python" tools/onnx_reference/check.py "$out"
