#!/bin/sh
# build.sh: build gokeras' cuda-tagged packages on a machine with no GPU and no CUDA toolkit (the stub route).
#
#   tools/gpu/build.sh test  PKG OUT    go test -c -tags cuda PKG -> OUT (a test binary for the GPU machine)
#   tools/gpu/build.sh build PKG OUT    go build -tags cuda PKG -> OUT
#   tools/gpu/build.sh check            CI: go vet -tags cuda ./..., go build -tags cuda ./..., go test -c of
#                                       every package with cuda-tagged tests (builds, runs nothing)
#   tools/gpu/build.sh fakecheck        CI: cuda builds run against a fake driver with no device
#                                       (tools/gpu/fake_check.sh: failure paths, GPU builders of every op kind)
#   tools/gpu/build.sh env              print the CGO_* exports, for running go by hand: eval "$(tools/gpu/build.sh env)"
#
# Run from the repository root. How it works:
# - Headers: cuda.h comes from NVIDIA's CUDA 12.9 runtime wheel on PyPI (nvidia-cuda-runtime-cu12, 3.5 MB,
#   fetched once with pip and kept in the cache dir), with a small shim (shim/cuda.h below) for the two
#   places where gorgonia.org/cu v0.9.4, written against CUDA 10/11, disagrees with CUDA 12's header.
#   CUDA_HEADERS=debian takes CUDA 11.8's headers from Debian's non-free nvidia-cuda-dev instead (about
#   800 MB to download once). Our own cuBLAS, cuDNN and NCCL declarations need no header.
# - Libraries: stub .so files made here with the GPU machine's sonames (libcuda.so.1, libcublas.so.13,
#   libcudnn.so.9, libnccl.so.2) and no symbol versions, so that the real libraries there resolve every
#   reference. Never link against NVIDIA's own .so files: cuBLAS versions its symbols, and the binary
#   would then need exactly that library version. libcuda's stub exports every function of cuda.h; the
#   others export the cublas*/cudnn*/nccl* names found in the module's sources.
# - Binaries are built with -ldflags='-s -w' (they travel to the GPU machine under a 64 MiB limit).
#
# Cache: $GOKERAS_CUDA_STUB_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/gokeras-cuda-stub.
set -eu
MODE=${1:?usage: build.sh test|build|check|env ...}
W=${GOKERAS_CUDA_STUB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gokeras-cuda-stub}
HEADERS=${CUDA_HEADERS:-wheel}
CUDA_WHEEL=${CUDA_WHEEL:-nvidia-cuda-runtime-cu12==12.9.79}
mkdir -p "$W"
log() { echo "build.sh: $*" >&2; }

# Headers.
HDR=$W/include-$HEADERS
if [ ! -f "$HDR/cuda.h" ]; then
  case $HEADERS in
  wheel)
    log "fetching cuda.h from $CUDA_WHEEL (pip download, about 3.5 MB)"
    rm -rf "$W/whl"; mkdir -p "$W/whl"
    python3 -m pip download --no-deps --quiet --dest "$W/whl" "$CUDA_WHEEL" >&2
    python3 - "$W/whl" "$HDR" <<'PY'
import sys, zipfile, glob, os
whl = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
dst = sys.argv[2] + ".tmp"
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if "/include/" in n and not n.endswith("/"):
            out = os.path.join(dst, n.split("/include/", 1)[1])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(z.read(n))
os.replace(dst, sys.argv[2])
PY
    rm -rf "$W/whl" ;;
  debian)
    if ! apt-cache policy nvidia-cuda-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        > /etc/apt/sources.list.d/debian-non-free.sources
      apt-get update >/dev/null
    fi
    log "fetching Debian's nvidia-cuda-dev (about 800 MB) for its headers"
    (cd "$W" && apt-get download nvidia-cuda-dev >/dev/null)
    rm -rf "$W/x"; mkdir -p "$W/x"
    dpkg-deb --fsys-tarfile "$W"/nvidia-cuda-dev_*.deb | tar -x -C "$W/x" --wildcards './usr/include/*' 2>/dev/null || true
    rm -rf "$HDR"; mv "$W/x/usr/include" "$HDR"; rm -rf "$W/x" "$W"/nvidia-cuda-dev_*.deb ;;
  *) log "CUDA_HEADERS must be wheel or debian, not $HEADERS"; exit 2 ;;
  esac
fi

# The shim: gorgonia.org/cu v0.9.4 names CU_TARGET_COMPUTE_20/21 (gone since CUDA 12) and fills the
# CUDA 11 layout of CUDA_KERNEL_NODE_PARAMS for cuGraphAddKernelNode (CUDA 12 maps it to a _v2 with a
# longer struct; the old entry point is still exported by the driver).
SHIM=$W/shim; mkdir -p "$SHIM"
cat > "$SHIM/cuda.h" <<'H'
#include_next <cuda.h>
#ifndef GOKERAS_CUDA_SHIM
#define GOKERAS_CUDA_SHIM
#if CUDA_VERSION >= 12000
#define CU_TARGET_COMPUTE_20 20
#define CU_TARGET_COMPUTE_21 21
#undef cuGraphAddKernelNode
#define CUDA_KERNEL_NODE_PARAMS CUDA_KERNEL_NODE_PARAMS_v1
CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
  size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
#endif
#endif
H

# Stub libraries.
STUB=$W/stubs; mkdir -p "$STUB"
mkstub() { # soname; symbol names on stdin
  sort -u | sed 's/.*/void &(void){}/' > "$W/$1.c"
  gcc -shared -fPIC -nostdlib -Wl,-soname,"$1" -o "$STUB/$1" "$W/$1.c"
  ln -sf "$1" "$STUB/$(echo "$1" | sed 's/\.so\..*/.so/')"
}
srcsyms() { # names with a prefix used in the module's Go and C sources
  grep -rhoE "\b$1[A-Z][A-Za-z0-9_]*" --include='*.go' --include='*.c' --include='*.h' . 2>/dev/null || true; }
echo '#include <cuda.h>' | gcc -E -I"$SHIM" -I"$HDR" -x c - | grep -oE '\bcu[A-Z][A-Za-z0-9_]* *\(' | tr -d ' (' | mkstub libcuda.so.1
{ echo cublasGetVersion_v2; srcsyms cublas | grep -v '_t$'; } | mkstub libcublas.so.13
{ echo cudnnGetVersion; srcsyms cudnn | grep -v '_t$'; } | mkstub libcudnn.so.9
{ echo ncclGetVersion; srcsyms nccl | grep -v '_t$'; } | mkstub libnccl.so.2

# gorgonia.org/gorgonia has a cuda build tag of its own, for its CUDA machine over cuDNN 7/8
# (gorgonia.org/cu/dnn): with -tags cuda it would want cudnn.h and cuDNN 8's functions. We never use
# its machines, so we build against a copy of it whose cuda files are dropped and whose !cuda twins
# lose their tag (gorgonia builds as without the tag while our own cuda files are in), named by a
# replace directive in a go.mod of our own (go build -modfile): the repository's files stay as they are.
GDIR=$(GOFLAGS= go list -m -f '{{.Dir}}' gorgonia.org/gorgonia)
GP=$W/gorgonia-nocuda
if [ ! -f "$GP/.from" ] || [ "$(cat "$GP/.from")" != "$GDIR" ]; then
  rm -rf "$GP"; cp -r "$GDIR" "$GP"; chmod -R u+w "$GP"
  for f in $(grep -rlE '^(// ?\+build|//go:build) !?cuda$' "$GP" --include='*.go' | grep -v '_test\.go$'); do
    if grep -qE '^(// ?\+build|//go:build) cuda$' "$f"; then rm -f "$f"
    else sed -i -E '/^(\/\/ ?\+build|\/\/go:build) !cuda$/d' "$f"; fi
  done
  rm -rf "$GP/examples" "$GP/cmd"
  echo "$GDIR" > "$GP/.from"
fi
cp go.mod "$W/go.mod"; cp go.sum "$W/go.sum"
echo "replace gorgonia.org/gorgonia => $GP" >> "$W/go.mod"

export CGO_ENABLED=1 CGO_CFLAGS="-I$SHIM -I$HDR -Wno-deprecated-declarations" CGO_LDFLAGS="-L$STUB"
export GOFLAGS="$(GOFLAGS= go env GOFLAGS) -modfile=$W/go.mod"
LDF='-s -w'

# cudapkgs: the packages that have cuda-tagged test files.
cudapkgs() {
  go list -tags cuda -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r p d; do
    if grep -lqs '^//go:build.*cuda' "$d"/*_test.go 2>/dev/null; then echo "$p"; fi
  done
}

case $MODE in
env)
  echo "export CGO_ENABLED=1 CGO_CFLAGS='$CGO_CFLAGS' CGO_LDFLAGS='$CGO_LDFLAGS' GOFLAGS='$GOFLAGS'" ;;
test)
  PKG=${2:?package}; OUT=${3:?output}
  go test -c -tags cuda -ldflags="$LDF" -o "$OUT" "$PKG"
  log "built $OUT; needs: $(readelf -d "$OUT" | grep NEEDED | grep -oE '\[[^]]+\]' | tr -d '[]' | paste -sd' ')" ;;
build)
  PKG=${2:?package}; OUT=${3:?output}
  go build -tags cuda -ldflags="$LDF" -o "$OUT" "$PKG"
  log "built $OUT; needs: $(readelf -d "$OUT" | grep NEEDED | grep -oE '\[[^]]+\]' | tr -d '[]' | paste -sd' ')" ;;
pkgs)
  cudapkgs ;;
fakecheck)
  # CI: the failure paths against a fake driver with no device, and every op kind of the seed models'
  # train steps has a GPU builder (tools/gpu/fake_check.sh).
  T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
  for p in internal/cuda internal/cudnn internal/nccl; do
    go test -c -tags cuda -ldflags="$LDF" -o "$T/$(echo "$p" | tr / _).test" "./$p"
  done
  for e in tools/gpu/preflight examples/benchmark examples/mnist_cnn; do
    go build -tags cuda -ldflags="$LDF" -o "$T/$(basename "$e")" "./$e"
  done
  "$(dirname "$0")/fake_check.sh" "$T" ;;
check)
  log "go vet -tags cuda ./..."
  go vet -tags cuda ./...
  log "go build -tags cuda ./..."
  go build -tags cuda ./...
  T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
  for p in $(cudapkgs); do
    log "go test -c -tags cuda $p"
    go test -c -tags cuda -o "$T/$(echo "$p" | tr / _).test" "$p"
  done
  log "ok: the cuda-tagged packages build and link against the stubs" ;;
*)
  log "unknown mode $MODE (test, build, check, fakecheck, env, pkgs)"; exit 2 ;;
esac
