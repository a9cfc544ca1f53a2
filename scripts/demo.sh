#!/usr/bin/env bash
# The main job: install what is missing, build the simulator (Release), run the default policy comparison on
# the bundled openb trace (the FGD paper's experiment, 6 policies x 10 seeds) and write the
# report to results/openb-default-fill/.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# The configuration scripts/test.sh uses, so that it reuses these objects; but only the simulator
# is built here (the tests and benchmarks are most of a fresh build's time: scripts/test.sh builds
# them), and the CUDA calibration harness only where a GPU can run it.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSIM_WERROR=ON
targets=(gpusim)
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 &&
   ninja -C build -t targets all | grep -q '^gpusim-calib:'; then
  targets+=(gpusim-calib)
fi
cmake --build build --parallel --target "${targets[@]}"

out=${1:-results/openb-default-fill}
./build/gpusim compare --cluster openb --workload openb:default --mode fill --fill-target 1.3 \
  --policies random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd --seeds 10 --out "$out"
echo
cat "$out/report.md"
