#!/usr/bin/env bash
# tools/cost_growth.sh: issue 19's "How cost grows" sweep (docs/performance.md, "How cost grows (issue 19)").
#
# Times one training step (Adam, sparse categorical cross-entropy from logits, one fixed random batch) of
#   batch:  the seed CNN at batch 16, 32, 64, 128, 256, 512, 1024;
#   width:  the seed CNN at batch 64 with its convolutions' filters x 0.5, 1, 2, 4 (32F and 64F filters, the dense
#           layers as the seed: examples/benchmark -width, models.MNISTCNNWidth);
#   resnet: the seed ResNet at batch 16, 64, 256;
# in gokeras (examples/benchmark), TensorFlow (tools/tf_reference/tf_reference.py, jit_compile off) and PyTorch
# (../shared/reference/torch_reference.py; tools/tf_reference/torch_width.py for the width part), one process at a
# time, each with THREADS threads. pytorch_passive is the same PyTorch run with OMP_WAIT_POLICY=PASSIVE: on this shared
# 2-core machine, under other sessions' load, GNU OpenMP's spinning wait makes PyTorch's 2-thread step 5-20x slower
# than its 1-thread step (seed ResNet, batch 16, load 3-4: 686-1073 ms against 59 ms; passive wait 94 ms). Steps are chosen per point and implementation so that each timed loop lasts about
# TARGET_S seconds (from the same implementation's previous point, scaled by the GEMM FLOPs; at least 3 steps), after
# each implementation's own 3 warm-up steps.
#
# The floor is the step's GEMM FLOPs (models.StepFLOPs: 2·m·n·k of each forward GEMM, of each filter gradient and of
# each input gradient but the first layer's, as im2col products) divided by the machine's peak for THREADS threads:
# one core's rate on the square-512 GEMM (go test ./internal/kernels/ -bench 'Sgemm/square512.*/ours_1thread', the
# median of 3 runs, measured first unless PEAK_GFLOPS_CORE is set) x THREADS. x_floor is ms per step / floor ms
# (1: at the floor). samples/s is batch / mean step.
#
# Run from the repository root (needs Go, TensorFlow in ~/.cache/gokeras-keras-ref, python3-torch):
#   tools/cost_growth.sh                        # everything, one pass
#   PASSES=2 tools/cost_growth.sh               # two passes (each point's implementations interleaved in each)
#   PARTS="batch width" TARGET_S=2 tools/cost_growth.sh
# Environment: THREADS (2), PASSES (1), PARTS ("batch width resnet"), TARGET_S (3), BATCHES, WIDTHS,
#   RESNET_BATCHES, PEAK_GFLOPS_CORE (measured), TF_PY (~/.cache/gokeras-keras-ref/bin/python), TORCH_PY
#   (/usr/bin/python3), TORCH_REF (../shared/reference/torch_reference.py, or $GOKERAS_TORCH_REFERENCE), IMPLS
#   ("gokeras tensorflow pytorch pytorch_passive"), TIMEOUT_S (120: a run still going then is killed and shown as
#   "timeout"), LOG (raw output, default a temporary file, named at the end).
# Output: a line per run as it finishes, then one Markdown table per part (cells "pass 1 / pass 2 ..." with PASSES>1),
# with the load averages seen (the 1-minute figure before each run; the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${THREADS:-2}
PASSES=${PASSES:-1}
PARTS=${PARTS:-batch width resnet}
TARGET_S=${TARGET_S:-3}
BATCHES=${BATCHES:-16 32 64 128 256 512 1024}
WIDTHS=${WIDTHS:-0.5 1 2 4}
RESNET_BATCHES=${RESNET_BATCHES:-16 64 256}
TF_PY=${TF_PY:-$HOME/.cache/gokeras-keras-ref/bin/python}
TORCH_PY=${TORCH_PY:-/usr/bin/python3}
TORCH_REF=${TORCH_REF:-${GOKERAS_TORCH_REFERENCE:-../shared/reference/torch_reference.py}}
IMPLS=${IMPLS:-gokeras tensorflow pytorch pytorch_passive}
TIMEOUT_S=${TIMEOUT_S:-120}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
LOG=${LOG:-$(mktemp /tmp/cost_growth.XXXXXX.log)}
records=$work/records.tsv
: >"$records"

echo "# building examples/benchmark" >&2
go build -o "$work/bench" ./examples/benchmark

if [ -z "${PEAK_GFLOPS_CORE:-}" ]; then
  go test -c -o "$work/kernels.test" ./internal/kernels/
  rates=()
  for _ in 1 2 3; do
    rates+=("$("$work/kernels.test" -test.run '^$' -test.bench 'Sgemm/square512.*/ours_1thread' -test.benchtime 200x |
      awk '/GFLOP\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "GFLOP/s") print $i }')")
  done
  PEAK_GFLOPS_CORE=$(printf '%s\n' "${rates[@]}" | sort -g | sed -n 2p)
  echo "# one core's square-512 GEMM rate, 3 runs: ${rates[*]} GFLOP/s; median $PEAK_GFLOPS_CORE" | tee -a "$LOG"
fi
peak=$(awk -v c="$PEAK_GFLOPS_CORE" -v t="$THREADS" 'BEGIN { printf "%.1f", c * t }')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "# $cpu, $(nproc) CPUs; threads=$THREADS peak=$peak GFLOP/s ($PEAK_GFLOPS_CORE per core); target ${TARGET_S}s per run" | tee -a "$LOG"

# field KEY: the value of KEY=... on the first "step" line of stdin.
field() { awk -v k="$1" '$1 == "step" { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }'; }

declare -A last_ms last_gflop
# steps_for IMPL GFLOP: steps for about TARGET_S seconds, from IMPL's previous run scaled by FLOPs.
steps_for() {
  local ms=${last_ms[$1]:-} g=${last_gflop[$1]:-}
  if [ -z "$ms" ]; then
    case $1 in pytorch*) echo 5 ;; *) echo 20 ;; esac
    return
  fi
  awk -v t="$TARGET_S" -v ms="$ms" -v g0="$g" -v g="$2" \
    'BEGIN { est = ms * g / g0; n = int(t * 1000 / est); if (n < 3) n = 3; if (n > 500) n = 500; print n }'
}

# run PASS PART MODEL BATCH WIDTH: the three implementations at one point, one after another.
run_point() {
  local pass=$1 part=$2 model=$3 batch=$4 width=$5 gflop="" floor_ms=""
  # The FLOPs and the floor come from gokeras' count, whether or not gokeras is timed.
  local flop
  flop=$("$work/bench" -flops -model "$model" -batch "$batch" -width "$width" | awk '$1 == "flops" { for (i = 2; i <= NF; i++) if ($i ~ /^flop=/) print substr($i, 6) }')
  gflop=$(awk -v f="$flop" 'BEGIN { printf "%.4f", f / 1e9 }')
  floor_ms=$(awk -v f="$flop" -v p="$peak" 'BEGIN { printf "%.3f", f / 1e9 / p * 1000 }')
  for impl in $IMPLS; do
    local steps load out ms med cmd env=()
    steps=$(steps_for "$impl" "$gflop")
    load=$(cut -d' ' -f1 /proc/loadavg)
    case $impl in
      gokeras) cmd=("$work/bench" -model "$model" -batch "$batch" -width "$width" -threads "$THREADS" -steps "$steps" -floor-gflops "$peak") ;;
      tensorflow) cmd=("$TF_PY" tools/tf_reference/tf_reference.py step --model "$model" --batch "$batch" --threads "$THREADS"
                       --steps "$steps" --jit off --infer-steps 1 --width "$width") ;;
      pytorch | pytorch_passive)
        [ "$impl" = pytorch_passive ] && env=(OMP_WAIT_POLICY=PASSIVE)
        if [ "$part" = width ]; then
          cmd=("$TORCH_PY" tools/tf_reference/torch_width.py --torch-reference "$TORCH_REF" step --batch "$batch"
               --threads "$THREADS" --steps "$steps" --width "$width")
        else
          cmd=("$TORCH_PY" "$TORCH_REF" step --model "$model" --batch "$batch" --threads "$THREADS" --steps "$steps")
        fi ;;
      *) echo "unknown implementation $impl" >&2; exit 2 ;;
    esac
    echo "\$ ${env[*]} ${cmd[*]}" >>"$LOG"
    local rc=0
    out=$(env "${env[@]}" timeout "$TIMEOUT_S" "${cmd[@]}" 2>>"$LOG") || rc=$?
    echo "$out" >>"$LOG"
    ms=$(echo "$out" | field ms_per_step)
    med=$(echo "$out" | field median_ms)
    if [ -z "$ms" ]; then
      if [ "$rc" = 124 ]; then
        echo "pass=$pass part=$part model=$model batch=$batch width=$width impl=$impl steps=$steps TIMEOUT after ${TIMEOUT_S}s load1=$load"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\ttimeout\t-\t%s\t%s\t%s\n' "$pass" "$part" "$model" "$batch" "$width" "$impl" \
          "$steps" "$gflop" "$floor_ms" "$load" >>"$records"
      else
        echo "pass=$pass part=$part model=$model batch=$batch width=$width impl=$impl FAILED (exit $rc; see $LOG)"
      fi
      continue
    fi
    last_ms[$impl]=$ms
    last_gflop[$impl]=$gflop
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pass" "$part" "$model" "$batch" "$width" "$impl" \
      "$steps" "$ms" "${med:--}" "$gflop" "$floor_ms" "$load" >>"$records"
    awk -v p="$pass" -v part="$part" -v m="$model" -v b="$batch" -v w="$width" -v i="$impl" -v s="$steps" \
      -v ms="$ms" -v med="${med:--}" -v g="$gflop" -v f="$floor_ms" -v l="$load" 'BEGIN {
      printf "pass=%s part=%s model=%s batch=%s width=%s impl=%s steps=%s ms_per_step=%s median_ms=%s samples_per_s=%.0f gflop=%s floor_ms=%s x_floor=%.2f load1=%s\n",
        p, part, m, b, w, i, s, ms, med, b / ms * 1000, g, f, ms / f, l }'
  done
}

for pass in $(seq 1 "$PASSES"); do
  for part in $PARTS; do
    case $part in
      batch) for b in $BATCHES; do run_point "$pass" batch mnist_cnn "$b" 1; done ;;
      width) for w in $WIDTHS; do run_point "$pass" width mnist_cnn 64 "$w"; done ;;
      resnet) for b in $RESNET_BATCHES; do run_point "$pass" resnet resnet_seed "$b" 1; done ;;
      *) echo "unknown part $part (batch, width, resnet)" >&2; exit 2 ;;
    esac
  done
done

# One Markdown table per part: a row per point, for each implementation ms per step, samples/s and x floor (passes
# joined by " / "), then the load averages seen at that point.
for part in $PARTS; do
  echo
  echo "part=$part threads=$THREADS peak=$peak GFLOP/s (x_floor = ms per step / floor ms)"
  awk -F'\t' -v part="$part" -v impls="$IMPLS" '
    $2 == part {
      key = $4 SUBSEP $5
      if (!(key in seen)) { seen[key] = 1; keys[++nk] = key; gf[key] = $10; fl[key] = $11 }
      c = $6 SUBSEP key
      to = ($8 == "timeout")
      ms[c] = ms[c] (ms[c] == "" ? "" : " / ") $8
      sps[c] = sps[c] (sps[c] == "" ? "" : " / ") (to ? "-" : sprintf("%.0f", $4 / $8 * 1000))
      xf[c] = xf[c] (xf[c] == "" ? "" : " / ") (to ? "-" : sprintf("%.1f", $8 / $11))
      if (!(key in lo) || $12 < lo[key]) lo[key] = $12
      if (!(key in hi) || $12 > hi[key]) hi[key] = $12
    }
    END {
      n = split(impls, im, " ")
      h = "| batch | width | GFLOP | floor ms |"; s = "|---:|---:|---:|---:|"
      for (i = 1; i <= n; i++) { h = h " " im[i] " ms | " im[i] " samples/s | " im[i] " x floor |"; s = s "---:|---:|---:|" }
      print h " load |"; print s "---|"
      for (k = 1; k <= nk; k++) {
        split(keys[k], bw, SUBSEP)
        row = sprintf("| %s | %s | %.3f | %.2f |", bw[1], bw[2], gf[keys[k]], fl[keys[k]])
        for (i = 1; i <= n; i++) {
          c = im[i] SUBSEP keys[k]
          row = row sprintf(" %s | %s | %s |", (c in ms) ? ms[c] : "-", (c in sps) ? sps[c] : "-", (c in xf) ? xf[c] : "-")
        }
        print row sprintf(" %s-%s |", lo[keys[k]], hi[keys[k]])
      }
    }' "$records"
done
echo
echo "raw output: $LOG"
