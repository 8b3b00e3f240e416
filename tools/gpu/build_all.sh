#!/bin/sh
# build_all.sh: build everything the two prepared GPU calls run into one folder (see docs/gpu.md).
#
#   tools/gpu/build_all.sh [OUTDIR]      (default .gpu; run from the repository root)
#
# OUTDIR gets bin.tar.xz (the cuda-tagged test binary of every package that has cuda tests, and the
# preflight, mnist_cnn and benchmark commands built with -tags cuda, all stripped: -ldflags '-s -w'),
# call1.sh, call2.sh, lib.sh, torch_reference.py, data/mnist (MNIST's four .gz files, 11 MB) and BUILD_ID.
# OUTDIR is added to .git/info/exclude, so that the device tool can carry it:
#   run(command="bash .gpu/call1.sh", carry=[".gpu"], timeout_s=330)
#   run(command="bash .gpu/call2.sh", carry=[".gpu"], timeout_s=180)     (right after, while warm)
# A call carries the tracked tree too, 64 MiB in all: this script fails when the tree and OUTDIR come to
# more than GPU_CARRY_LIMIT_MIB (default 48) MiB.
#
# Environment: GPU_BUILD_FROM=HEAD builds the last commit (a clean export) instead of the working tree;
# GPU_EXAMPLES adds example commands (e.g. "resnet_cifar10"); GPU_XZ_PRESET the compression (default
# "fast": LZMA2 fast mode with a 64 MiB dictionary, so every binary after the first costs little, since
# they share most of their code; "9e" is the slow extreme preset); GOKERAS_TORCH_REFERENCE
# (torch_reference.py; default ../shared/reference/torch_reference.py); MNIST_DIR (default
# ../shared/datasets/mnist, else $GOKERAS_DATASETS/mnist).
set -eu
OUT=${1:-.gpu}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f go.mod ] || { echo "build_all.sh: run from the repository root" >&2; exit 2; }
T0=$(date +%s)
case $OUT in . | .. | / | "") echo "build_all.sh: refusing OUTDIR $OUT" >&2; exit 2 ;; esac
rm -rf "$OUT"
mkdir -p "$OUT"
case $OUT in /*) ;; *)
  EX=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$EX")"; touch "$EX"
  grep -qxF "/$OUT/" "$EX" || echo "/$OUT/" >> "$EX"
  grep -qxF "/.gpu-run/" "$EX" || echo "/.gpu-run/" >> "$EX" ;;
esac
BIN=$(mktemp -d); trap 'rm -rf "$BIN"' EXIT
mkdir -p "$BIN/bin" "$BIN/src"
SRC=.
ID=$(git rev-parse --short HEAD)
if [ "${GPU_BUILD_FROM:-}" = HEAD ]; then
  git archive HEAD | tar -x -C "$BIN/src"; SRC=$BIN/src
else
  [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || ID="$ID+worktree"
fi
ID="$ID $(date -u +%Y%m%dT%H%M%SZ)"
echo "build_all.sh: building $ID" >&2
(
  cd "$SRC"
  for p in $("$HERE/build.sh" pkgs); do
    name=$(echo "${p#github.com/gokeras/gokeras/}" | tr / _)
    "$HERE/build.sh" test "$p" "$BIN/bin/$name.test"
  done
  "$HERE/build.sh" build ./tools/gpu/preflight "$BIN/bin/preflight"
  for e in mnist_cnn benchmark ${GPU_EXAMPLES:-}; do
    "$HERE/build.sh" build "./examples/$e" "$BIN/bin/$e"
  done
)
T1=$(date +%s)
python3 - "$BIN/bin" "$OUT/bin.tar.xz" "${GPU_XZ_PRESET:-fast}" <<'PY'
import sys, tarfile, os, lzma
src, dst, preset = sys.argv[1:4]
# One xz stream with a 64 MiB dictionary, largest first: the binaries share most of their code
# (gorgonia, gonum, the runtime), so each one after the first costs little.
if preset == "fast":
    filters = [{"id": lzma.FILTER_X86}, {"id": lzma.FILTER_LZMA2, "preset": 1, "dict_size": 64 << 20, "mf": lzma.MF_HC4,
                "mode": lzma.MODE_FAST, "nice_len": 64, "depth": 0}]
elif preset == "9e":
    filters = [{"id": lzma.FILTER_X86}, {"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}]
else:
    sys.exit("build_all.sh: GPU_XZ_PRESET must be fast or 9e, not " + preset)
names = sorted(os.listdir(src), key=lambda n: -os.path.getsize(os.path.join(src, n)))
with lzma.open(dst + ".tmp", "wb", format=lzma.FORMAT_XZ, filters=filters) as z:
    with tarfile.open(fileobj=z, mode="w") as t:
        for n in names:
            t.add(os.path.join(src, n), arcname="bin/" + n)
os.replace(dst + ".tmp", dst)
PY
T2=$(date +%s)
cp "$HERE/call1.sh" "$HERE/call2.sh" "$HERE/lib.sh" "$HERE/in_pkg.sh" "$OUT/"
echo "$ID" > "$OUT/BUILD_ID"
REF=${GOKERAS_TORCH_REFERENCE:-../shared/reference/torch_reference.py}
if [ -f "$REF" ]; then cp "$REF" "$OUT/torch_reference.py"; else echo "build_all.sh: no $REF: call 2 will not time PyTorch" >&2; fi
MN=${MNIST_DIR:-../shared/datasets/mnist}
[ -f "$MN/train-images-idx3-ubyte.gz" ] || MN=${GOKERAS_DATASETS:-/nonexistent}/mnist
if [ -f "$MN/train-images-idx3-ubyte.gz" ]; then
  mkdir -p "$OUT/data/mnist"; cp "$MN"/*-ubyte.gz "$OUT/data/mnist/"
else
  echo "build_all.sh: no MNIST (MNIST_DIR): call 1's mnist_cnn step will fail" >&2
fi
# The carry: the tracked and untracked-but-not-ignored files (the device tool copies those) and OUTDIR.
tree=$(git ls-files -z -c -o --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
out=$(du -sb "$OUT" | cut -f1)
raw=$(du -sb "$BIN/bin" | cut -f1)
lim=$((${GPU_CARRY_LIMIT_MIB:-48} << 20))
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
{
  echo "build $ID"
  echo "binaries: $(ls "$BIN/bin" | paste -sd' ')"
  echo "binaries $(mib "$raw") stripped, bin.tar.xz $(mib "$(stat -c %s "$OUT/bin.tar.xz")") (${GPU_XZ_PRESET:-fast})"
  echo "carry: tree $(mib "$tree") + $OUT $(mib "$out") = $(mib $((tree + out))) (limit $(mib "$lim"))"
  echo "time: builds $((T1 - T0))s, compression $((T2 - T1))s, all $(($(date +%s) - T0))s"
} | tee "$OUT/BUILD_INFO" | sed 's/^/build_all.sh: /' >&2
if [ $((tree + out)) -gt "$lim" ]; then
  echo "build_all.sh: FAIL the carry is over $(mib "$lim"): $(mib $((tree + out))); the largest files of the tree:" >&2
  git ls-files -z -c -o --exclude-standard | xargs -0 stat -c '%s %n' 2>/dev/null | sort -rn | head -5 | sed 's/^/  /' >&2
  exit 1
fi
