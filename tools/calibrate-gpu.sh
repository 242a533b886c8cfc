#!/usr/bin/env bash
# Captures GEMM calibration data on one GPU, fits a hardware profile and prints its held-out
# residuals (docs/calibration.md). Designed to finish in a few minutes on one H200:
#
#   tools/calibrate-gpu.sh                 # build with CUDA, test the kernels, capture, fit, check
#   BASE=h100 tools/calibrate-gpu.sh       # another spec-sheet base profile
#   MOESIM=path/to/moesim tools/calibrate-gpu.sh   # skip the build (a moesim built with CUDA)
#
# Captures (calibration/data/<base>_<suite>_<dtype>.csv, with their metadata): grouped GEMMs in
# BF16 and FP8 at the expert shapes of DeepSeek-V3, Qwen3-235B-A22B and Qwen3-30B-A3B (8, 16,
# 32 experts, 1..4096 rows per expert, uniform and zipf-skewed), and dense GEMMs in BF16 and FP8
# at the same shapes. Then: a profile fitted on the even rows of every file, checked on the odd
# rows (the held-out residuals); the spec-sheet base checked on all rows for comparison; and the
# final profile fitted on all rows (calibration/data/<base>-measured.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${BASE:-h200}
NAME=${NAME:-$BASE-measured}
OUT=${OUT:-calibration/data}
BUILD=${BUILD:-build-gpu}
STEP_TIMEOUT=${STEP_TIMEOUT:-240}   # seconds per capture; the whole suite takes far less on an H200
MOESIM=${MOESIM:-}
start=$(date +%s)

step() { echo "== $* ($(( $(date +%s) - start )) s)"; }

if [[ -z "$MOESIM" ]]; then
  step "build with CUDA in $BUILD"
  command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOESIM_CUDA=ON -DMOESIM_BENCH=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >/dev/null
  cmake --build "$BUILD" -j "$(nproc)" --target moesim kernels_cuda_tests
  MOESIM=$BUILD/tools/moesim
  step "GPU kernels against the CPU reference"
  "$BUILD/tests/kernels_cuda_tests"
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit \
  --format=csv || true

mkdir -p "$OUT"
files=()
capture() {  # suite dtype
  local f="$OUT/${BASE}_${1//-/_}_$2.csv"
  step "capture $1 $2 -> $f"
  timeout "$STEP_TIMEOUT" "$MOESIM" calibrate capture --backend cuda --suite "$1" --dtype "$2" -q -o "$f"
  echo "   $(grep -vc '^#' "$f") lines (header included)"
  files+=("$f")
}
capture grouped-gemm bf16
capture grouped-gemm fp8
capture gemm bf16
capture gemm fp8

step "fit on the even rows, check on the odd rows (held out)"
"$MOESIM" calibrate fit "${files[@]}" --base "$BASE" --rows even --name "$NAME-even" -o "$OUT/$NAME-even.yaml"
"$MOESIM" calibrate check "$OUT/$NAME-even.yaml" "${files[@]}" --rows odd --worst 15 --max-median-error 1 \
  --residuals "$OUT/$NAME-heldout-residuals.csv"

step "the spec-sheet profile '$BASE' (DeepGEMM H800 fit on its peaks) on all rows, for comparison"
"$MOESIM" calibrate check "$BASE" "${files[@]}" --worst 5 --max-median-error 1

step "final profile: all rows"
"$MOESIM" calibrate fit "${files[@]}" --base "$BASE" --name "$NAME" -o "$OUT/$NAME.yaml"
rm -f "$OUT/$NAME-even.yaml"
step "done: ${files[*]} $OUT/$NAME.yaml $OUT/$NAME-heldout-residuals.csv"
