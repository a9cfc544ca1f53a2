#!/usr/bin/env bash
# Queue and preemptive policies on Microsoft's Philly job log (82,247 jobs) and the bundled Philly-like cluster
# (2,490 GPUs; traces/data/philly/README.md), at the log's own arrival times and with arrivals 4x and
# 8x denser (--time-compression): results/philly-replay/compression-<K>/ are gpusim output
# directories (summary.json, report.md with the job table and the JCT CDF), and
# results/philly-replay/table.md collects their job metrics. Per-run files (runs/) are not
# committed: rerun this script for them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/philly-replay
mkdir -p "$dir"
# fifo-skip is a profile file, not a built-in name: its rows and folders are labelled by its `schedulerName` (fifo-skip),
# and summary.json and report.md name the file beside it.
policies=fifo,backfill,policies/profiles/fifo-skip.yaml,drf,sjf,tiresias,srtf
for k in 1 4 8; do
  /usr/bin/time -f "compression $k: %e s wall, %M KB max RSS" \
    ./build/gpusim compare --workload philly --mode replay --time-compression "$k" --policies "$policies" --seeds 1 \
    --out "$dir/compression-$k" > /dev/null
done

# hours, 2 decimals
h() { jq -r "(. / 3600 * 100 | round) / 100"; }
{
  echo "| arrivals ÷ | policy | mean JCT (h) | median JCT (h) | p95 JCT (h) | p99 JCT (h) | mean queueing (h) | mean slowdown | Jain over queues | GPUs allocated (%) | makespan (h) | preemptions | GPU-h lost to preemption |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for k in 1 4 8; do
    s=$dir/compression-$k/summary.json
    for p in $(jq -r '.policies[].name' "$s"); do
      m() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | .[$m].mean' "$s"; }
      # Preempting policies only ("–" for the others).
      pm() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | (.[$m].mean // null) | if . == null then "–" else ((. * 10 | round) / 10) end' "$s"; }
      echo "| $k | $p | $(m job_mean_jct_s | h) | $(m job_p50_jct_s | h) | $(m job_p95_jct_s | h) | $(m job_p99_jct_s | h) | $(m job_mean_queueing_s | h) | $(m job_mean_slowdown | jq -r '(. * 100 | round) / 100') | $(m queue_slowdown_jain | jq -r '(. * 1000 | round) / 1000') | $(m mean_gpu_allocation_pct | jq -r '(. * 100 | round) / 100') | $(m makespan_s | h) | $(pm preemptions) | $(pm gpu_hours_lost_to_preemption) |"
    done
  done
} > "$dir/table.md"
cat "$dir/table.md"

# Per queue (virtual cluster) at 8x: mean JCT (h) of each policy, from its run's queues.csv.
{
  echo
  printf "| queue (8x) | jobs |"
  for p in $(jq -r '.policies[].name' "$dir/compression-8/summary.json"); do printf " %s mean JCT (h) |" "$p"; done
  echo
  printf "|---|---:|"
  for p in $(jq -r '.policies[].name' "$dir/compression-8/summary.json"); do printf -- "---:|"; done
  echo
  first=$(jq -r '.policies[0].name' "$dir/compression-8/summary.json")
  tail -n +2 "$dir/compression-8/runs/$first/seed-42/queues.csv" | while IFS=, read -r queue jobs _; do
    printf "| %s | %s |" "$queue" "$jobs"
    for p in $(jq -r '.policies[].name' "$dir/compression-8/summary.json"); do
      awk -F, -v q="$queue" '$1 == q { printf " %.2f |", $5 / 3600 }' "$dir/compression-8/runs/$p/seed-42/queues.csv"
    done
    echo
  done
} >> "$dir/table.md"
