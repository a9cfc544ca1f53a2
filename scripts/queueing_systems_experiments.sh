#!/usr/bin/env bash
# Issue 31's comparison: the queueing systems platform teams run, on Microsoft's Philly job log
# replayed 8x denser than its own times (where jobs queue: results/quota-philly/), with the same
# quotas for all (each virtual cluster deserves its share of the log's GPU-hours, traces/queues/):
#   proportion (Volcano, every virtual cluster weight 1), capacity (Volcano Queues with deserved GPUs),
#   kueue (ClusterQueues in one Cohort, reclaimWithinCohort: Any), kueue-fair-sharing (the same with
#   the Configuration's fairSharing), kueue-borrowing-limits (each may borrow at most its own quota
#   again), kai (KAI Queues under one parent, over-quota weight 1).
# Writes results/queueing-philly/: table.md (per system), queues.md (per virtual cluster), starved.md
# (the queue series of Kueue and KAI: time each queue was starved, why its workloads waited), the
# plots, and README.md's figures come from these (each system's time: the fastest of REPEATS runs). Per-run directories (runs/) are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/queueing-philly
mkdir -p "$dir"
rm -rf "$dir/runs"
q=traces/queues
declare -A configs=(
  [proportion]="--policy proportion"
  [capacity]="--policy capacity --config $q/philly-capacity-queues.yaml"
  [kueue]="--policy kueue --config $q/philly-kueue.yaml"
  [kueue-fair-sharing]="--policy kueue --config $q/philly-kueue.yaml --config $q/kueue-fair-sharing.yaml"
  [kueue-borrowing-limits]="--policy kueue --config $q/philly-kueue-borrowing-limits.yaml"
  [kai]="--policy kai --config $q/philly-kai.yaml"
)
systems=(proportion capacity kueue kueue-fair-sharing kueue-borrowing-limits kai)
# Each system runs REPEATS times (default 3), in rounds over all systems so that a slow spell of the
# machine falls on all of them alike; the tables keep each one's fastest wall time (timings.txt) and
# every run's is in timings-all.txt. Later rounds must give the first round's results, byte for byte.
repeats=${REPEATS:-3}
: > "$dir/timings-all.txt"
for round in $(seq 1 "$repeats"); do
  for s in "${systems[@]}"; do
    out="$dir/runs/$s"
    if [ "$round" -gt 1 ]; then out="$dir/runs/repeat"; rm -rf "$out"; fi
    # shellcheck disable=SC2086  # the options are words
    /usr/bin/time -f "$s %e %M" -a -o "$dir/timings-all.txt" \
      ./build/gpusim run --workload philly --mode replay --time-compression 8 ${configs[$s]} --out "$out" --quiet > /dev/null
    if [ "$round" -gt 1 ]; then
      for f in summary.json jobs.csv queue-series.csv; do
        [ ! -e "$dir/runs/$s/$f" ] || cmp -s "$dir/runs/$s/$f" "$out/$f" || { echo "$s: round $round's $f differs from the first" >&2; exit 1; }
      done
    fi
  done
done
rm -rf "$dir/runs/repeat"
# Per system: the fastest wall time, and the peak memory of that run.
sort -k1,1 -k2,2g "$dir/timings-all.txt" | awk '!seen[$1]++' > "$dir/timings.txt"
python3 scripts/queueing_systems_report.py "$dir" "${systems[@]}"
gnuplot -e "dir='$dir'" scripts/queueing_systems_plots.gp
rm -rf "$dir/runs"
cat "$dir/table.md" "$dir/queues.md" "$dir/starved.md"
