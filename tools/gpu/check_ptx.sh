#!/bin/sh
# check_ptx.sh: assemble the committed PTX (internal/cuda/kernels/ptx/*.ptx) for the GPUs a call may get,
# with ptxas from NVIDIA's pinned nvcc wheel, as the driver's JIT will: a PTX file that does not assemble,
# or a kernel that spills registers to local memory, fails. No GPU and no CUDA toolkit needed.
#
#   tools/gpu/check_ptx.sh          (from the repository root; CI runs it)
#
# ptxas comes from nvidia-cuda-nvcc==13.0.88 (the version gen_ptx.sh pins; pip download, about 40 MB,
# once), kept in $GOKERAS_PTXAS_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/gokeras-ptxas). PTXAS=path
# uses another ptxas.
set -eu
ARCHS=${PTX_ARCHS:-sm_90 sm_80}
WHEEL=nvidia-cuda-nvcc==13.0.88
C=${GOKERAS_PTXAS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gokeras-ptxas}
if [ -z "${PTXAS:-}" ]; then
  PTXAS=$C/ptxas
  if [ ! -x "$PTXAS" ]; then
    mkdir -p "$C"
    T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
    echo "check_ptx.sh: fetching ptxas from $WHEEL (pip download)" >&2
    python3 -m pip download --no-deps --quiet --dest "$T" "$WHEEL" >&2
    python3 - "$T" "$C" <<'PY'
import glob, os, sys, zipfile
whl = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    n = [n for n in z.namelist() if n.endswith("/bin/ptxas")][0]
    out = os.path.join(sys.argv[2], "ptxas")
    with open(out + ".tmp", "wb") as f:
        f.write(z.read(n))
    os.chmod(out + ".tmp", 0o755)
    os.replace(out + ".tmp", out)
PY
  fi
fi
"$PTXAS" --version | tail -1
bad=0
for p in internal/cuda/kernels/ptx/*.ptx; do
  for a in $ARCHS; do
    if ! out=$("$PTXAS" -arch="$a" -v -o /dev/null "$p" 2>&1); then
      echo "check_ptx.sh: FAIL $p for $a:"; echo "$out"; bad=1; continue
    fi
    spills=$(echo "$out" | grep -E '[1-9][0-9]* bytes spill (stores|loads)' || true)
    if [ -n "$spills" ]; then echo "check_ptx.sh: FAIL $p for $a spills registers:"; echo "$spills"; bad=1; fi
    stack=$(echo "$out" | grep -cE '[1-9][0-9]* bytes stack frame' || true)
    echo "check_ptx.sh: ok $p $a ($(echo "$out" | grep -c 'Compiling entry') kernels, no spills, $stack with a stack frame)"
  done
done
exit $bad
