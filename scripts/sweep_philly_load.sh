#!/usr/bin/env bash
# The Philly load sweep (sweeps/philly-load.yaml: arrivals ÷1 to ÷8 x six queue and preemptive
# policies x 3 seeds = 144 replay cells) into results/sweeps/philly-load/: the merged table, report
# and plots. Per-cell outputs stay in WORK_DIR (reruns resume).
#   bash scripts/sweep_philly_load.sh [WORK_DIR]   (default /tmp/gpusim-philly-load)
exec bash "$(dirname "$0")/sweep_results.sh" philly-load "${1:-/tmp/gpusim-philly-load}"
