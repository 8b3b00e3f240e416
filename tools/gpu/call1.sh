#!/bin/bash
# call1.sh: the first of the two prepared GPU calls (correctness), <= 330 s of command. See docs/gpu.md.
#
#   run(command="bash .gpu/call1.sh", carry=[".gpu"], timeout_s=330)
#
# 1. preflight, fail-fast: nvidia-smi (timeout 15 s), ldd of every binary (no "not found"), then the
#    preflight binary (cuInit, the devices, a replica with its cuBLAS warm-up, our PTX JIT-loaded, one
#    upload-kernel-GEMM-download round trip checked exactly, cuDNN and NCCL versions). If any fails: the
#    diagnostics go to logs/diagnostics.log and the call stops (GPU_PREFLIGHT_CONTINUE=1 goes on).
# 2. every GPU test binary with GOKERAS_REQUIRE_GPU=1 (a skipped test fails its step): the runtime, our
#    kernels, cuDNN, NCCL, the executor's conformance (every op within 1e-5 of the CPU), then
#    distribute's GPU tests (the 1/2/4 logical-GPU equivalence).
# 3. mnist_cnn on MNIST, -replicas 2 (two logical GPUs), GPU_MNIST_EPOCHS epochs (default 2): test
#    accuracy >= 0.90, and the executor's log lines prove the GPU ran it.
# Results in $OUT: summary.txt (a line a step), results.csv, logs/ (a log a step, each capped).
CALL=call1 BUDGET_DEFAULT=315
. "$(dirname "$0")/lib.sh"
: > "$SUMMARY"
setup

# 1. Preflight.
step nvidia-smi 15 0 nvidia-smi
if [ "$STATUS" != PASS ]; then STATUS=INFO DETAIL="$DETAIL (nvidia-smi failed or missing: see the preflight binary)"; else
  DETAIL=$(grep -m1 -oE 'Driver Version: [0-9.]+ +CUDA Version: [0-9.]+' "$LOGF" | tr -s ' ')
fi
done_step
ldd_all() {
  local bad=0
  for b in "$BIN"/*; do
    echo "== $b"
    ldd "$b" | grep -E 'cuda|cublas|cudnn|nccl|not found' || true
    if ldd "$b" | grep -q 'not found'; then bad=1; fi
  done
  return $bad
}
export -f ldd_all
export BIN
step ldd 20 0 bash -c ldd_all
[ "$STATUS" = PASS ] || DETAIL="$DETAIL: $(grep 'not found' "$LOGF" | awk '{print $1}' | sort -u | paste -sd' ')"
done_step
PRE_OK=$([ "$STATUS" = PASS ] && echo 1 || echo 0)
step preflight 60 0 "$BIN/preflight"
DETAIL=${DETAIL%%:*} # "exit N": the preflight's own lines follow
for d in "$(grep -m1 -oE 'GPU 0: [^,]+' "$LOGF")" "$(grep -m1 'preflight: FAIL' "$LOGF" | cut -c12-200)"; do
  [ -n "$d" ] && DETAIL="$DETAIL${DETAIL:+; }$d"
done
done_step
[ "$STATUS" = PASS ] || PRE_OK=0
if [ "$PRE_OK" != 1 ]; then
  export -f diagnostics cap
  export R BIN LOG_CAP
  step diagnostics 30 0 bash -c diagnostics
  STATUS=INFO DETAIL="logs/diagnostics.log"
  done_step
  if [ "${GPU_PREFLIGHT_CONTINUE:-}" != 1 ]; then
    say "STOP preflight failed: nothing else ran (GPU_PREFLIGHT_CONTINUE=1 runs the rest anyway)"
    finish
    exit 1
  fi
fi

# 2. The test binaries: MAX seconds each, RESERVE kept for the steps after (distribute and mnist_cnn).
want_test() { [ -z "${GPU_TESTS:-}" ] && return 0; case " $GPU_TESTS " in *" $1 "*) return 0 ;; esac; return 1; }
run_test() { # name max reserve [filter]
  local n=$1 max=$2 res=$3 filt=${GPU_TEST_RUN:-${4:-.}}
  want_test "$n" || return 0
  if [ ! -x "$BIN/$n.test" ]; then NAME=test_$n STATUS=FAIL DT=0 LIM=0 DETAIL="no $n.test"; done_step; return; fi
  local l; l=$(limit "$max" "$res")
  # in its package's folder of the carried tree, as go test runs it (testdata, sources the tests read)
  step "test_$n" "$max" "$res" "$D/in_pkg.sh" "$n" "$BIN/$n.test" -test.v -test.run "$filt" -test.timeout "$((l > 8 ? l - 3 : 5))s"
  [ "$STATUS" = SKIP ] || test_verdict
  done_step
}
run_test internal_cuda 30 120
run_test internal_cuda_kernels 45 110
run_test internal_cudnn 40 100
run_test internal_nccl 30 95
run_test internal_gpuexec 100 90 # (Conformance, TestTrainStepMatchesCPU, graphs, ...)
run_test distribute 60 60 '^TestGPU'

# 3. mnist_cnn on the GPU.
EPOCHS=${GPU_MNIST_EPOCHS:-2}
if [ -z "${GPU_TESTS:-}" ] || want_test mnist_cnn; then
  if [ -f "$D/data/mnist/train-images-idx3-ubyte.gz" ]; then
    step mnist_cnn 150 0 "$BIN/mnist_cnn" -dataset mnist -data "$D/data/mnist" -replicas 2 -epochs "$EPOCHS" -verbose 2 -plot ""
    acc=$(grep -oE 'test_accuracy: [0-9.]+' "$LOGF" | tail -1 | awk '{print $2}')
    progs=$(grep -c 'gpuexec: .* program of' "$LOGF")
    DETAIL="$DETAIL${DETAIL:+; }test_accuracy ${acc:-?} after $EPOCHS epochs, $progs GPU program(s) prepared"
    if [ "$STATUS" = PASS ]; then
      if [ -z "$acc" ] || ! awk -v a="$acc" 'BEGIN { exit !(a >= 0.90) }'; then STATUS=FAIL DETAIL="$DETAIL (want >= 0.90)"; fi
      if [ "$progs" -eq 0 ]; then STATUS=FAIL DETAIL="$DETAIL (no gpuexec program: not on the GPU)"; fi
    fi
    cpu=$(grep -oE 'program of [0-9]+ steps, [0-9]+ on the CPU' "$LOGF" | sort -u | paste -sd';')
    [ -n "$cpu" ] && DETAIL="$DETAIL; $cpu"
    [ -n "$acc" ] && csv mnist_cnn_accuracy "$STATUS" "$DT" "$LIM" "$acc"
  else
    NAME=mnist_cnn STATUS=FAIL DT=0 LIM=0 DETAIL="no $D/data/mnist (build_all.sh copies MNIST)"
  fi
  done_step
fi
finish
