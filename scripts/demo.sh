#!/usr/bin/env bash
# The main job: install what is missing, build (Release), run the default policy comparison on
# the bundled openb trace (the FGD paper's experiment, 6 policies x 10 seeds) and write the
# report to results/openb-default-fill/.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel

out=${1:-results/openb-default-fill}
./build/gpusim compare --cluster openb --workload openb:default --mode fill --fill-target 1.3 \
  --policies random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd --seeds 10 --out "$out"
echo
cat "$out/report.md"
