#!/usr/bin/env bash
# Queue quotas on Microsoft's Philly job log, replayed on the Philly-like cluster with arrivals 8x
# denser than the log's (at its own times the cluster never queues: results/philly-replay/):
# dominant resource fairness (drf, no quotas), proportion (every virtual cluster weight 1) and
# capacity with Volcano Queues (traces/queues/philly-capacity-queues.yaml: each virtual cluster
# deserves its share of the log's GPU-hours, in whole GPUs). results/quota-philly/compression-8/ is a gpusim output
# directory; table.md collects the metrics and queues.md the per-queue mean JCTs. Per-run files
# (runs/) are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/quota-philly
mkdir -p "$dir"
./build/gpusim trace inspect --workload philly | sed -n '/^queues:/,/^$/p' > "$dir/queues-inspect.txt"
for p in drf proportion capacity; do
  policy=(--policy "$p")
  # proportion from Volcano's own files, the same run as the built-in one (traces/queues/README.md).
  [[ $p == proportion ]] && policy=(--config traces/queues/philly-proportion-configmap.yaml
    --config traces/queues/philly-queues.yaml)
  [[ $p == capacity ]] && policy+=(--config traces/queues/philly-capacity-queues.yaml)
  /usr/bin/time -f "$p: %e s wall, %M KB max RSS" \
    ./build/gpusim run --workload philly --mode replay --time-compression 8 "${policy[@]}" \
    --out "$dir/runs-$p" > /dev/null
done
# One comparison directory (report, CDF plot) for the three: compare runs them again, in parallel. The
# Queues' weights are all 1, so proportion runs as it does without them.
./build/gpusim compare --workload philly --mode replay --time-compression 8 --policies drf,proportion,capacity \
  --config traces/queues/philly-capacity-queues.yaml --seeds 1 --out "$dir/compression-8" > /dev/null

h() { jq -r "(. / 3600 * 100 | round) / 100"; }
r2() { jq -r '(. * 100 | round) / 100'; }
s=$dir/compression-8/summary.json
{
  echo "| policy | mean JCT (h) | p50 JCT (h) | p95 JCT (h) | p99 JCT (h) | mean queueing (h) | Jain's index of queue slowdowns | reclaim evictions | GPU-hours lost to reclaim | GPUs allocated (%) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for p in drf proportion capacity; do
    m() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | .[$m].mean' "$s"; }
    pm() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | (.[$m].mean // null) | if . == null then "–" else (. * 100 | round) / 100 end' "$s"; }
    echo "| $p | $(m job_mean_jct_s | h) | $(m job_p50_jct_s | h) | $(m job_p95_jct_s | h) | $(m job_p99_jct_s | h) | $(m job_mean_queueing_s | h) | $(m queue_slowdown_jain | r2) | $(pm reclaim_evictions) | $(pm gpu_hours_lost_to_preemption) | $(m mean_gpu_allocation_pct | r2) |"
  done
} > "$dir/table.md"
# Per virtual cluster: jobs, deserved GPUs (capacity), and the mean JCT (h) under each policy.
{
  echo "| queue | jobs | GPU-hours | deserved GPUs (capacity) | drf mean JCT (h) | proportion mean JCT (h) | capacity mean JCT (h) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  tail -n +2 "$dir/compression-8/runs/drf/seed-42/queues.csv" | while IFS=, read -r q jobs _ gh _; do
    des=$(grep -A 6 "name: \"$q\"" traces/queues/philly-capacity-queues.yaml | awk '/nvidia.com\/gpu:/ {print $2}')
    jct() { awk -F, -v q="$q" '$1 == q { printf "%.2f", $5 / 3600 }' "$dir/compression-8/runs/$1/seed-42/queues.csv"; }
    echo "| $q | $jobs | $(printf %.0f "$gh") | $des | $(jct drf) | $(jct proportion) | $(jct capacity) |"
  done
} > "$dir/queues.md"
rm -rf "$dir"/runs-*
cat "$dir/table.md" "$dir/queues.md"
