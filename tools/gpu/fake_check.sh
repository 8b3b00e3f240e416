#!/bin/sh
# fake_check.sh: run cuda-built binaries against a fake driver with no device (fake_driver.sh) and check
# what a GPU machine without a usable GPU must do: fail, loudly, instead of passing on the CPU. And, since
# the fake driver lets a cuda build start, check that every op kind of the seed models' train steps
# (float32 and mixed_bfloat16) has a GPU builder (benchmark -gpu-kinds).
#
#   tools/gpu/fake_check.sh BINDIR     (BINDIR: preflight, benchmark, mnist_cnn, internal_cudnn.test,
#                                       internal_nccl.test, internal_cuda.test built with -tags cuda;
#                                       build.sh check builds them, so does build_all.sh)
set -eu
BIN=${1:?usage: fake_check.sh BINDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$(mktemp -d); trap 'rm -rf "$FAKE"' EXIT
"$HERE/fake_driver.sh" "$FAKE/lib" >/dev/null
export LD_LIBRARY_PATH="$FAKE/lib"
bad=0
# expect NAME WANT_RC PATTERN CMD...: CMD exits WANT_RC ("nonzero" for any failure) and prints PATTERN.
expect() {
  name=$1 want=$2 pat=$3
  shift 3
  set +e
  out=$(timeout 120 "$@" 2>&1)
  rc=$?
  set -e
  ok=1
  case $want in nonzero) [ "$rc" -ne 0 ] || ok=0 ;; *) [ "$rc" -eq "$want" ] || ok=0 ;; esac
  printf '%s\n' "$out" | grep -qE -- "$pat" || ok=0
  if [ $ok = 1 ]; then
    echo "fake_check.sh: ok   $name (exit $rc)"
  else
    echo "fake_check.sh: FAIL $name: exit $rc (want $want), want output matching /$pat/; output:"
    printf '%s\n' "$out" | tail -20
    bad=1
  fi
}
expect "preflight fails with no device" 1 'FAIL devices: 0' "$BIN/preflight"
expect "cuDNN tests fail under GOKERAS_REQUIRE_GPU=1" nonzero 'GOKERAS_REQUIRE_GPU=1 makes that a failure' \
  env GOKERAS_REQUIRE_GPU=1 "$BIN/internal_cudnn.test" -test.run 'TestConv|TestHandle' -test.v
expect "cuDNN tests skip without it" 0 'no CUDA device.*GOKERAS_REQUIRE_GPU=1 makes this a failure' "$BIN/internal_cudnn.test" -test.run 'TestConv' -test.v
expect "NCCL tests fail under GOKERAS_REQUIRE_GPU=1" nonzero 'GOKERAS_REQUIRE_GPU=1 makes that a failure' \
  env GOKERAS_REQUIRE_GPU=1 "$BIN/internal_nccl.test" -test.v
expect "the runtime's tests fail with no device" nonzero 'no GPU|no CUDA|FAIL' "$BIN/internal_cuda.test" -test.run 'Replica|Sgemm' -test.v
expect "mnist_cnn refuses the CPU under GOKERAS_REQUIRE_GPU=1" nonzero 'forbids mirroring over CPUs' \
  env GOKERAS_REQUIRE_GPU=1 "$BIN/mnist_cnn" -dataset mnist -epochs 1 -limit 64 -verbose 0 -plot ""
expect "the benchmark refuses the CPU under GOKERAS_REQUIRE_GPU=1" nonzero 'forbids mirroring over CPUs' \
  env GOKERAS_REQUIRE_GPU=1 "$BIN/benchmark" -model mnist_cnn -batch 8 -steps 1 -warmup 0
for m in mnist_cnn resnet_seed; do
  expect "every op kind of $m's train step has a GPU builder" 0 'gpu_kind .*native=yes' "$BIN/benchmark" -gpu-kinds -model "$m"
done
[ $bad = 0 ] && echo "fake_check.sh: passed" || echo "fake_check.sh: FAILED"
exit $bad
