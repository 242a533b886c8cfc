#!/usr/bin/env bash
# The whole GPU calibration of one node (docs/calibration.md): capture GEMMs, grouped GEMMs and
# (with 2 or more GPUs) all-to-alls, fit a hardware profile on the even rows and check it on the
# odd ones, compare the spec-sheet profile, fit the final profile on all rows, and simulate a
# scenario with it. Designed to finish in a few minutes on one 8-GPU H200 node:
#
#   tools/calibrate-gpu.sh                 # build with CUDA, test the kernels, then the flow
#   tools/calibrate-gpu.sh --dry-run       # the same flow on the fake backend: no GPU, no CUDA
#                                          # build; analytic timings (CI runs this: ctest -R dry_run)
#   BASE=h100 tools/calibrate-gpu.sh       # another spec-sheet base profile (default h200)
#   MOESIM=path/to/moesim ...              # skip the build (a moesim built with CUDA, or any for --dry-run)
#   TESTS=build-gpu/tests ...              # with MOESIM: run the GPU tests from this prebuilt directory first
#   MPI=1 ...                              # all-to-all with one process per GPU (mpirun) instead of one process
#   GPUS=4 ...                             # all-to-all on the first 4 GPUs (default: every visible one)
#
# Writes into OUT (default calibration/data; for --dry-run a scratch directory, never
# calibration/data): <base>_<suite>_<dtype>.csv per capture, <name>.yaml (the profile),
# <name>-heldout-residuals.csv, <name>-scenario.yaml and the scenario's outputs in <name>-run/.
# Every step prints its start time; any failing step stops the script with its exit code.
set -euo pipefail
cd "$(dirname "$0")/.."

DRY_RUN=0
for arg in "$@"; do
  case $arg in
    --dry-run) DRY_RUN=1 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "calibrate-gpu.sh: unknown argument '$arg' (valid: --dry-run)" >&2; exit 2 ;;
  esac
done

BASE=${BASE:-h200}
NAME=${NAME:-$BASE-measured}
BUILD=${BUILD:-build-gpu}
STEP_TIMEOUT=${STEP_TIMEOUT:-300}   # seconds per capture; each takes well under that on an H200
MOESIM=${MOESIM:-}
TESTS=${TESTS:-}
MPI=${MPI:-0}
if [[ $DRY_RUN == 1 ]]; then
  BACKEND=fake
  OUT=${OUT:-${TMPDIR:-/tmp}/moesim-calibrate-dry-run}
  MOESIM=${MOESIM:-build/tools/moesim}
  [[ -x $MOESIM ]] || { echo "calibrate-gpu.sh --dry-run: no moesim at '$MOESIM' (make build, or set MOESIM)" >&2; exit 2; }
else
  BACKEND=cuda
  OUT=${OUT:-calibration/data}
fi
start=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start)) s)"; }

if [[ -z $MOESIM ]]; then
  step "build with CUDA in $BUILD"
  command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOESIM_CUDA=ON -DMOESIM_BENCH=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >/dev/null
  cmake --build "$BUILD" -j "$(nproc)" --target moesim kernels_cuda_tests calibration_capture_tests
  MOESIM=$BUILD/tools/moesim
  TESTS=$BUILD/tests
fi
if [[ -n $TESTS && $DRY_RUN == 0 ]]; then
  step "GPU kernels against the CPU reference, the capture's GPU path"
  "$TESTS/kernels_cuda_tests"
  "$TESTS/calibration_capture_tests" --gtest_filter='CaptureOnGpu.*'
fi

if [[ $DRY_RUN == 1 ]]; then
  if [[ $(realpath -m "$OUT") == $(realpath -m calibration/data) ]]; then
    echo "calibrate-gpu.sh --dry-run: OUT must not be calibration/data (the fake backend's files are not measurements)" >&2
    exit 2
  fi
  step "dry run: fake backend (analytic timings, nothing is measured) into $OUT"
  gpus=${GPUS:-8}
else
  # The clocks-event reasons field has two names (drivers before R535 know only the older one);
  # a query nvidia-smi refuses must not stop the run.
  query=index,name,driver_version,clocks.sm,clocks.max.sm,power.limit
  nvidia-smi --query-gpu=$query,clocks_event_reasons.active --format=csv 2>/dev/null ||
    nvidia-smi --query-gpu=$query,clocks_throttle_reasons.active --format=csv 2>/dev/null ||
    echo "   (nvidia-smi could not be queried)"
  gpus=${GPUS:-$( (nvidia-smi -L 2>/dev/null || true) | grep -c '^GPU' || true)}
fi
mkdir -p "$OUT"

files=()
capture() {  # suite dtype
  local f="$OUT/${BASE}_${1//-/_}_$2.csv"
  step "capture $1 $2 -> $f"
  timeout "$STEP_TIMEOUT" "$MOESIM" calibrate capture --backend "$BACKEND" --suite "$1" ${2:+--dtype "$2"} -q -o "$f"
  echo "   $(grep -vc '^#' "$f") lines (header included); $(grep -E '^# (gemm_kernel|exposed_launches|throttled_cases|skipped_cases):' "$f" | sed 's/^# //' | paste -sd ';' | sed 's/;/; /g')"
  files+=("$f")
}
capture grouped-gemm bf16
capture grouped-gemm fp8
capture gemm bf16
capture gemm fp8

if ((gpus >= 2)); then
  a2a="$OUT/${BASE}_alltoall.csv"
  if [[ $MPI == 1 ]]; then
    step "capture alltoall on $gpus GPUs, one process each (mpirun) -> $a2a"
    timeout "$STEP_TIMEOUT" mpirun -np "$gpus" "$MOESIM" calibrate capture --backend "$BACKEND" --suite alltoall \
      --launcher mpi -q -o "$a2a"
  else
    step "capture alltoall on $gpus GPUs, one process -> $a2a"
    timeout "$STEP_TIMEOUT" "$MOESIM" calibrate capture --backend "$BACKEND" --suite alltoall --ranks "$gpus" -q -o "$a2a"
  fi
  echo "   $(grep -vc '^#' "$a2a") lines (header included); $(grep -E '^# (launcher|exposed_launches|throttled_cases):' "$a2a" | sed 's/^# //' | paste -sd ';' | sed 's/;/; /g')"
  files+=("$a2a")
else
  step "alltoall skipped: $gpus GPU visible (needs 2)"
fi

step "fit on the even rows, check on the odd rows (held out)"
"$MOESIM" calibrate fit "${files[@]}" --base "$BASE" --rows even --name "$NAME-even" -o "$OUT/$NAME-even.yaml"
"$MOESIM" calibrate check "$OUT/$NAME-even.yaml" "${files[@]}" --rows odd --worst 10 --max-median-error 1 \
  --residuals "$OUT/$NAME-heldout-residuals.csv"

step "the spec-sheet profile '$BASE' (DeepGEMM H800 fit on its peaks) on all rows, for comparison"
"$MOESIM" calibrate check "$BASE" "${files[@]}" --worst 5 --max-median-error 1

step "final profile: all rows"
"$MOESIM" calibrate fit "${files[@]}" --base "$BASE" --name "$NAME" -o "$OUT/$NAME.yaml"
rm -f "$OUT/$NAME-even.yaml"
if [[ $DRY_RUN == 1 ]]; then
  # The fake's timings follow a fixed analytic curve: a fit that cannot match it within the
  # default 15 % median error has lost rows or parameters on the way.
  "$MOESIM" calibrate check "$OUT/$NAME.yaml" "${files[@]}" --worst 3
fi

step "a scenario with the fitted profile: Qwen3-30B-A3B, EP8 on one node"
cat >"$OUT/$NAME-scenario.yaml" <<EOF
# Written by tools/calibrate-gpu.sh: a scenario on the profile fitted next to it.
name: $NAME-check
seed: 1
model: qwen3-30b-a3b
hardware: {file: $NAME.yaml}
cluster: {preset: hgx, nodes: 1}
deployment:
  colocated:
    ranks: 8
    moe: {ep: 8}
    batch: {max_running_per_rank: 32, token_budget_per_rank: 2048}
workload:
  requests: 200
  arrivals: {process: poisson, rate: 20/s}
  input_tokens: {dist: fixed, value: 1000}
  output_tokens: {dist: fixed, value: 100}
slo: {ttft_p90: 2s, tpot_p90: 50ms}
EOF
"$MOESIM" run "$OUT/$NAME-scenario.yaml" -o "$OUT/$NAME-run" | grep -E '^moesim:|^  qwen3|^  TTFT|^  TPOT|throughput:|^      (dispatch|expert_gemm) |^  SLO'
step "done: ${files[*]} $OUT/$NAME.yaml $OUT/$NAME-heldout-residuals.csv $OUT/$NAME-run/"
