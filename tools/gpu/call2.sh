#!/bin/bash
# call2.sh: the second prepared GPU call (speed, and reruns), <= 180 s of command, right after call 1
# while the machine is warm (the unpacked binaries in .gpu-run are reused). See docs/gpu.md.
#
#   run(command="bash .gpu/call2.sh", carry=[".gpu"], timeout_s=180)
#
# 1. The benchmark: the seed CNN (mnist_cnn) and ResNet (resnet_seed) at global batch GPU_BATCHES
#    (default 64 256 1024), with CUDA graphs on and off (benchmark -graphs on,off: one process for both),
#    GPU_STEPS timed steps (default 10) after 3 warm-up steps; GOKERAS_REQUIRE_GPU=1, and each figure's row names the programs' steps on the CPU.
#    PyTorch beside it on the same GPU (torch_reference.py step --device cuda) with TF32 off, as gokeras
#    computes (cuBLAS pedantic FP32, cuDNN FMA math): torch.backends.cudnn.allow_tf32 and
#    torch.backends.cuda.matmul.allow_tf32 False and NVIDIA_TF32_OVERRIDE=0. GPU_TORCH_TF32=both also
#    times PyTorch's defaults (TF32 convolutions) at each batch, marked tf32=on.
# 2. Reruns, with the time left: the tests that failed in call 1 (only those, -test.run), with
#    CUDA_LAUNCH_BLOCKING=1; or GPU_RERUN="binary:filter ..." (e.g. "internal_gpuexec:TestConformance/Conv").
# Results in $OUT: summary.txt, results.csv (benchmark rows: step bench_MODEL_BATCH_IMPL), bench.csv
# (model,batch,impl,graphs,tf32,samples_per_s,ms_per_step,cpu_steps,status), logs/.
CALL=call2 BUDGET_DEFAULT=170
. "$(dirname "$0")/lib.sh"
: > "$SUMMARY"
setup
BENCH=$R/bench.csv
echo "model,batch,impl,graphs,tf32,samples_per_s,ms_per_step,cpu_steps,status" > "$BENCH"
STEPS=${GPU_STEPS:-10}

# field FIELD [SELECT]: a field of the log's last step line (matching SELECT, e.g. graphs=on).
field() { grep -E '^step ' "$LOGF" 2>/dev/null | grep -E -- "${2:-.}" | tail -1 | grep -oE "(^| )$1=[^ ]+" | cut -d= -f2; }

TORCH=""
if [ -f "$D/torch_reference.py" ]; then
  step torch 40 100 python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "NO GPU")'
  DETAIL="$DETAIL${DETAIL:+; }$(grep -m1 '^torch' "$LOGF")"
  if [ "$STATUS" = PASS ] && ! grep -q 'NO GPU' "$LOGF"; then TORCH=1; else STATUS=FAIL; fi
  done_step
else
  NAME=torch STATUS=INFO DT=0 LIM=0 DETAIL="no torch_reference.py in .gpu: PyTorch not timed"
  done_step
fi

# torch_step TF32 MODEL BATCH: torch_reference.py with TF32 set both ways (its own default leaves cuDNN's on).
torch_step() {
  local tf=$1
  shift
  if [ "$tf" = off ]; then
    NVIDIA_TF32_OVERRIDE=0 python3 -c 'import sys, runpy, torch
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")' "$D/torch_reference.py" "$@"
  else
    python3 "$D/torch_reference.py" "$@"
  fi
}
export -f torch_step
export D

# bench_row MODEL BATCH IMPL GRAPHS TF32 [SELECT]: a bench.csv row from the step's log (the step line
# matching SELECT) and outcome (S_STATUS, S_DETAIL: one step may give two rows), and a summary line. A gokeras figure counts only if the GPU executor
# prepared the programs (GOKERAS_CUDA_VERBOSE lines); cpu_steps is the most steps of one program that
# ran on the CPU.
bench_row() {
  local sps ms cpu st=$S_STATUS det=$S_DETAIL
  sps=$(field samples_per_s "${6:-.}") ms=$(field ms_per_step "${6:-.}")
  cpu=$(grep -oE 'program of [0-9]+ steps, [0-9]+ on the CPU' "$LOGF" 2>/dev/null | awk '{print $5}' | sort -n | tail -1)
  if [ "$3" = gokeras ] && [ -n "$sps" ] && ! grep -q 'gpuexec: .* program of' "$LOGF"; then st=FAIL det="$det${det:+; }no gpuexec program: not on the GPU"; fi
  [ "$st" = PASS ] && [ -z "$sps" ] && st=FAIL det="$det${det:+; }no step line"
  [ "$st" = TIME ] && [ -n "$sps" ] && st=PASS # this figure came before the limit
  echo "$1,$2,$3,$4,$5,${sps:-},${ms:-},${cpu:-},$st" >> "$BENCH"
  NAME=bench_$1_$2_$3_graphs$4_tf32$5 STATUS=$st DETAIL="$det${det:+; }samples_per_s=${sps:-?} ms_per_step=${ms:-?}${cpu:+ cpu_steps<=$cpu}"
  done_step
}

for m in mnist_cnn resnet_seed; do
  for b in ${GPU_BATCHES:-64 256 1024}; do
    # one process for both graph settings (one CUDA start and PTX load)
    step "bench_${m}_${b}_gokeras" 35 15 "$BIN/benchmark" -model "$m" -batch "$b" -steps "$STEPS" -warmup 3 -graphs on,off
    S_STATUS=$STATUS S_DETAIL=$DETAIL
    for g in on off; do bench_row "$m" "$b" gokeras "$g" off "graphs=$g"; done
    if [ -n "$TORCH" ]; then
      for tf in off $([ "${GPU_TORCH_TF32:-}" = both ] && echo on); do
        step "bench_${m}_${b}_torch_tf32$tf" 30 15 bash -c 'torch_step "$@"' _ "$tf" step --model "$m" --batch "$b" --device cuda --steps "$STEPS"
        S_STATUS=$STATUS S_DETAIL=$DETAIL
        bench_row "$m" "$b" torch - "$tf"
      done
    fi
  done
done

# Reruns.
RERUN=${GPU_RERUN:-}
if [ -z "$RERUN" ]; then
  for f in "$W"/failed-test_*; do
    [ -s "$f" ] || continue
    n=${f##*/failed-test_}
    RERUN="$RERUN $n:^($(paste -sd'|' "$f"))\$"
  done
fi
for r in $RERUN; do
  n=${r%%:*} filt=${r#*:}
  [ -x "$BIN/$n.test" ] || { NAME=rerun_$n STATUS=FAIL DT=0 LIM=0 DETAIL="no $n.test"; done_step; continue; }
  l=$(limit 60 0)
  step "rerun_$n" 60 0 env CUDA_LAUNCH_BLOCKING=${CUDA_LAUNCH_BLOCKING:-1} "$D/in_pkg.sh" "$n" "$BIN/$n.test" -test.v -test.run "$filt" -test.timeout "$((l > 8 ? l - 3 : 5))s"
  [ "$STATUS" = SKIP ] || test_verdict
  DETAIL="$DETAIL (filter $filt)"
  done_step
done
finish
