#!/usr/bin/env bash
# Consolidated against scattered placement of multi-GPU jobs (--job-placement; traces/job_placement.hpp)
# on Microsoft's Philly job log, one queue and placement policy for all (policies/profiles/fifo-skip.yaml:
# arrival order, a job that does not fit waits aside, best fit):
#  - on the Philly-like cluster with arrivals 8x denser: consolidated, and scattered with a spread
#    job running 1, 1.1, 1.5 and 2 times slower (--scatter-slowdown: the documented factor);
#  - on the cluster with Gavel's GPU types at the log's arrival rate x2, with Gavel's measured
#    throughputs (--throughputs gavel): a spread job runs at its type's `_unconsolidated` figure.
# It also writes the factor's source: per GPU type and job size, the ratio of Gavel's consolidated to
# unconsolidated throughput over the job types. results/placement-philly/<name>/ are gpusim output
# directories; results/placement-philly/table.md collects their metrics. Per-run files are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/placement-philly
mkdir -p "$dir"
{
  echo "| GPU type | GPUs | job types | median | min | max |"
  echo "|---|---:|---:|---:|---:|---:|"
  jq -r '
    def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def r2: . * 100 | round / 100;
    . as $t | ["k80", "p100", "v100"][] as $w | [2, 4, 8][] as $s |
    [$t[$w] | to_entries[] | select(.key | endswith(", \($s))")) | select(.value.null > 0) | .key as $k
      | ($t[$w + "_unconsolidated"][$k].null // 0) as $u | select($u > 0) | .value.null / $u] as $r |
    "| \($w) | \($s) | \($r | length) | \($r | med | r2) | \($r | min | r2) | \($r | max | r2) |"
  ' traces/data/gavel/simulation_throughputs.json
} > "$dir/consolidation-ratios.md"

run() {  # name, then gpusim options
  local name=$1
  shift
  /usr/bin/time -f "$name: %e s wall, %M KB max RSS" ./build/gpusim compare --workload philly --mode replay \
    --policies policies/profiles/fifo-skip.yaml --seeds 1 "$@" --out "$dir/$name" > /dev/null
}
run philly-8x-consolidated --time-compression 8
run philly-8x-scattered-1 --time-compression 8 --job-placement scattered --scatter-slowdown 1
run philly-8x-scattered-1.1 --time-compression 8 --job-placement scattered --scatter-slowdown 1.1
run philly-8x-scattered-1.5 --time-compression 8 --job-placement scattered --scatter-slowdown 1.5
run philly-8x-scattered-2 --time-compression 8 --job-placement scattered --scatter-slowdown 2
run gavel-2x-consolidated --cluster philly-gavel --throughputs gavel --time-compression 2
run gavel-2x-scattered --cluster philly-gavel --throughputs gavel --time-compression 2 --job-placement scattered

h() { jq -r "(. / 3600 * 100 | round) / 100"; }
r2() { jq -r '(. * 100 | round) / 100'; }
# Mean JCT (h) of the jobs with 2 to 8 GPUs (those scattering splits that fit one node), from jobs.csv.
multi() { awk -F, 'NR > 1 && $4 >= 2 && $4 <= 8 { s += $9; n++ } END { printf "%.2f", s / n / 3600 }' "$1"; }
{
  echo "| run | placement | spread factor | mean JCT (h) | p95 JCT (h) | mean queueing (h) | 2–8-GPU jobs' mean JCT (h) | gang starts spread | gang starts on one node | GPU-hours run | GPUs allocated (%) |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for name in philly-8x-consolidated philly-8x-scattered-1 philly-8x-scattered-1.1 philly-8x-scattered-1.5 philly-8x-scattered-2 \
              gavel-2x-consolidated gavel-2x-scattered; do
    s=$dir/$name/summary.json
    m() { jq -r --arg m "$1" '.policies[0][$m].mean' "$s"; }
    placement=$(jq -r '.inputs.placement.job_placement // "consolidated"' "$s")
    factor=$(jq -r 'if .inputs.time_sharing.throughputs then "Gavel'"'"'s table" else (.inputs.placement.scatter_slowdown // 1 | tostring) end' "$s")
    echo "| $name | $placement | $factor | $(m job_mean_jct_s | h) | $(m job_p95_jct_s | h) | $(m job_mean_queueing_s | h) | $(multi "$dir/$name/runs/fifo-skip/seed-42/jobs.csv") | $(m gang_starts_spread) | $(m gang_starts_on_one_node) | $(m gpu_hours | jq -r round) | $(m mean_gpu_allocation_pct | r2) |"
  done
} > "$dir/table.md"
cat "$dir/consolidation-ratios.md" "$dir/table.md"
