#!/usr/bin/env bash
# Gavel's time-sharing policies against their heterogeneity-agnostic counterparts and FIFO, on
# Microsoft's Philly job log replayed on the Philly-like cluster with Gavel's GPU types
# (--cluster philly-gavel: K80, P100 and V100 machines; traces/data/gavel/README.md) and Gavel's
# measured throughputs (--throughputs gavel: each job gets a job type and runs at its speed on
# its GPU type), at the log's own arrival times and 2x denser. results/gavel-philly/compression-<K>/
# are gpusim output directories (summary.json, report.md with the job table and the JCT CDF);
# results/gavel-philly/table.md collects their job metrics. Per-run files (runs/) are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/gavel-philly
mkdir -p "$dir"
policies=fifo,maxmin,gavel-maxmin,ftf,gavel-ftf,themis
for k in 1 2; do
  /usr/bin/time -f "compression $k: %e s wall, %M KB max RSS" \
    ./build/gpusim compare --workload philly --cluster philly-gavel --throughputs gavel --mode replay \
    --time-compression "$k" --policies "$policies" --seeds 1 --out "$dir/compression-$k" > /dev/null
done

h() { jq -r "(. / 3600 * 100 | round) / 100"; }
r2() { jq -r '(. * 100 | round) / 100'; }
{
  echo "| arrivals ÷ | policy | mean JCT (h) | median JCT (h) | p95 JCT (h) | p99 JCT (h) | mean queueing (h) | mean FTF ρ | max FTF ρ | jobs with ρ > 1 (%) | Jain over queues | GPUs allocated (%) | makespan (h) | suspensions | rounds | LPs solved |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for k in 1 2; do
    s=$dir/compression-$k/summary.json
    for p in $(jq -r '.policies[].name' "$s"); do
      m() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | .[$m].mean' "$s"; }
      pm() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | (.[$m].mean // null) | if . == null then "–" else round end' "$s"; }
      echo "| $k | $p | $(m job_mean_jct_s | h) | $(m job_p50_jct_s | h) | $(m job_p95_jct_s | h) | $(m job_p99_jct_s | h) | $(m job_mean_queueing_s | h) | $(m job_mean_ftf_rho | r2) | $(m job_max_ftf_rho | r2) | $(m jobs_ftf_rho_above_1_pct | r2) | $(m queue_slowdown_jain | jq -r '(. * 1000 | round) / 1000') | $(m mean_gpu_allocation_pct | r2) | $(m makespan_s | h) | $(pm preemptions) | $(pm rounds) | $(pm lp_solves) |"
    done
  done
} > "$dir/table.md"
cat "$dir/table.md"
