#!/bin/sh
# in_pkg.sh NAME CMD...: run CMD in the folder of the package whose test binary is NAME.test (the name is
# the package path with / as _, as build_all.sh names them: internal_cuda_kernels is internal/cuda/kernels)
# in the repository above this script's folder, as go test runs a test binary.
n=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
d=$root/$(echo "$n" | tr _ /)
[ -d "$d" ] || { echo "in_pkg.sh: no package folder $d for $n.test" >&2; exit 2; }
cd "$d" && exec "$@"
