#!/bin/sh
# fake_driver.sh: a fake NVIDIA driver with no device, for rehearsing the GPU calls and testing the failure
# paths on a machine without a GPU.
#
#   tools/gpu/fake_driver.sh DIR      (run from the repository root, after tools/gpu/build.sh has run once)
#
# DIR gets libcuda.so.1, where cuInit succeeds, cuDriverGetVersion says 13.0 and cuDeviceGetCount finds
# no device; every other driver function of cuda.h returns CUDA_ERROR_NO_DEVICE (100) and cuGetErrorString
# and cuGetErrorName name the error. libcublas.so.13, libcudnn.so.9 and libnccl.so.2 export the names the
# module uses, each returning status 1 (not initialised), except the version queries (cuBLAS 13.0.0,
# cuDNN 9.10.0, NCCL 2.27.3). Put DIR first on LD_LIBRARY_PATH (GPU_EXTRA_LIBS=DIR for call1.sh/call2.sh).
set -eu
DIR=${1:?usage: fake_driver.sh DIR}
W=${GOKERAS_CUDA_STUB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gokeras-cuda-stub}
HDR=$W/include-${CUDA_HEADERS:-wheel}
[ -f "$HDR/cuda.h" ] || { echo "fake_driver.sh: no $HDR/cuda.h: run tools/gpu/build.sh env first" >&2; exit 2; }
mkdir -p "$DIR"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# fake SONAME SPECIAL_C DEFAULT_RETURN: a library of every name on stdin returning DEFAULT_RETURN, but for
# the functions SPECIAL_C defines. No prototypes: each name is a function returning int, which is how a
# caller expecting any of the libraries' status enums reads it on x86-64 and arm64.
fake() {
  sort -u > "$T/names"
  printf '%s\n' "$2" > "$T/$1.c"
  grep -oE '\b[a-zA-Z_][a-zA-Z0-9_]* *\(' "$T/$1.c" | tr -d ' (' | sort -u > "$T/special"
  grep -vxF -f "$T/special" "$T/names" | sed "s/.*/int &() { return $3; }/" >> "$T/$1.c"
  gcc -shared -fPIC -O1 -Wl,-soname,"$1" -o "$DIR/$1" "$T/$1.c"
}
srcsyms() { grep -rhoE "\b$1[A-Z][A-Za-z0-9_]*" --include='*.go' --include='*.c' --include='*.h' . 2>/dev/null | grep -v '_t$' || true; }

echo '#include <cuda.h>' | gcc -E -I"$HDR" -x c - | grep -oE '\bcu[A-Z][A-Za-z0-9_]* *\(' | tr -d ' (' |
  { cat; echo cuGraphAddKernelNode; } | fake libcuda.so.1 '
int cuInit(unsigned flags) { return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuDeviceGetCount(int *n) { *n = 0; return 0; }
static const char *gk_msg(int e) { return e == 0 ? "no error" : e == 100 ? "no CUDA-capable device is detected (fake driver)" : "fake driver error"; }
static const char *gk_name(int e) { return e == 0 ? "CUDA_SUCCESS" : e == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN"; }
int cuGetErrorString(int e, const char **s) { *s = gk_msg(e); return 0; }
int cuGetErrorName(int e, const char **s) { *s = gk_name(e); return 0; }
int cuCtxGetCurrent(void **c) { *c = 0; return 0; }' 100
{ echo cublasGetVersion_v2; srcsyms cublas; } | fake libcublas.so.13 '
int cublasGetVersion_v2(void *h, int *v) { *v = 130000; return 0; }' 1
{ echo cudnnGetVersion; echo cudnnGetErrorString; srcsyms cudnn; } | fake libcudnn.so.9 '
unsigned long cudnnGetVersion(void) { return 91000; }
const char *cudnnGetErrorString(int s) { return "CUDNN_STATUS_NOT_INITIALIZED (fake)"; }' 1
{ echo ncclGetVersion; echo ncclGetErrorString; srcsyms nccl; } | fake libnccl.so.2 '
int ncclGetVersion(int *v) { *v = 22703; return 0; }
const char *ncclGetErrorString(int r) { return "unhandled cuda error (fake)"; }' 1
echo "fake_driver.sh: $DIR: $(ls "$DIR" | paste -sd' ') (no device)"
