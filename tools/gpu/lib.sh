# lib.sh: what call1.sh and call2.sh share (sourced, not run). See docs/gpu.md.
#
# Every step runs under `timeout`, its limit cut to the time the call has left (less what later steps
# reserve), its output straight into a capped log file under $R/logs (no tee, no pipe to wait for). Each
# finished step appends one line to $R/summary.txt and one row to $R/results.csv at once, so a call
# killed from outside still leaves the lines of the steps it finished.
#
# Knobs (environment, for a warm rerun without rebuilding):
#   GPU_BUDGET        seconds this call may take in all (call1 315, call2 170: under timeout_s 330/180)
#   GPU_TEST_RUN      a -test.run filter for every test binary (default: each binary's own)
#   GPU_TESTS         test binaries to run (names as in bin/, without .test; default all)
#   GPU_LOG_CAP       bytes kept of each log (default 2 MiB: its head and its tail)
#   GPU_EXTRA_LIBS    folders put first on LD_LIBRARY_PATH (the rehearsal's fake driver)
#   GPU_REQUIRE_GRAPHS=1  a failed CUDA graph capture fails the step (GOKERAS_REQUIRE_GRAPHS)
#   GPU_REHEARSAL_CPU=1   rehearsals only: the examples may run on the CPU (see setup)
#   CUDA_LAUNCH_BLOCKING, CUDNN_LOGLEVEL_DBG, NCCL_DEBUG: passed through; cuDNN's and NCCL's logs then go
#   to files under logs/ (CUDNN_LOGDEST_DBG, NCCL_DEBUG_FILE) unless those are set.

D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # the carried folder (.gpu)
W=${GPU_WORK:-$(dirname "$D")/.gpu-run}        # unpacked binaries, kept on a warm machine between calls
R=${OUT:-$W/out-$CALL}                         # results: the device tool's $OUT
mkdir -p "$R/logs" "$W"
START=$(date +%s)
BUDGET=${GPU_BUDGET:-$BUDGET_DEFAULT}
LOG_CAP=${GPU_LOG_CAP:-2097152}
SUMMARY=$R/summary.txt
CSV=$R/results.csv
FAILED=0
[ -f "$CSV" ] || echo "call,step,status,seconds,limit_s,detail" > "$CSV"

now() { date +%s; }
elapsed() { echo $(($(now) - START)); }
left() { echo $((BUDGET - $(elapsed))); }

# say LINE: one line to the summary and to stdout.
say() { printf '%s\n' "$*" >> "$SUMMARY"; printf '%s\n' "$*"; }

# csv STEP STATUS SECONDS LIMIT DETAIL
csv() { printf '%s,%s,%s,%s,%s,"%s"\n' "$CALL" "$1" "$2" "$3" "$4" "$(printf '%s' "$5" | tr '"\n' "' ")" >> "$CSV"; }

# cap FILE: keep the first quarter and the last three quarters of LOG_CAP bytes of FILE.
cap() {
  local f=$1 n
  [ -f "$f" ] || return 0
  n=$(stat -c %s "$f")
  [ "$n" -le "$LOG_CAP" ] && return 0
  { head -c $((LOG_CAP / 4)) "$f"; printf '\n... [%d bytes cut by lib.sh] ...\n' $((n - LOG_CAP)); tail -c $((LOG_CAP * 3 / 4)) "$f"; } > "$f.cap"
  mv "$f.cap" "$f"
}

# limit MAX RESERVE: MAX cut to the time left less RESERVE seconds kept for later steps.
limit() {
  local l=$(($(left) - $2))
  [ "$1" -lt "$l" ] && l=$1
  echo "$l"
}

# step NAME MAX RESERVE CMD...: run CMD, its output in logs/NAME.log, within limit MAX RESERVE; sets RC,
# DT and LIM, and STATUS to PASS, FAIL, TIME or SKIP (under 5 seconds left). The caller may then change
# STATUS and DETAIL and must call done_step.
step() {
  NAME=$1 LIM=$(limit "$2" "$3") LOGF=$R/logs/$1.log DETAIL=""
  shift 3
  if [ "$LIM" -lt 5 ]; then
    RC=-1 DT=0 STATUS=SKIP DETAIL="out of time ($(left)s left)" LOGF=/dev/null
    return
  fi
  echo "[$(elapsed)s] $NAME (limit ${LIM}s)"
  local t0; t0=$(now)
  { echo "+ $*"; echo "+ limit ${LIM}s, $(elapsed)s into the call"; } > "$LOGF"
  timeout -k 5 "$LIM" "$@" >> "$LOGF" 2>&1 < /dev/null
  RC=$?
  DT=$(($(now) - t0))
  echo "---- exit $RC after ${DT}s" >> "$LOGF"
  cap "$LOGF"
  case $RC in
  0) STATUS=PASS ;;
  124 | 137) STATUS=TIME DETAIL="killed at ${LIM}s" ;;
  *) STATUS=FAIL DETAIL="exit $RC: $(grep -vE '^(---- exit|\+ )' "$LOGF" | grep -v '^\s*$' | tail -1 | cut -c1-160)" ;;
  esac
}

done_step() {
  [ "$STATUS" = PASS ] || [ "$STATUS" = INFO ] || FAILED=$((FAILED + 1))
  say "$(printf '%-4s %-34s %4ss  %s' "$STATUS" "$NAME" "$DT" "$DETAIL")"
  csv "$NAME" "$STATUS" "$DT" "$LIM" "$DETAIL"
}

# test_verdict: for a Go test binary's log, counts and the first failures; a skipped test fails the step
# (GOKERAS_REQUIRE_GPU=1 is set: on a GPU machine nothing may skip).
test_verdict() {
  local pass fail skip names
  pass=$(grep -cE '^ *--- PASS' "$LOGF")
  fail=$(grep -cE '^ *--- FAIL' "$LOGF")
  skip=$(grep -cE '^ *--- SKIP' "$LOGF")
  DETAIL="$DETAIL${DETAIL:+; }pass $pass fail $fail skip $skip"
  names=$(grep -E '^ *--- (FAIL|SKIP)' "$LOGF" | awk '{print $3}' | head -5 | paste -sd' ')
  [ -n "$names" ] && DETAIL="$DETAIL: $names"
  if [ "$STATUS" = PASS ] && [ "$skip" -gt 0 ]; then STATUS=FAIL DETAIL="$DETAIL (a skipped GPU test is a failure)"; fi
  if [ "$STATUS" = PASS ] && [ "$pass" -eq 0 ]; then STATUS=FAIL DETAIL="$DETAIL (no test ran: filter?)"; fi
  grep -E '^ *--- FAIL' "$LOGF" | awk '{print $3}' | grep -v / > "$W/failed-$NAME" || true
  return 0
}

# setup: the environment of the GPU machine's libraries, then the binaries unpacked (once per build).
setup() {
  local t0; t0=$(now)
  # The NVIDIA wheels' library folders: site-packages from python3 (under a timeout), their nvidia/*/lib.
  local sp libs=""
  sp=$(timeout 20 python3 -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null | sort -u)
  for s in $sp; do
    [ -d "$s/nvidia" ] || continue
    for l in "$s"/nvidia/*/lib "$s"/nvidia/*/lib64 "$s"/nvidia/cu*/lib; do
      [ -d "$l" ] && libs="$libs${libs:+:}$l"
    done
  done
  # The driver's libcuda.so.1 where the dynamic linker does not know it (a mounted driver folder).
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/compat; do
      [ -e "$d/libcuda.so.1" ] && libs="$libs${libs:+:}$d"
    done
  fi
  export LD_LIBRARY_PATH=${GPU_EXTRA_LIBS:+$GPU_EXTRA_LIBS:}$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export GOKERAS_REQUIRE_GPU=1 GOKERAS_CUDA_VERBOSE=1 GOKERAS_DATASETS=$D/data
  # GPU_REHEARSAL_CPU=1 (rehearsals with the fake driver only): let the examples run on the CPU, so that
  # their steps take real time (the limits and the budget are exercised); such steps still fail, having
  # prepared no GPU program.
  [ "${GPU_REHEARSAL_CPU:-}" = 1 ] && unset GOKERAS_REQUIRE_GPU
  [ "${GPU_REQUIRE_GRAPHS:-}" = 1 ] && export GOKERAS_REQUIRE_GRAPHS=1
  if [ -n "${CUDNN_LOGLEVEL_DBG:-}" ]; then export CUDNN_LOGLEVEL_DBG CUDNN_LOGDEST_DBG=${CUDNN_LOGDEST_DBG:-$R/logs/cudnn_api.log}; fi
  if [ -n "${NCCL_DEBUG:-}" ]; then export NCCL_DEBUG NCCL_DEBUG_FILE=${NCCL_DEBUG_FILE:-$R/logs/nccl.%h.%p.log}; fi
  [ -n "${CUDA_LAUNCH_BLOCKING:-}" ] && export CUDA_LAUNCH_BLOCKING
  # The binaries: unpacked into $W (outside the carried folder, which each carry replaces).
  local id; id=$(cat "$D/BUILD_ID" 2>/dev/null || echo none)
  if [ "$(cat "$W/BUILD_ID" 2>/dev/null)" != "$id" ] || [ ! -d "$W/bin" ]; then
    rm -rf "$W/bin"
    timeout 60 python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$D/bin.tar.xz" "$W" &&
      echo "$id" > "$W/BUILD_ID"
  fi
  BIN=$W/bin
  {
    echo "gokeras GPU $CALL, build $id, $(date -u +%Y-%m-%dT%H:%M:%SZ), budget ${BUDGET}s"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    env | grep -E '^(CUDA_|CUDNN_|NCCL_|GOKERAS_|GPU_|NVIDIA_)' | sort
    ls -la "$BIN" 2>&1
  } > "$R/logs/setup.log"
  NAME=setup DT=$(($(now) - t0)) LIM=60 DETAIL="build $id"
  if [ -x "$BIN/preflight" ]; then STATUS=PASS; else STATUS=FAIL DETAIL="$DETAIL: no $BIN/preflight after unpacking"; fi
  done_step
}

# diagnostics: what to know when the GPU is not reachable (each command under a timeout).
diagnostics() {
  {
    echo "== ldconfig (cuda, nvidia)"; timeout 10 ldconfig -p 2>&1 | grep -E 'lib(cuda|nvidia|cudnn|nccl|cublas)'
    echo "== /dev/nvidia*"; ls -la /dev/nvidia* 2>&1
    echo "== /proc/driver/nvidia/version"; timeout 5 cat /proc/driver/nvidia/version 2>&1
    echo "== LD_LIBRARY_PATH"; echo "$LD_LIBRARY_PATH" | tr : '\n'
    echo "== the library folders"; for l in $(echo "$LD_LIBRARY_PATH" | tr : ' '); do ls "$l" 2>&1 | head -20 | sed "s|^|$l/|"; done
    echo "== pip (nvidia, torch)"; timeout 30 python3 -m pip list 2>/dev/null | grep -Ei 'nvidia|torch'
    echo "== preflight again with LD_DEBUG=libs (tail)"; LD_DEBUG=libs timeout 20 "$BIN/preflight" 2>&1 | tail -60
  } > "$R/logs/diagnostics.log" 2>&1
  cap "$R/logs/diagnostics.log"
}

finish() {
  say "$(printf '%s: %d step(s) not passed, %ss of %ss' "$CALL" "$FAILED" "$(elapsed)" "$BUDGET")"
  csv total "$([ "$FAILED" -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed)" "$BUDGET" "$FAILED not passed"
  echo "results: $R (summary.txt, results.csv, logs/)"
  [ "$FAILED" -eq 0 ]
}
