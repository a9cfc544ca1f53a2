#!/usr/bin/env bash
# Every test: install what is missing, build with warnings as errors and run the GoogleTest
# suite (the CUDA calibration kernels compile in that build wherever nvcc is installed); then build
# and run the suite again under AddressSanitizer + UndefinedBehaviorSanitizer with clang-14, a build
# that also holds the libFuzzer targets; then fuzz every reader for a bounded time with them; then
# the regression gate.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/setup.sh

echo "== Release build (-Werror) and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSIM_WERROR=ON
cmake --build build --parallel "$jobs"
ctest --test-dir build --output-on-failure --parallel "$jobs"

# With nvcc installed (CI has it, without a GPU) the CUDA calibration kernels must have compiled.
if command -v nvcc > /dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  [[ -x build/gpusim-calib ]] || { echo "nvcc is installed but build/gpusim-calib was not built" >&2; exit 1; }
  echo "CUDA calibration kernels compiled: build/gpusim-calib (sm_80, sm_90)"
else
  echo "no nvcc: CUDA calibration kernels not built (the simulator needs none)"
fi

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (clang-14, libFuzzer-ready) and tests"
# One build for the sanitized suite and the fuzz targets (the fuzz build was a third build of the
# whole library, 6 of CI's 34 minutes). -O1 -g1: half the compile time of -O2 -g; line tables still
# give the sanitizers' reports file and line. No MPI: LeakSanitizer reports OpenMPI's own
# allocations at MPI_Finalize as leaks, so the MPI sweep's tests run in the release build only.
# The compiler named on the command line: a build-asan/ configured with GCC before (CI's sanitizer
# build was GCC's) is then configured afresh, where CXX alone would keep the cached compiler.
cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSIM_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DGPUSIM_FUZZ=ON -DGPUSIM_BUILD_BENCH=OFF -DGPUSIM_WITH_CUDA=OFF -DGPUSIM_WITH_MPI=OFF
cmake --build build-asan --parallel "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$jobs"

# 6 s each (every target, two at a time on CI's 2 cores) (campaigns: results/fuzz/).
echo "== libFuzzer: every reader's fuzz target, 6 s each"
FUZZ_BUILD=build-asan bash scripts/fuzz.sh smoke 6

echo "== Regression gate: metrics equal the baselines, hot-path instructions within the threshold (results/baselines/)"
bash scripts/gate.sh
