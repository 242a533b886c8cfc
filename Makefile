# moesim: the everyday commands (README.md). Each target installs what is missing first.
#
#   make build      Release build in build/ of everything: simulator, tests, benchmarks (Ninja,
#                   warnings as errors on a fresh configure)
#   make run        install only what the simulator needs, build only the moesim binary, then
#                   simulate SCENARIO into OUT and print the report
#   make test       build, then run the whole test suite
#   make sanitize   build in build-asan/ with clang, ASan + UBSan and run the suite there; when
#                   build/ has run its tests too, check both wrote byte-identical golden summaries
#   make fuzz       run each libFuzzer target of build-asan/ for FUZZ_SECONDS on its corpus
#   make bench      build, then run the Google Benchmark programs (BENCH_ARGS passed through)
#   make clean      remove build/ and build-asan/ (out/ is left alone)

SHELL := /bin/bash
.DEFAULT_GOAL := build

BUILD_DIR ?= build
ASAN_DIR ?= build-asan
SCENARIO ?= scenarios/library/dsv3-h800-32gpu.yaml
OUT ?= out/$(basename $(notdir $(SCENARIO)))
BENCH_ARGS ?=
CXX_SANITIZE ?= clang++-14
FUZZ_SECONDS ?= 20
# Parallel jobs: every CPU this machine has, and no more.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

MOESIM := $(BUILD_DIR)/tools/moesim

.PHONY: deps deps-run configure-all build run test sanitize fuzz bench clean

deps:
	@tools/install-deps all

deps-run:
	@tools/install-deps run

# Configure only when the build directory has not been configured yet (then without the test and
# benchmark suites, whose frameworks `make run` does not install); afterwards the build re-runs
# CMake by itself whenever a CMakeLists.txt changes.
$(BUILD_DIR)/build.ninja: | deps-run
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOESIM_WERROR=ON \
	  -DMOESIM_TESTS=OFF -DMOESIM_BENCH=OFF

# Everything: configure with the suites, or turn them on in a build directory configured without.
configure-all: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOESIM_WERROR=ON -DMOESIM_TESTS=ON -DMOESIM_BENCH=ON; \
	elif ! grep -q '^MOESIM_TESTS:BOOL=ON' $(BUILD_DIR)/CMakeCache.txt || \
	     ! grep -q '^MOESIM_BENCH:BOOL=ON' $(BUILD_DIR)/CMakeCache.txt; then \
	  cmake -S . -B $(BUILD_DIR) -DMOESIM_TESTS=ON -DMOESIM_BENCH=ON; \
	fi

# The sanitizer build is clang's, so that the same build also holds the libFuzzer targets
# (make fuzz): one instrumented build of the libraries serves both. -O1 with line tables is
# what the sanitizers' reports need. No MPI under the sanitizers: LeakSanitizer reports
# Open MPI's own allocations in MPI_Init.
$(ASAN_DIR)/build.ninja: | deps
	CXX=$(CXX_SANITIZE) cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DMOESIM_SANITIZE=ON -DMOESIM_FUZZ=ON \
	  -DMOESIM_BENCH=OFF -DMOESIM_CUDA=OFF -DMOESIM_MPI=OFF

build: configure-all
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: deps-run $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target moesim
	$(MOESIM) run $(SCENARIO) -o $(OUT)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# Tests left to the Release build here: the source-format check runs clang-format and no
# instrumented code; the validation suite and the metrics lock's figures simulate the published
# and library deployments at full size (5 and 18 minutes under the sanitizers), paths the rest of
# the suite covers at small sizes (LibraryScenarios runs every shipped scenario). That the two
# builds compute the same figures is checked below on the golden summaries (tools/compare-builds).
# That thread counts change no output is checked on every scenario here in Release
# (LibraryScenarios.ThreadsChangeNoOutput, 2 runs of each) and under the sanitizers on four
# instances (ParallelSteps.*).
SANITIZE_SKIP ?= ^(Format\.SourcesMatchClangFormat|ValidationSuite\.EveryCaseStaysInsideItsBand|LibraryScenarios\.ThreadsChangeNoOutput)$$|MetricsLock\.FiguresMatchTheLock/

sanitize: deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS) -E '$(SANITIZE_SKIP)'
	@if [ -d $(BUILD_DIR)/golden ]; then tools/compare-builds $(BUILD_DIR) $(ASAN_DIR); \
	else echo "make sanitize: no $(BUILD_DIR)/golden (run make test first) - cross-build check skipped"; fi

fuzz: deps $(ASAN_DIR)/build.ninja
	FUZZ_BUILD=$(ASAN_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run-smoke.sh

bench: build
	@set -e; found=0; \
	for prog in $$(find $(BUILD_DIR)/tools -maxdepth 2 -type f -name 'bench_*' -perm -u+x | sort); do \
	  found=1; echo "== $$prog"; "$$prog" $(BENCH_ARGS); \
	done; \
	if [ $$found -eq 0 ]; then echo "make bench: no benchmark programs in $(BUILD_DIR)/tools" \
	  "(configured with -DMOESIM_BENCH=OFF?)" >&2; exit 1; fi

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
