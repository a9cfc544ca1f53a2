#!/usr/bin/env bash
# The Philly load sweep (sweeps/philly-load.yaml: arrivals ÷1 to ÷8 x six queue and preemptive
# policies x 3 seeds = 144 replay cells) into results/sweeps/philly-load/: the merged table, report
# and plots. Per-cell outputs stay in WORK_DIR (reruns resume).
#   bash scripts/sweep_philly_load.sh [WORK_DIR]   (default /tmp/gpusim-philly-load)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/gpusim-philly-load}
results=results/sweeps/philly-load
mkdir -p "$results"
/usr/bin/time -f "%e s wall, %U s user, %S s system, %M KiB max RSS" \
  build/gpusim sweep sweeps/philly-load.yaml --out "$work" --threads "$(nproc)"
rm -rf "$results/plots"
cp -r "$work/merged/"{summary.json,cells.csv,groups.csv,report.md,plots} "$results/"
