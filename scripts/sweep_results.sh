#!/usr/bin/env bash
# Runs a bundled sweep (sweeps/NAME.yaml) and copies its merged table, report and plots into
# results/sweeps/NAME/. Per-cell outputs stay in WORK_DIR (reruns resume).
#   bash scripts/sweep_results.sh NAME [WORK_DIR]   (default /tmp/gpusim-sweep-NAME)
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: sweep_results.sh NAME [WORK_DIR] (a sweep in sweeps/NAME.yaml)}
[[ -f sweeps/$name.yaml ]] || { echo "sweep_results.sh: no sweeps/$name.yaml" >&2; exit 1; }
work=${2:-/tmp/gpusim-sweep-$name}
results=results/sweeps/$name
mkdir -p "$results"
/usr/bin/time -f "%e s wall, %U s user, %S s system, %M KiB max RSS" \
  build/gpusim sweep "sweeps/$name.yaml" --out "$work" --threads "$(nproc)"
rm -rf "$results/plots"
cp "$work/merged/"{summary.json,cells.csv,groups.csv,report.md} "$results/"
[[ -d $work/merged/plots ]] && cp -r "$work/merged/plots" "$results/"
exit 0
