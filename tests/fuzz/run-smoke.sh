#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, -DMOESIM_FUZZ=ON with clang) and runs each for a
# short fixed time on a copy of its committed seed corpus (corpus/<name>/ -> fuzz_<name>).
# Any crash, leak, sanitizer report, timeout or out-of-contract exception fails the script and
# leaves the reproducer in $FUZZ_DIR/artifacts/.
#
#   tests/fuzz/run-smoke.sh                 # 20 s per target
#   FUZZ_SECONDS=300 tests/fuzz/run-smoke.sh fuzz_scenario    # one target, longer
set -euo pipefail
cd "$(dirname "$0")/../.."

FUZZ_BUILD=${FUZZ_BUILD:-build-asan}  # make sanitize's build (clang, ASan + UBSan + libFuzzer)
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_DIR=${FUZZ_DIR:-$FUZZ_BUILD/fuzz-run}
CXX_FUZZ=${CXX_FUZZ:-clang++-14}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

targets=()
for dir in tests/fuzz/corpus/*/; do targets+=("fuzz_$(basename "$dir")"); done
if [[ $# -gt 0 ]]; then targets=("$@"); fi

if [[ ! -f $FUZZ_BUILD/build.ninja ]]; then
  CXX=$CXX_FUZZ cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DMOESIM_SANITIZE=ON -DMOESIM_FUZZ=ON \
    -DMOESIM_BENCH=OFF -DMOESIM_CUDA=OFF -DMOESIM_MPI=OFF
fi
cmake --build "$FUZZ_BUILD" -j "$JOBS" --target "${targets[@]}"

mkdir -p "$FUZZ_DIR/artifacts"
failed=()
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  work="$FUZZ_DIR/corpus/$name"
  rm -rf "$work" && mkdir -p "$work"
  echo "== $t: ${FUZZ_SECONDS} s"
  # The first folder collects new inputs; the committed seeds are only read.
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$FUZZ_BUILD/tests/fuzz/$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -max_len=16384 -print_final_stats=1 -artifact_prefix="$FUZZ_DIR/artifacts/$name-" \
      "$work" "tests/fuzz/corpus/$name" >"$FUZZ_DIR/$name.log" 2>&1; then
    failed+=("$t")
    tail -40 "$FUZZ_DIR/$name.log"
  fi
  grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$FUZZ_DIR/$name.log" | tail -2 || true
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz smoke: FAILED: ${failed[*]} (reproducers in $FUZZ_DIR/artifacts/)" >&2
  exit 1
fi
echo "fuzz smoke: ${#targets[@]} targets ran ${FUZZ_SECONDS} s each without a finding"
