#!/usr/bin/env bash
# Every test: install what is missing, build with warnings as errors and run the GoogleTest
# suite; then build and run it again under AddressSanitizer + UndefinedBehaviorSanitizer; and,
# where nvcc is installed, compile the CUDA calibration kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/setup.sh

echo "== Release build (-Werror) and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSIM_WERROR=ON
cmake --build build --parallel "$jobs"
ctest --test-dir build --output-on-failure --parallel "$jobs"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSIM_WERROR=ON \
  -DGPUSIM_SANITIZE=ON -DGPUSIM_BUILD_BENCH=OFF -DGPUSIM_WITH_CUDA=OFF
cmake --build build-asan --parallel "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$jobs"
